"""`jtorch.cuda`: availability of the CUDA backend (its kernels arrive with the CUDA issue)."""
from __future__ import annotations


def is_available() -> bool:
    from .backends import registered

    return "cuda" in registered()


def device_count() -> int:
    return 1 if is_available() else 0


def _lazy_init() -> None:
    """What torch does before touching CUDA from Python: fail clearly when there is no CUDA."""
    if not is_available():
        raise AssertionError("Torch not compiled with CUDA enabled")
