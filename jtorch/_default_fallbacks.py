"""The backend fallbacks PyTorch registers at start-up (BackendSelectFallbackKernel.cpp,
VariableFallbackKernel.cpp, autocast_mode.cpp). Each is a fallthrough: the key is skipped for
every operator that has no kernel of its own there. One line per key, so each debug string
names its own line, as PyTorch's do."""
from .library import Library, fallthrough_kernel

_lib = Library("_", "IMPL")
_lib.fallback(fallthrough_kernel, "BackendSelect")
_lib.fallback(fallthrough_kernel, "ADInplaceOrView")
# Autograd: a fallthrough until the autograd engine registers its own fallback.
_lib.fallback(fallthrough_kernel, "AutogradOther")
_lib.fallback(fallthrough_kernel, "AutogradCPU")
_lib.fallback(fallthrough_kernel, "AutogradCUDA")
_lib.fallback(fallthrough_kernel, "AutogradPrivateUse1")
_lib.fallback(fallthrough_kernel, "AutogradMeta")
_lib.fallback(fallthrough_kernel, "AutocastCPU")
_lib.fallback(fallthrough_kernel, "AutocastCUDA")
