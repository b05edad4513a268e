"""jtorch.save / jtorch.load in PyTorch's zip checkpoint format (readable by torch, and reading torch's).

A checkpoint is a zip archive `<name>/...` holding
  data.pkl                pickle (protocol 2) of the object; tensors are reduced to
                          `torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks)`
                          and each storage is a persistent id ('storage', torch.<Type>Storage, key, location, numel)
  data/<key>              the raw little-endian bytes of storage <key>, 64-byte aligned in the file
  version, .format_version, .storage_alignment, byteorder, .data/serialization_id
Views of one storage share one record, so they come back sharing memory.

jtorch objects are written under torch's global names (torch.Size, torch.float32, torch.device, ...)
by a pickler that translates them; the unpickler maps those names back to jtorch's objects.
`weights_only=True` (the default, as torch >= 2.6) only resolves an allow-list of globals.
"""
from __future__ import annotations

import _compat_pickle
import codecs
import collections
import io
import os
import pickle
import struct
import sys
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO, Any

import numpy as np

import jtorch
from jtorch import dtypes as _dt
from jtorch.storage import TypedStorage, UntypedStorage, typed_impl
from jtorch.tensor import Size, Tensor

__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals", "safe_globals"]

DEFAULT_PROTOCOL = 2
_ALIGNMENT = 64

# torch's storage class for each dtype (what `torch.<Name>Storage` names in a checkpoint)
_STORAGE_NAMES = {
    _dt.float32: "FloatStorage", _dt.float64: "DoubleStorage", _dt.float16: "HalfStorage",
    _dt.int64: "LongStorage", _dt.int32: "IntStorage", _dt.int16: "ShortStorage", _dt.int8: "CharStorage",
    _dt.uint8: "ByteStorage", _dt.bool: "BoolStorage", _dt.complex64: "ComplexFloatStorage",
    _dt.complex128: "ComplexDoubleStorage", _dt.bfloat16: "BFloat16Storage",
}
# dtypes without a legacy typed storage: torch writes their bytes as an UntypedStorage and rebuilds
# the tensor with _rebuild_tensor_v3, which takes the dtype
_UNTYPED_DTYPES = {_dt.uint16: "uint16", _dt.uint32: "uint32", _dt.uint64: "uint64"}
_STORAGE_DTYPES = {name: d for d, name in _STORAGE_NAMES.items()}
_DTYPE_NAMES = {d: str(d).rpartition(".")[2] for d in (*_STORAGE_NAMES, *_UNTYPED_DTYPES)}


# ---- writing --------------------------------------------------------------------------------------
class _Global:
    """A reference to `module.name` written as a GLOBAL opcode (the object need not exist here)."""

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name

    def __call__(self, *args: Any) -> Any:  # pickle's save_reduce requires a callable
        raise TypeError(f"{self.module}.{self.name} is a name for the pickle stream only")


class _StorageRef:
    __slots__ = ("key", "storage", "dtype", "device")

    def __init__(self, key: str, storage: Any, dtype: Any, device: Any) -> None:
        self.key, self.storage, self.dtype, self.device = key, storage, dtype, device


class _TensorData:
    """A tensor pickled with requires_grad=False (a Parameter's `.data`)."""

    __slots__ = ("t",)

    def __init__(self, t: Tensor) -> None:
        self.t = t


def _location(dev: Any) -> str:
    if dev.type == "cpu":
        return "cpu"
    return f"{dev.type}:{dev.index or 0}"


def _is_parameter(t: Tensor) -> bool:
    return any(c.__name__ == "Parameter" and c.__module__.startswith("jtorch.nn") for c in type(t).__mro__)


class _Pickler(pickle._Pickler):
    """The pure-Python pickler, translating jtorch objects to torch's reductions."""

    dispatch = pickle._Pickler.dispatch.copy()

    def __init__(self, file: IO[bytes], protocol: int) -> None:
        super().__init__(file, protocol)
        self.storages: dict[Any, _StorageRef] = {}  # by memory (or id(storage)); the ref keeps the storage alive
        self.storage_dtypes: dict[tuple[Any, int], Any] = {}  # (device, data_ptr) -> the dtype saved for it
        self._globals: dict[tuple[str, str], _Global] = {}

    def _g(self, module: str, name: str) -> _Global:
        key = (module, name)
        if key not in self._globals:
            self._globals[key] = _Global(module, name)
        return self._globals[key]

    def save_global_ref(self, obj: _Global, name: Any = None) -> None:
        self.write(pickle.GLOBAL + obj.module.encode() + b"\n" + obj.name.encode()  # type: ignore[attr-defined]  # Pickler
                   + b"\n")  # internals, untyped
        self.memoize(obj)  # type: ignore[attr-defined]  # Pickler internals

    dispatch[_Global] = save_global_ref  # type: ignore[assignment]  # the Python Pickler's dispatch table

    def _ref(self, storage: Any, dtype: Any, device: Any) -> _StorageRef:
        """The record of a backend storage's memory, saved as elements of `dtype`. One record per memory, as
        torch keys by storage: tensors over the same memory through different storage objects
        (view(dtype) of the same dtype, from_numpy of one array) share it too."""
        ptr = storage.data_ptr() if storage.nbytes() else 0
        key = (device, ptr, storage.nbytes()) if ptr else id(storage)
        if ptr:
            seen = self.storage_dtypes.setdefault((device, ptr), dtype)
            if seen is not dtype:
                raise RuntimeError("Cannot save multiple tensors or storages that view the same data as different "
                                   "types")
        ref = self.storages.get(key)
        if ref is None:
            ref = self.storages[key] = _StorageRef(str(len(self.storages)), storage, dtype, device)
        return ref

    def _tensor_reduce(self, t: Tensor, requires_grad: bool) -> tuple:
        ref = self._ref(t._storage, t.dtype, t.device)
        if t.dtype in _UNTYPED_DTYPES:
            return (self._g("torch._utils", "_rebuild_tensor_v3"),
                    (ref, t.storage_offset(), tuple(t.size()), tuple(t.stride()), requires_grad,
                     collections.OrderedDict(), t.dtype))
        return (self._g("torch._utils", "_rebuild_tensor_v2"),
                (ref, t.storage_offset(), tuple(t.size()), tuple(t.stride()), requires_grad,
                 collections.OrderedDict()))

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, Tensor):
            if obj.dtype in _dt.bits_dtypes:  # torch's storage-type table has no bits type
                raise KeyError(f"dtype {obj.dtype} is not recognized")
            if obj.dtype not in _STORAGE_NAMES and obj.dtype not in _UNTYPED_DTYPES:
                raise pickle.PicklingError(f"jtorch.save: tensors of dtype {obj.dtype} are not supported")
            if _is_parameter(obj):
                return (self._g("torch._utils", "_rebuild_parameter"),
                        (_TensorData(obj), obj.requires_grad, collections.OrderedDict()))
            return self._tensor_reduce(obj, obj.requires_grad)
        if type(obj) is _TensorData:
            return self._tensor_reduce(obj.t, False)
        if type(obj) is Size:
            return (self._g("torch", "Size"), (tuple(obj),))
        if isinstance(obj, jtorch.device):
            return (self._g("torch", "device"), (_location(obj) if obj.type != "cpu" else "cpu",))
        if _is_module(obj):
            return _module_reduce(obj)
        return NotImplemented

    def save(self, obj: Any, save_persistent_id: bool = True) -> None:
        if isinstance(obj, _dt.dtype):  # torch.float32 is a module-level global
            obj = self._g("torch", _DTYPE_NAMES.get(obj, str(obj).rpartition(".")[2]))
        elif isinstance(obj, type) and obj.__module__.startswith("jtorch.nn.modules."):
            # a whole module (torch.save(model)): its class under torch's name, so torch loads it
            obj = self._g(_torch_module_of(obj), obj.__qualname__)
        super().save(obj, save_persistent_id)  # type: ignore[misc]  # pickle's Python Pickler (not in typeshed)

    def persistent_id(self, obj: Any) -> Any:
        if isinstance(obj, TypedStorage):  # a storage saved as itself: torch's record of it
            obj = self._ref(obj._untyped_storage._impl, obj.dtype, obj.device)
        elif isinstance(obj, UntypedStorage):
            ref = self._ref(obj._impl, _dt.uint8, obj.device)
            return ("storage", self._g("torch.storage", "UntypedStorage"), ref.key, _location(ref.device), obj.nbytes())
        if type(obj) is _StorageRef:
            if obj.dtype in _UNTYPED_DTYPES:  # an UntypedStorage counts bytes
                return ("storage", self._g("torch.storage", "UntypedStorage"), obj.key, _location(obj.device),
                        obj.storage.nbytes())
            return ("storage", self._g("torch", _STORAGE_NAMES[obj.dtype]), obj.key, _location(obj.device),
                    obj.storage.nbytes() // obj.dtype.itemsize)
        return None


def _write_aligned(zf: zipfile.ZipFile, name: str, data: bytes) -> None:
    """Write a stored record whose data starts at a multiple of 64 bytes (torch mmaps them)."""
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    start = zf.fp.tell() + 30 + len(name.encode()) + 4  # type: ignore[union-attr]  # an open archive has its file
    pad = (-start) % _ALIGNMENT
    info.extra = b"FB" + struct.pack("<H", pad) + b"Z" * pad
    zf.writestr(info, data)


def save(
    obj: object,
    f: str | os.PathLike | IO[bytes],
    pickle_module: Any = pickle,
    pickle_protocol: int = DEFAULT_PROTOCOL,
    _use_new_zipfile_serialization: bool = True,
    _disable_byteorder_record: bool = False,
) -> None:
    """Save `obj` to a path or binary file object in PyTorch's zip checkpoint format."""
    if not _use_new_zipfile_serialization:
        raise NotImplementedError("jtorch.save writes PyTorch's zip format only (_use_new_zipfile_serialization=True)")
    if isinstance(f, (str, os.PathLike)):
        archive = os.path.splitext(os.path.basename(os.fspath(f)))[0]
        with open(f, "wb") as fh:
            _save(obj, fh, archive, pickle_protocol, _disable_byteorder_record)
    else:
        _save(obj, f, "archive", pickle_protocol, _disable_byteorder_record)


def _save(obj: object, fh: IO[bytes], archive: str, protocol: int, no_byteorder: bool) -> None:
    buf = io.BytesIO()
    pickler = _Pickler(buf, protocol)
    pickler.dump(obj)
    with zipfile.ZipFile(fh, "w", zipfile.ZIP_STORED) as zf:
        _write_aligned(zf, f"{archive}/data.pkl", buf.getvalue())
        _write_aligned(zf, f"{archive}/.format_version", b"1")
        _write_aligned(zf, f"{archive}/.storage_alignment", str(_ALIGNMENT).encode())
        if not no_byteorder:
            _write_aligned(zf, f"{archive}/byteorder", sys.byteorder.encode())
        for ref in pickler.storages.values():
            st = ref.storage
            data = st.copy_to_host(0, st.numel())  # any backend: the storage's bytes on the host
            _write_aligned(zf, f"{archive}/data/{ref.key}", np.ascontiguousarray(data).tobytes())
        _write_aligned(zf, f"{archive}/version", b"3\n")
        _write_aligned(zf, f"{archive}/.data/serialization_id", b"%040d" % (id(obj) % 10**40))


# ---- reading --------------------------------------------------------------------------------------
class _StorageType:
    """What `torch.FloatStorage` (etc.) resolves to when reading: it only carries the dtype."""

    def __init__(self, name: str, dtype: Any) -> None:
        self.name, self.dtype = name, dtype

    def __repr__(self) -> str:
        return f"torch.{self.name}"


def _rebuild_tensor_v2(storage: TypedStorage, storage_offset: int, size: tuple, stride: tuple,
                       requires_grad: bool, backward_hooks: Any, metadata: Any = None) -> Tensor:
    # A fresh leaf over the loaded storage (torch does `tensor.set_(storage, offset, size, stride)`).
    impl = typed_impl(storage._untyped_storage._impl, storage.dtype)
    t = Tensor._make(impl, tuple(size), tuple(stride), storage_offset, storage.dtype, storage.device)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_tensor_v3(storage: TypedStorage, storage_offset: int, size: tuple, stride: tuple,
                       requires_grad: bool, backward_hooks: Any, dtype: Any, metadata: Any = None) -> Tensor:
    # an UntypedStorage's bytes seen as `dtype` (the dtypes without a typed storage: uint16, ...)
    impl = typed_impl(storage._untyped_storage._impl, dtype)
    t = Tensor._make(impl, tuple(size), tuple(stride), storage_offset, dtype, storage.device)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_parameter(data: Tensor, requires_grad: bool, backward_hooks: Any) -> Any:
    from jtorch.nn import Parameter

    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data: Tensor, requires_grad: bool, backward_hooks: Any, state: Any) -> Any:
    param = _rebuild_parameter(data, requires_grad, backward_hooks)
    if isinstance(state, tuple) and len(state) == 2:  # (dict state, slots state)
        state = {**(state[0] or {}), **(state[1] or {})}
    for k, v in (state or {}).items():
        setattr(param, k, v)
    return param


# jtorch.nn classes whose torch module differs from jtorch's (torch: batchnorm.py, instancenorm.py)
_TORCH_NN_MODULES = {
    **{f"BatchNorm{d}d": "torch.nn.modules.batchnorm" for d in (1, 2, 3)},
    **{f"InstanceNorm{d}d": "torch.nn.modules.instancenorm" for d in (1, 2, 3)},
}


# torch.nn.Module attributes jtorch's modules do not keep (no module backward hooks): a whole module
# pickled by jtorch carries them empty, so that torch's forward finds them
_TORCH_ONLY_MODULE_STATE = (("_backward_pre_hooks", collections.OrderedDict),
                            ("_backward_hooks", collections.OrderedDict),
                            ("_is_full_backward_hook", lambda: None))


def _is_module(obj: Any) -> bool:
    return any(c.__name__ == "Module" and c.__module__ == "jtorch.nn.modules.module" for c in type(obj).__mro__)


def _module_reduce(obj: Any) -> Any:
    rv = obj.__reduce_ex__(DEFAULT_PROTOCOL)
    state = rv[2]
    if isinstance(state, dict):
        state = dict(state)
        for name, make in _TORCH_ONLY_MODULE_STATE:
            state.setdefault(name, make())
        rv = (rv[0], rv[1], state, *rv[3:])
    return rv


def _torch_module_of(cls: type) -> str:
    return _TORCH_NN_MODULES.get(cls.__qualname__, "torch" + cls.__module__[len("jtorch"):])


def _jtorch_nn_class(module: str, name: str) -> Any:
    """The jtorch.nn class a checkpoint's `torch.nn.modules.<file>.<Name>` names, or None."""
    if not module.startswith("torch.nn.modules."):
        return None
    import jtorch.nn

    cls = getattr(jtorch.nn, name, None)
    if cls is None and name == "Module":
        cls = jtorch.nn.Module
    return cls if isinstance(cls, type) else None


def _rebuild_from_type_v2(func: Callable, new_type: Any, args: tuple, state: Any) -> Any:
    return func(*args)


def _torch_globals() -> dict[tuple[str, str], Any]:
    """torch names a checkpoint may use, and what they mean in jtorch (also the weights_only allow-list)."""
    table: dict[tuple[str, str], Any] = {
        ("collections", "OrderedDict"): collections.OrderedDict,
        ("collections", "Counter"): collections.Counter,
        ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor_v2,
        ("torch._utils", "_rebuild_tensor_v3"): _rebuild_tensor_v3,
        ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
        ("torch._utils", "_rebuild_parameter_with_state"): _rebuild_parameter_with_state,
        ("torch._tensor", "_rebuild_from_type_v2"): _rebuild_from_type_v2,
        ("torch", "Size"): Size,
        ("torch", "Tensor"): Tensor,
        ("torch", "device"): jtorch.device,
        ("_codecs", "encode"): codecs.encode,
        ("builtins", "set"): set,
        ("builtins", "frozenset"): frozenset,
        ("builtins", "bytearray"): bytearray,
        ("builtins", "complex"): complex,
        ("builtins", "slice"): slice,
        ("builtins", "int"): int,
        ("builtins", "float"): float,
        ("builtins", "bool"): bool,
        ("builtins", "str"): str,
        ("builtins", "bytes"): bytes,
    }
    for name, d in _STORAGE_DTYPES.items():
        table[("torch", name)] = _StorageType(name, d)
    table[("torch", "UntypedStorage")] = _StorageType("UntypedStorage", _dt.uint8)
    table[("torch.storage", "UntypedStorage")] = table[("torch", "UntypedStorage")]  # how torch names it
    for d, name in _DTYPE_NAMES.items():
        table[("torch", name)] = d
    return table


_TORCH_GLOBALS = _torch_globals()
_safe_globals: list[Any] = []


def add_safe_globals(safe_globals: list[Any]) -> None:
    """Allow these classes/functions in `weights_only=True` loads."""
    _safe_globals.extend(safe_globals)


def get_safe_globals() -> list[Any]:
    return list(_safe_globals)


def clear_safe_globals() -> None:
    _safe_globals.clear()


@contextmanager
def safe_globals(safe_globals: list[Any]) -> Iterator[None]:
    n = len(_safe_globals)
    _safe_globals.extend(safe_globals)
    try:
        yield
    finally:
        del _safe_globals[n:]


_UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` from `False` to "
    "`True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it can result in "
    "arbitrary code execution. Do it only if you got the file from a trusted source.")


def _weights_only_message(detail: str) -> str:
    """torch.load's text around a WeightsUnpickler error (with its bold escape codes)."""
    docs = ("\n\nCheck the documentation of torch.load to learn more about types accepted by default with "
            "weights_only https://pytorch.org/docs/stable/generated/torch.load.html.")
    if "was not an allowed global by default." in detail:
        return ("Weights only load failed. This file can still be loaded, to do so you have two options, "
                "\033[1mdo those steps only if you trust the source of the checkpoint\033[0m. "
                f"\n\t(1) {_UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with `weights_only=True` please check "
                "the recommended steps in the following error message.\n\tWeightsUnpickler error: " + detail + docs)
    return (f"Weights only load failed. {_UNSAFE_MESSAGE}\nPlease file an issue with the following so that we can "
            "make `weights_only=True` compatible with your use case: WeightsUnpickler error: \n\n" + detail + docs)


class _Unpickler(pickle.Unpickler):
    def __init__(self, file: IO[bytes], weights_only: bool, load_storage: Callable, **kwargs: Any) -> None:
        super().__init__(file, **kwargs)
        self.weights_only = weights_only
        self.load_storage = load_storage

    def find_class(self, module: str, name: str) -> Any:
        # protocol 2 writes Python 2 names for some builtins (int is __builtin__.long): map them back first
        if (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        elif module in _compat_pickle.IMPORT_MAPPING:
            module = _compat_pickle.IMPORT_MAPPING[module]
        hit = _TORCH_GLOBALS.get((module, name))
        if hit is not None:
            return hit
        if module == "torch.nn.parameter" and name == "Parameter":
            from jtorch.nn import Parameter

            return Parameter
        full = f"{module}.{name}"
        for g in _safe_globals:
            g, gname = (g if isinstance(g, tuple) else (g, f"{g.__module__}.{g.__qualname__}"))
            if gname == full:
                return g
        if not self.weights_only:
            cls = _jtorch_nn_class(module, name)
            if cls is not None:
                return cls
        if self.weights_only:
            raise pickle.UnpicklingError(_weights_only_message(
                f"Unsupported global: GLOBAL {full} was not an allowed global by default. Please use "
                f"`torch.serialization.add_safe_globals([{full}])` or the "
                f"`torch.serialization.safe_globals([{full}])` context manager to allowlist this global "
                "if you trust this class/function."
            ))
        if module.startswith("torch") and module.split(".")[0] == "torch":
            raise pickle.UnpicklingError(f"jtorch.load: the checkpoint refers to {full}, which jtorch does not provide")
        return super().find_class(module, name)

    def persistent_load(self, saved_id: Any) -> Any:
        if not (isinstance(saved_id, tuple) and saved_id and saved_id[0] == "storage"):
            raise pickle.UnpicklingError(f"Unknown saved id type: {saved_id[0] if saved_id else saved_id!r}")
        _, storage_type, key, location, numel = saved_id
        return self.load_storage(storage_type, str(key), location, numel)


def _resolve_device(location: str, map_location: Any) -> jtorch.device:
    """The device a storage saved at `location` goes to."""
    if map_location is None:
        target = location
    elif isinstance(map_location, dict):
        target = map_location.get(location, location)
    else:
        target = map_location
    dev = jtorch.device(target) if not isinstance(target, jtorch.device) else target
    if dev.type == "cuda" and not jtorch.cuda.is_available():
        raise RuntimeError(
            "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. "
            "If you are running on a CPU-only machine, please use torch.load with "
            "map_location=torch.device('cpu') to map your storages to the CPU."
        )
    return dev


def _weights_only_from_environment(weights_only: bool | None) -> bool:
    """The default (True) and torch's overrides: TORCH_FORCE_WEIGHTS_ONLY_LOAD forces True;
    TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD makes an unset weights_only False (with a warning)."""
    true_values = ("1", "y", "yes", "true")
    force = os.getenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0").lower() in true_values
    force_no = os.getenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0").lower() in true_values
    if force and force_no:
        raise RuntimeError("Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or `TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` "
                           "should be set, but both were set.")
    if force:
        return True
    if weights_only is None:
        if force_no:
            import warnings

            warnings.warn("Environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected, since the"
                          "`weights_only` argument was not explicitly passed to `torch.load`, forcing "
                          "weights_only=False.", UserWarning, stacklevel=3)
            return False
        return True
    return weights_only


def load(
    f: str | os.PathLike | IO[bytes],
    map_location: Any = None,
    pickle_module: Any = None,
    *,
    weights_only: bool | None = None,
    mmap: bool | None = None,
    **pickle_load_args: Any,
) -> Any:
    """Load an object saved by jtorch.save or torch.save (zip format).

    map_location: None (the saved device), "cpu"/"cuda"/a device, a dict {saved location: target},
    or a callable (storage, location) -> tensor or None. weights_only defaults to True.
    """
    weights_only = _weights_only_from_environment(weights_only)
    if isinstance(map_location, str) or isinstance(map_location, jtorch.device):
        _resolve_device("cpu", map_location)  # fails early for an unavailable device
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:
            return _load(fh, map_location, weights_only, pickle_load_args)
    return _load(f, map_location, weights_only, pickle_load_args)


def _load(fh: IO[bytes], map_location: Any, weights_only: bool, pickle_load_args: dict) -> Any:
    if not zipfile.is_zipfile(fh):
        raise RuntimeError(
            "jtorch.load reads PyTorch's zip checkpoint format (torch.save since PyTorch 1.6); "
            "this file is in another format (the legacy tar/pickle format is not supported)"
        )
    fh.seek(0)
    with zipfile.ZipFile(fh) as zf:
        names = zf.namelist()
        pkl = next((n for n in names if n.endswith("/data.pkl") and n.count("/") == 1), None)
        if pkl is None:
            raise RuntimeError("jtorch.load: no data.pkl record in this zip archive (not a torch.save checkpoint)")
        prefix = pkl[: -len("data.pkl")]
        big = f"{prefix}byteorder" in names and zf.read(f"{prefix}byteorder") == b"big"
        loaded: dict[str, TypedStorage] = {}

        def load_storage(storage_type: Any, key: str, location: str, numel: int) -> TypedStorage:
            if key in loaded:
                return loaded[key]
            if not isinstance(storage_type, _StorageType):
                raise pickle.UnpicklingError(f"jtorch.load: unsupported storage type {storage_type!r}")
            dtype = storage_type.dtype
            np_type = np.dtype(np.uint16) if dtype is _dt.bfloat16 else dtype.numpy  # bfloat16: its bit patterns
            arr = np.frombuffer(zf.read(f"{prefix}data/{key}"), dtype=np_type.newbyteorder(">" if big else "<"))
            arr = arr.astype(np_type, copy=True)  # writable, native byte order
            base = jtorch.from_numpy(arr)
            if callable(map_location) and not isinstance(map_location, (dict, jtorch.device)):
                moved = map_location(base, location)
                if moved is not None:
                    base = moved
            else:
                dev = _resolve_device(location, map_location)
                if dev.type != "cpu":
                    base = base.to(dev)
            loaded[key] = TypedStorage._wrap(base.untyped_storage(), dtype)  # what torch.load gives a storage as
            return loaded[key]

        unpickler = _Unpickler(io.BytesIO(zf.read(pkl)), weights_only, load_storage,
                               encoding=pickle_load_args.get("encoding", "utf-8"))
        try:
            return unpickler.load()
        except pickle.UnpicklingError:
            raise
        except Exception as e:
            if weights_only:
                raise pickle.UnpicklingError(_weights_only_message(f"{type(e).__name__}: {e}")) from None
            raise
