"""jtorch: a PyTorch-compatible eager tensor library.

Every operator call goes through a Python re-implementation of PyTorch's c10 dispatcher
(`jtorch.dispatcher`, `jtorch.keyset`); kernels are compiled by Numba on first use. Importing
declares the operators without registering them: an operator is registered with the dispatcher,
and its bindings (`jtorch.add`, `Tensor.add`, `Tensor.__add__`) generated, on first use.
"""
from typing import TYPE_CHECKING, Any

from . import (
    _C,
    _default_fallbacks,
    dispatcher,
    keyset,
    library,
    tls,
)
from ._ops import ops
from .kernels.cpu import backend as _cpu_backend
from .kernels.cuda import backend as _cuda_backend

_cpu_backend.register()  # the CPU backend's storage and stubs (nothing compiles until first use)
_cuda_backend.register()  # the CUDA backend's: numba.cuda loads when the first CUDA tensor is made
del _cpu_backend, _cuda_backend

from . import (
    autograd,
    cuda,
    native,
)
from . import bindings as _bindings
from ._dlpack import from_dlpack
from ._dlpack import to_dlpack_capsule as to_dlpack
from ._enums import channels_last, contiguous_format, layout, memory_format, preserve_format, strided
from ._tensor_str import get_printoptions, printoptions, set_printoptions
from .autograd import enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad, set_grad_enabled
from .autograd.grad_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled, set_anomaly_enabled
from .control_flow import cond
from .device import (
    device,
    get_default_device,
    set_default_device,
)
from .dtypes import _default_listeners as _default_dtype_listeners
from .dtypes import (
    bfloat16,
    bit,
    bool,
    cdouble,
    cfloat,
    complex64,
    complex128,
    double,
    dtype,
    finfo,
    float,
    float16,
    float32,
    float64,
    get_default_dtype,
    half,
    iinfo,
    int,
    int8,
    int16,
    int32,
    int64,
    long,
    set_default_dtype,
    short,
    uint1,
    uint8,
    uint16,
    uint32,
    uint64,
)
from .kernels.cpu.threads import get_num_threads, set_num_threads
from .native.asarray import asarray, frombuffer
from .native.masks import nonzero
from .native.storage_methods import LEGACY_STORAGES as _LEGACY_STORAGES
from .native.tensor_new import as_tensor, from_numpy, tensor
from .native.tensor_properties import is_storage, typename
from .native.tensor_types import LEGACY_TENSOR_TYPES as _LEGACY_TENSOR_TYPES
from .native.tensor_types import set_default_tensor_type
from .promotion import can_cast, promote_types, result_type
from .random import Generator, default_generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state
from .scalar import SCALAR_TYPE_NAME as _SCALAR_TYPE_NAME
from .storage import StorageBase, TypedStorage, UntypedStorage
from .tensor import Size, Tensor

_bindings.install(globals(), Tensor)
globals().update(_LEGACY_TENSOR_TYPES)  # FloatTensor, LongTensor, ... (torch's legacy tensor types)
globals().update(_LEGACY_STORAGES)  # FloatStorage, ... (torch's legacy storage classes)
Storage = _LEGACY_STORAGES["FloatStorage"]  # torch.Storage: the default dtype's storage class, kept in step


def _default_storage(d: Any) -> None:
    global Storage
    Storage = _LEGACY_STORAGES.get(f"{_SCALAR_TYPE_NAME[d]}Storage", Storage)


_default_dtype_listeners.append(_default_storage)

if TYPE_CHECKING:
    # What __getattr__ below makes on first use, for the type checker: the operator functions (their stub
    # is generated from the declarations by tools/gen_pyi.py), the submodules and serialization's save/load.
    from . import nn, optim, profiler, serialization, testing, utils
    from ._variable_functions import *
    from .nn_functions_in_torch import *
    from .serialization import load, save

# nn.functional's functions under torch's names and signatures (jtorch/nn_functions_in_torch.py), loaded on
# first use as nn is
_NN_FUNCTIONS = frozenset({
    "dropout", "dropout_", "batch_norm", "layer_norm", "group_norm", "instance_norm", "rms_norm",
    "embedding_renorm_", "kl_div", "binary_cross_entropy_with_logits", "hinge_embedding_loss", "margin_ranking_loss",
    "poisson_nll_loss", "bilinear", "alpha_dropout", "alpha_dropout_", "feature_alpha_dropout",
    "feature_alpha_dropout_", "feature_dropout", "feature_dropout_", "triplet_margin_loss", "cosine_embedding_loss",
    "ctc_loss", "cosine_similarity", "pairwise_distance"})


def __getattr__(name: str) -> Any:
    """Operator functions (jtorch.add, ...) are generated on first use (PEP 562). Any: the public ones are
    typed by the stub star-imported above; private operators (`_fused_adam_`) are not in it."""
    if name.startswith("__"):
        raise AttributeError(f"module 'jtorch' has no attribute '{name}'")
    # imported on first use: the import stays small
    if name in ("testing", "profiler", "nn", "optim", "utils", "serialization"):
        import importlib

        return importlib.import_module("." + name, __name__)
    if name in _NN_FUNCTIONS:
        import importlib

        fn = globals()[name] = getattr(importlib.import_module(".nn_functions_in_torch", __name__), name)
        return fn
    if name in ("save", "load"):  # jtorch.serialization's, on first use
        from . import serialization

        return getattr(serialization, name)
    fn = globals()[name] = _bindings.function_binding(name)
    return fn


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_bindings.binding_names(method=False)) | _NN_FUNCTIONS)


from . import linalg, return_types
from .functional import (
    _tensor_norm,
    block_diag,
    broadcast_shapes,
    broadcast_tensors,
    cartesian_prod,
    einsum,
    histogramdd,
    meshgrid,
    norm,
    tensordot,
)

Tensor.norm = _tensor_norm  # type: ignore[method-assign,assignment]  # torch/_tensor.py's Python method, not a
# generated binding (declared for the type checker in _tensor_python.pyi)
del _tensor_norm
from .functional_shape import atleast_1d, atleast_2d, atleast_3d, range, unravel_index
from .native.search import unique, unique_consecutive

# isort: split
# ---- global switches, constants, predicates and device-neutral types (torch/__init__.py's) ----------
import builtins as _builtins
import math as _math

from ._enums import channels_last_3d
from .global_context import (
    are_deterministic_algorithms_enabled,
    get_deterministic_debug_mode,
    get_float32_matmul_precision,
    is_deterministic_algorithms_warn_only_enabled,
    set_deterministic_debug_mode,
    set_float32_matmul_precision,
    use_deterministic_algorithms,
)
from .kernels.cpu.threads import get_num_interop_threads, set_num_interop_threads
from .kernels.cuda.allocator import OutOfMemoryError
from .streams import Event, Stream
from .warn import is_warn_always_enabled, set_warn_always

pi = _math.pi
e = _math.e
inf = _math.inf
nan = _math.nan
newaxis: None = None


def is_tensor(obj: Any, /) -> _builtins.bool:
    """Returns True if `obj` is a jtorch tensor."""
    return isinstance(obj, Tensor)


def get_device_module(device: device | str | None = None) -> Any:
    """The module of a device type (`jtorch.cuda`, `jtorch.cpu`); None: the accelerator's, else the CPU's."""
    import importlib

    if isinstance(device, globals()["device"]):
        name = device.type
    elif isinstance(device, str):
        name = globals()["device"](device).type
    elif device is None:
        name = "cuda" if cuda.is_available() else "cpu"
    else:
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, or None")
    module = None
    if name in ("cpu", "cuda"):
        module = importlib.import_module("." + name, __name__)
    if module is None:
        raise RuntimeError(f"Device '{name}' does not have a corresponding module registered as 'torch.{name}'.")
    return module
