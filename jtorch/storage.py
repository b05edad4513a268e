"""Storage: the memory behind tensors. A Storage knows its device and size, nothing about shapes.

CPU storage is a flat NumPy buffer; meta storage has a size and no data. Other backends (CUDA,
a user's PrivateUse1) implement the same small interface, and only their own kernels look inside.
The interface is what backend-neutral code may ask of any storage: its size, growing it, one
element's value, contiguous runs of elements to and from the host (the way a cross-device copy
moves data, as cudaMemcpy does), a reinterpretation as another dtype (`view(dtype)`), and
whether two storages share memory.
"""
from __future__ import annotations

import contextlib
import itertools
import mmap
import os
import weakref
from typing import Any

import numpy as np

from .backends import storage_for
from .device import CPU, META, device


class Storage:
    """Interface; a backend's storage class implements these."""

    __slots__ = ()
    device: device

    def nbytes(self) -> int:
        raise NotImplementedError

    def numel(self) -> int:
        raise NotImplementedError

    def data_ptr(self) -> int:
        raise NotImplementedError

    def resize_(self, n: int) -> None:
        """Grow to hold at least `n` elements, keeping the values already there."""
        raise NotImplementedError

    def read(self, offset: int) -> Any:
        """One element's value on the host (a 0-dim tensor used as a scalar, `.item()`)."""
        raise NotImplementedError

    def copy_to_host(self, offset: int, numel: int) -> np.ndarray:
        """Elements [offset, offset + numel) as a new 1-D host array of the storage's dtype."""
        raise NotImplementedError

    def copy_from_host(self, offset: int, values: np.ndarray) -> None:
        """Write a 1-D host array (of the storage's dtype) at element `offset`."""
        raise NotImplementedError

    def reinterpret(self, dtype: Any) -> Storage:
        """The same memory seen as elements of `dtype` (Tensor.view(dtype))."""
        raise NotImplementedError

    def clone(self) -> Storage:
        """A new storage holding a copy of every element (Tensor.__deepcopy__)."""
        raise NotImplementedError

    def is_alias_of(self, other: Storage) -> bool:
        """Storage::is_alias_of: one allocation (what PyTorch's overlap errors ask)."""
        return other is self

    def may_share_memory(self, other: Storage) -> bool:
        """Whether the two address ranges intersect (a copy must then read before it writes)."""
        if other is self:
            return True
        if other.device != self.device:
            return False
        pa, pb = self.data_ptr(), other.data_ptr()
        return bool(pa and pb) and pa < pb + other.nbytes() and pb < pa + self.nbytes()


class CPUStorage(Storage):
    """A typed 1-D NumPy array holding every element any view of this storage can reach."""

    __slots__ = ("data",)
    device = CPU

    def __init__(self, data: np.ndarray) -> None:
        self.data = data

    @classmethod
    def allocate(cls, numel: int, dtype: Any) -> CPUStorage:
        return cls(cpu_buffer(numel, dtype))

    def nbytes(self) -> int:
        return self.data.nbytes

    def data_ptr(self) -> int:
        return self.data.__array_interface__["data"][0]

    def numel(self) -> int:
        return self.data.shape[0]

    def read(self, offset: int) -> Any:
        v = self.data[offset]
        if type(v) is np.void:  # bfloat16's opaque 2-byte type: its value, as float32 (bits << 16)
            return (np.uint32(self.data[offset:offset + 1].view(np.uint16)[0]) << np.uint32(16)).view(np.float32)
        return v

    def resize_(self, n: int) -> None:
        if n > self.data.shape[0]:
            new = cpu_buffer(n, self.data.dtype)
            old = self.data.nbytes
            b = new.view(np.uint8)  # bytes: bfloat16's 2-byte void type takes no number
            b[old:] = 0
            b[:old] = self.data.view(np.uint8)
            self.data = new

    def copy_to_host(self, offset: int, numel: int) -> np.ndarray:
        return self.data[offset:offset + numel].copy()

    def copy_from_host(self, offset: int, values: np.ndarray) -> None:
        self.data[offset:offset + values.shape[0]] = values

    def clone(self) -> CPUStorage:
        return CPUStorage(self.data.copy())

    def reinterpret(self, dtype: Any) -> CPUStorage:
        data = self.data
        nbytes = data.nbytes - data.nbytes % dtype.itemsize
        return CPUStorage(data.view("u1")[:nbytes].view(dtype.numpy))

    def is_alias_of(self, other: Storage) -> bool:
        # NumPy buffers viewing one allocation (from_numpy, view(dtype)) are different storages
        # of one allocation: the base array they view.
        return other is self or (isinstance(other, CPUStorage) and _root(self.data) is _root(other.data))

    def may_share_memory(self, other: Storage) -> bool:
        return other is self or (isinstance(other, CPUStorage) and np.may_share_memory(self.data, other.data))


class PinnedCPUStorage(CPUStorage):
    """Host memory that copies to an accelerator may read asynchronously (Tensor.pin_memory)."""

    __slots__ = ()
    pinned = True


def pinned_storage(values: np.ndarray) -> CPUStorage:
    """A pinned host storage holding a copy of the 1-D array `values`."""
    return PinnedCPUStorage(values.copy())


def cpu_buffer(numel: int, dtype: Any) -> np.ndarray:
    """The one home of CPU allocations: an uninitialised buffer of `numel` elements of `dtype` (a
    jtorch or NumPy dtype), or the DefaultCPUAllocator's error when the machine cannot hold it."""
    np_dtype = getattr(dtype, "numpy", dtype)
    try:
        return np.empty(numel, np_dtype)
    except (MemoryError, ValueError):
        raise allocation_error(numel * np.dtype(np_dtype).itemsize) from None


def allocation_error(nbytes: int) -> RuntimeError:
    """c10's DefaultCPUAllocator text for an allocation that failed."""
    return RuntimeError(f"[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate memory: "
                        f"you tried to allocate {nbytes} bytes. Error code 12 (Cannot allocate memory)")


def _root(buf: np.ndarray) -> object:
    """The object owning an array's memory (the end of its chain of bases)."""
    while isinstance(buf.base, np.ndarray):
        buf = buf.base
    return buf if buf.base is None else buf.base


class MetaStorage(Storage):
    """No data: a size in elements only, so meta tensors can be viewed and resized like others."""

    __slots__ = ("_numel", "_itemsize")
    device = META

    def __init__(self, numel: int, itemsize: int) -> None:
        self._numel, self._itemsize = numel, itemsize

    def nbytes(self) -> int:
        return self._numel * self._itemsize

    def data_ptr(self) -> int:
        return 0

    def numel(self) -> int:
        return self._numel

    def resize_(self, n: int) -> None:
        self._numel = max(self._numel, n)

    def reinterpret(self, dtype: Any) -> MetaStorage:
        return MetaStorage(self.nbytes() // dtype.itemsize, dtype.itemsize)

    def clone(self) -> MetaStorage:
        return MetaStorage(self._numel, self._itemsize)


_new = object.__new__


def new_storage(numel: int, dtype: Any, dev: device) -> Storage:
    """A storage of `numel` elements on `dev`, from the device's registered storage factory."""
    if dev.type == "cpu":  # inline, and no __init__ frame: every functional operator allocates
        s = _new(CPUStorage)
        try:
            s.data = np.empty(numel, dtype.numpy)
        except (MemoryError, ValueError):
            raise allocation_error(numel * dtype.itemsize) from None
        return s
    if dev.type == "meta":
        return MetaStorage(numel, dtype.itemsize)
    return storage_for(dev)(numel, dtype, dev)


# ---- shared memory (Storage::share_memory_, the "file_system" sharing strategy) -----------------------
class _SharedMap(mmap.mmap):
    """A MAP_SHARED mapping of a /dev/shm file: what a storage moved to shared memory lives in. A
    child process started by fork inherits the mapping; one started by spawn/forkserver reopens
    the file by `name` (the tensor's reduction for multiprocessing sends it)."""

    name = ""


_shm_count = itertools.count()


def _shm_unlink(name: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(name)


def shared_array(nbytes: int, name: str | None = None) -> np.ndarray:
    """A uint8 array over a shared mapping of `nbytes` (a new /dev/shm file, or the one `name` says)."""
    create = name is None
    if create:
        name = f"/dev/shm/jtorch_{os.getpid()}_{next(_shm_count)}_{id(object())}"
        fd = os.open(name, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    else:
        fd = os.open(name, os.O_RDWR)  # type: ignore[arg-type]  # given
    try:
        if create:
            os.ftruncate(fd, max(nbytes, 1))
        m = _SharedMap(fd, max(nbytes, 1))
    finally:
        os.close(fd)
    m.name = name  # type: ignore[assignment]  # set once, here
    arr = np.frombuffer(m, np.uint8)[:nbytes]
    if create:  # the file lives as long as the creating process's mapping is in use
        weakref.finalize(m, _shm_unlink, m.name)
    return arr


def shared_map(impl: Storage) -> _SharedMap | None:
    """The shared mapping a CPU storage's memory lies in, or None."""
    data = getattr(impl, "data", None)
    if not isinstance(data, np.ndarray):
        return None
    root = _root(data)
    if isinstance(root, memoryview):
        root = root.obj
    return root if isinstance(root, _SharedMap) else None


def share_memory_(impl: Storage) -> None:
    """Move a CPU storage's elements into shared memory in place: every tensor over it follows."""
    if impl.device.type != "cpu" or shared_map(impl) is not None:
        return  # torch: CUDA memory is shared already, meta has nothing to share
    data = impl.data  # type: ignore[attr-defined]  # a CPU storage
    new = shared_array(data.nbytes).view(data.dtype)
    new[...] = data
    impl.data = new  # type: ignore[attr-defined]


# ---- the public storage classes (torch.UntypedStorage, torch.TypedStorage, torch.FloatStorage, ...) ------
_wrappers: weakref.WeakValueDictionary[int, UntypedStorage] = weakref.WeakValueDictionary()


def _holds(impl: Storage, dtype: Any) -> bool:
    """Whether the backend storage's elements are of `dtype` (else it is seen through reinterpret)."""
    data = getattr(impl, "data", None)
    if data is not None and hasattr(data, "dtype"):
        return np.dtype(data.dtype) == np.dtype(dtype.numpy)
    return getattr(impl, "_itemsize", None) == dtype.itemsize


def typed_impl(impl: Storage, dtype: Any) -> Storage:
    """The backend storage seen as elements of `dtype` (the same object when it already holds them)."""
    return impl if _holds(impl, dtype) else impl.reinterpret(dtype)


def _dt_module() -> Any:
    from . import dtypes

    return dtypes


def _check_index(idx: Any, n: int, owner: Any) -> int:
    if isinstance(idx, bool) or not isinstance(idx, (int, np.integer)):
        raise RuntimeError(f"can't index a {type(owner)} with {type(idx)}")
    i = int(idx)
    if i < -n or i >= n:
        raise IndexError(f"index {i} out of range for storage of size {n}")
    return i + n if i < 0 else i


def _py(v: Any) -> Any:
    return v.item() if hasattr(v, "item") else v


class _StorageBase:
    """What UntypedStorage and TypedStorage share: size, printing, iteration, the device."""

    __slots__ = ()
    is_sparse = False
    is_sparse_csr = False

    def size(self) -> int:
        return len(self)  # type: ignore[arg-type]  # subclasses define __len__

    def __iter__(self) -> Any:
        return iter(self[i] for i in range(len(self)))  # type: ignore[arg-type,index]  # as above

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"  # type: ignore[attr-defined]  # subclasses define device

    def get_device(self) -> int:
        return self.device.index if self.device.type == "cuda" else -1  # type: ignore[attr-defined]

    def tolist(self) -> list:
        return [self[i] for i in range(len(self))]  # type: ignore[arg-type,index]

    def _info(self) -> str:
        raise NotImplementedError

    def __str__(self) -> str:
        info = self._info()
        if self.device.type == "meta":  # type: ignore[attr-defined]
            return "...\n" + info
        return " " + "\n ".join(str(v) for v in self.tolist()) + "\n" + info

    __repr__ = __str__


class StorageBase(_StorageBase):
    """torch.StorageBase (torch._C.StorageBase): the base of UntypedStorage (not of TypedStorage)."""

    __slots__ = ()


class UntypedStorage(StorageBase):
    """torch.UntypedStorage: the bytes of a backend storage (one Python object per storage, as
    torch keeps one PyObject per StorageImpl: every view of a tensor returns the same object)."""

    __slots__ = ("_impl", "__weakref__")
    _impl: Storage  # the backend storage whose bytes these are

    def __new__(cls, *args: Any, device: Any = None) -> UntypedStorage:
        from .device import as_device

        dev = CPU if device is None else as_device(device)
        if not args:
            return cls._wrap(new_storage(0, _dt_module().uint8, dev))
        if len(args) == 1 and isinstance(args[0], (int, np.integer)) and not isinstance(args[0], bool):
            n = int(args[0])
            if n < 0:
                raise RuntimeError("[enforce fail at alloc_cpu.cpp:98] ((ptrdiff_t)nbytes) >= 0. alloc_cpu() seems "
                                   f"to have been called with negative number: {n % 2**64}")
            return cls._wrap(new_storage(n, _dt_module().uint8, dev))
        if len(args) == 1:
            seq = args[0]
            if isinstance(seq, (float, complex, bool)) or not hasattr(seq, "__len__"):
                raise RuntimeError(f"torch.UntypedStorage(): Expected a sequence type, but got {type(seq).__name__}")
            for item in seq:
                if not isinstance(item, (int, np.integer)):
                    raise RuntimeError(f"torch.UntypedStorage(): tried to construct a storage from a sequence "
                                       f"({type(seq).__name__}), but one of the items was of type "
                                       f"{type(item).__name__} instead of int")
            values = np.array([int(v) for v in seq], dtype=np.int64).astype(np.uint8)  # wraps, as torch
            impl = new_storage(len(values), _dt_module().uint8, dev)
            if len(values) and dev.type != "meta":
                impl.copy_from_host(0, values)
            return cls._wrap(impl)
        raise TypeError(f"UntypedStorage() takes at most 1 positional argument ({len(args)} given)")

    @classmethod
    def _wrap(cls, impl: Storage) -> UntypedStorage:
        """The one UntypedStorage of a backend storage (made on first use)."""
        w = _wrappers.get(id(impl))
        if w is None:
            w = object.__new__(UntypedStorage)
            w._impl = impl
            _wrappers[id(impl)] = w
        return w

    @property
    def device(self) -> device:
        return self._impl.device

    @property
    def filename(self) -> str | None:
        m = shared_map(self._impl)
        return m.name if m is not None else None

    def nbytes(self) -> int:
        return self._impl.nbytes()

    def __len__(self) -> int:
        return self._impl.nbytes()

    def element_size(self) -> int:
        return 1

    def data_ptr(self) -> int:
        return self._impl.data_ptr()

    def _bytes(self) -> Storage:
        return typed_impl(self._impl, _dt_module().uint8)

    def _check_data(self) -> None:
        if self._impl.device.type == "meta":
            raise NotImplementedError("Not available for 'meta' device type")

    def __getitem__(self, idx: Any) -> Any:
        self._check_data()
        n = len(self)
        if isinstance(idx, slice):
            start, stop, step = idx.indices(n)
            if step != 1:
                raise RuntimeError(f"Trying to slice with a step of {step}, but only a step of 1 is supported")
            data = getattr(self._bytes(), "data", None)
            if not isinstance(data, np.ndarray):
                raise RuntimeError("slicing a storage is supported for CPU storages")
            return UntypedStorage._wrap(CPUStorage(data[start:max(start, stop)]))
        return _py(self._bytes().read(_check_index(idx, n, self)))

    def __setitem__(self, idx: Any, value: Any) -> None:
        self._check_data()
        if isinstance(idx, slice):
            start, stop, step = idx.indices(len(self))
            count = len(range(start, stop, step))
            values = np.full(count, int(value) % 256, np.uint8)
            if step == 1:
                self._bytes().copy_from_host(start, values)
                return
            for j, i in enumerate(range(start, stop, step)):
                self._bytes().copy_from_host(i, values[j:j + 1])
            return
        i = _check_index(idx, len(self), self)
        self._bytes().copy_from_host(i, np.array([int(value) % 256], np.uint8))

    def tolist(self) -> list:
        self._check_data()
        return self._bytes().copy_to_host(0, len(self)).tolist()

    def fill_(self, value: Any) -> UntypedStorage:
        self[0:len(self)] = value
        return self

    def copy_(self, source: Any, non_blocking: bool | None = None) -> UntypedStorage:
        src = source if isinstance(source, UntypedStorage) else source._untyped_storage
        if len(src) != len(self):
            raise RuntimeError(f"size mismatch, expected {len(self)} but got {len(src)}")
        self._bytes().copy_from_host(0, src._bytes().copy_to_host(0, len(src)))
        return self

    def clone(self) -> UntypedStorage:
        return UntypedStorage._wrap(self._impl.clone())

    def cpu(self) -> UntypedStorage:
        if self.device.type == "cpu":
            return self
        out = UntypedStorage(len(self))
        out._bytes().copy_from_host(0, self._bytes().copy_to_host(0, len(self)))
        return out

    def resize_(self, size: int) -> None:
        """Grow to `size` bytes (the elements already there are kept)."""
        impl = self._impl
        if shared_map(impl) is not None or (isinstance(impl, CPUStorage) and impl.data.base is not None
                                            and not isinstance(impl.data.base, np.ndarray)):
            raise RuntimeError("Trying to resize storage that is not resizable")
        item = impl.nbytes() // impl.numel() if impl.numel() else 1
        impl.resize_(-(-int(size) // item))

    def type(self, dtype: Any = None, non_blocking: bool = False) -> Any:
        if dtype is None:
            return "jtorch.storage.UntypedStorage"
        raise TypeError("UntypedStorage.type(dtype) is not supported; wrap it in a TypedStorage")

    def untyped(self) -> UntypedStorage:
        return self

    def is_shared(self) -> bool:
        return self._impl.device.type == "cuda" or shared_map(self._impl) is not None

    def share_memory_(self) -> UntypedStorage:
        if self.device.type not in ("cpu", "cuda"):  # torch's CPU strategy names its file-descriptor call
            raise RuntimeError("_share_fd_: only available on CPU")
        share_memory_(self._impl)
        return self

    def is_pinned(self, device: Any = "cuda") -> bool:
        return bool(getattr(self._impl, "pinned", False))

    def _info(self) -> str:
        return f"[jtorch.storage.UntypedStorage(device={self.device}) of size {len(self)}]"

    def __reduce__(self) -> tuple:
        """Pickled (and deep-copied) by value: its bytes and device."""
        return (_rebuild_storage, (self._host_bytes(), str(self.device), None))

    def _host_bytes(self) -> bytes | None:
        if self.device.type == "meta":
            return None
        return self._bytes().copy_to_host(0, len(self)).tobytes()


_warned_typed_storage = False


def _warn_typed_storage_removal() -> None:
    """torch's deprecation warning for TypedStorage use, once per process as torch gives it."""
    global _warned_typed_storage
    if not _warned_typed_storage:
        _warned_typed_storage = True
        import warnings

        warnings.warn(
            "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only "
            "storage class. This should only matter to you if you are using storages directly.  To access "
            "UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()",
            UserWarning, stacklevel=3)


_TYPED_SIGNATURES = (" * (*, torch.device device, torch.dtype dtype)\n"
                     " * (int size, *, torch.device device, torch.dtype dtype)\n"
                     " * (Sequence data, *, torch.device device, torch.dtype dtype)\n"
                     " * (*, UntypedStorage wrap_storage, torch.dtype dtype)")
_LEGACY_SIGNATURES = (" * no arguments\n * (int size)\n * (Sequence data)\n * (*, UntypedStorage wrap_storage)")


class TypedStorage(_StorageBase):
    """torch.TypedStorage: an UntypedStorage read as elements of one dtype (a new object per call of
    `Tensor.storage()`, over the tensor's one UntypedStorage)."""

    __slots__ = ("_untyped_storage", "dtype")
    _untyped_storage: UntypedStorage
    dtype: Any
    # Set by the native layer: a sequence of numbers to a CPU storage of a dtype, with torch.tensor's
    # conversions and checks (this leaf cannot make tensors).
    _from_sequence: Any = None

    def __init__(self, *args: Any, device: Any = None, dtype: Any = None, wrap_storage: Any = None,
                 _internal: bool = False) -> None:
        if not _internal:
            _warn_typed_storage_removal()
        legacy = getattr(type(self), "_legacy_dtype", None)
        if legacy is not None:
            if dtype is not None:
                raise TypeError(self._bad_args(dtype))
            dtype = legacy
        dt = _dt_module()
        if wrap_storage is not None:
            if args:
                raise TypeError(self._bad_args(args[0]))
            if not isinstance(wrap_storage, UntypedStorage):
                raise TypeError(f"expected a UntypedStorage for argument 'wrap_storage', but got "
                                f"{type(wrap_storage)}")
            if dtype is None:
                raise TypeError(self._bad_args(wrap_storage, "Argument 'dtype' must be specified"))
            self._untyped_storage, self.dtype = wrap_storage, dtype
            return
        from .device import as_device

        dtype = dtype if dtype is not None else dt.get_default_dtype()
        dev = CPU if device is None else as_device(device)
        if not args:
            n = 0
        elif len(args) == 1 and isinstance(args[0], (int, np.integer)) and not isinstance(args[0], bool):
            n = int(args[0])
            if n < 0:
                raise RuntimeError("[enforce fail at alloc_cpu.cpp:98] ((ptrdiff_t)nbytes) >= 0. alloc_cpu() seems "
                                   f"to have been called with negative number: {(n * dtype.itemsize) % 2**64}")
        elif len(args) == 1 and (hasattr(args[0], "__len__") and not isinstance(args[0], (dict, set))):
            impl = type(self)._from_sequence(args[0], dtype, dev)
            self._untyped_storage, self.dtype = UntypedStorage._wrap(impl), dtype
            return
        else:
            raise TypeError(self._bad_args(args[0] if args else None))
        self._untyped_storage, self.dtype = UntypedStorage._wrap(new_storage(n, dtype, dev)), dtype

    def _bad_args(self, arg: Any, why: str | None = None) -> str:
        if getattr(type(self), "_legacy_dtype", None) is not None:
            head = f"{type(self)}.__new__ received an invalid combination of arguments. Expected one of:\n"
            return head + _LEGACY_SIGNATURES + "\n" + (why or f"Argument type not recognized: {type(arg)}")
        head = "TypedStorage.__init__ received an invalid combination of arguments. Expected one of:\n"
        return head + _TYPED_SIGNATURES + "\n" + (why or f"Argument type not recognized: {type(arg)}")

    @classmethod
    def _wrap(cls, untyped: UntypedStorage, dtype: Any) -> TypedStorage:
        s = object.__new__(TypedStorage)
        s._untyped_storage, s.dtype = untyped, dtype
        return s

    @property
    def device(self) -> device:
        return self._untyped_storage.device

    @property
    def filename(self) -> str | None:
        return self._untyped_storage.filename

    def _typed(self) -> Storage:
        return typed_impl(self._untyped_storage._impl, self.dtype)

    def __len__(self) -> int:
        return self._untyped_storage.nbytes() // self.dtype.itemsize

    def nbytes(self) -> int:
        return self._untyped_storage.nbytes()

    def element_size(self) -> int:
        return self.dtype.itemsize

    def data_ptr(self) -> int:
        return self._untyped_storage.data_ptr()

    def untyped(self) -> UntypedStorage:
        return self._untyped_storage

    def _check_data(self) -> None:
        if self.device.type == "meta":
            raise NotImplementedError("Not available for 'meta' device type")

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
        self._check_data()
        return _py(self._typed().read(_check_index(idx, len(self), self)))

    def _value(self, value: Any) -> np.ndarray:
        from .scalar import checked_scalar

        if isinstance(value, (str, bytes)) or not isinstance(value, (int, float, complex, bool, np.generic)):
            raise TypeError(f"can't assign a {type(value).__name__} to a jtorch.{_legacy_name(self.dtype)}Tensor")
        return np.array([checked_scalar(self.dtype, value)], dtype=self.dtype.numpy)

    def __setitem__(self, idx: Any, value: Any) -> None:
        self._check_data()
        v = self._value(value)
        if isinstance(idx, slice):
            for i in range(*idx.indices(len(self))):
                self._typed().copy_from_host(i, v)
            return
        self._typed().copy_from_host(_check_index(idx, len(self), self), v)

    def tolist(self) -> list:
        self._check_data()
        return self._typed().copy_to_host(0, len(self)).tolist()

    def fill_(self, value: Any) -> TypedStorage:
        self._check_data()
        v = self._value(value)
        self._typed().copy_from_host(0, np.repeat(v, len(self)))
        return self

    def copy_(self, source: Any, non_blocking: bool | None = None) -> TypedStorage:
        if isinstance(source, TypedStorage):
            values = source._typed().copy_to_host(0, len(source)).astype(self.dtype.numpy)
            if len(values) != len(self):
                raise RuntimeError(f"size mismatch, expected {len(self)} but got {len(values)}")
            self._typed().copy_from_host(0, values)
        else:
            self._untyped_storage.copy_(source)
        return self

    def clone(self) -> TypedStorage:
        return TypedStorage._wrap(self._untyped_storage.clone(), self.dtype)

    def cpu(self) -> TypedStorage:
        return self if self.device.type == "cpu" else TypedStorage._wrap(self._untyped_storage.cpu(), self.dtype)

    def _to(self, dtype: Any) -> TypedStorage:
        if dtype is self.dtype:
            return self
        self._check_data()
        values = self._typed().copy_to_host(0, len(self))
        with np.errstate(all="ignore"):
            values = values.astype(dtype.numpy) if dtype.numpy.kind != "b" else values != 0
        impl = new_storage(len(values), dtype, self.device)
        if len(values):
            impl.copy_from_host(0, values)
        return TypedStorage._wrap(UntypedStorage._wrap(impl), dtype)

    def resize_(self, size: int) -> None:
        self._untyped_storage.resize_(int(size) * self.dtype.itemsize)

    def type(self, dtype: Any = None, non_blocking: bool = False) -> Any:
        if dtype is None:
            dev = "" if self.device.type == "cpu" else self.device.type + "."
            return f"jtorch.{dev}{_legacy_name(self.dtype)}Storage"
        target = getattr(dtype, "_legacy_dtype", None) or dtype
        return self._to(target)

    def is_shared(self) -> bool:
        return self._untyped_storage.is_shared()

    def share_memory_(self) -> TypedStorage:
        self._untyped_storage.share_memory_()
        return self

    def is_pinned(self, device: Any = "cuda") -> bool:
        return self._untyped_storage.is_pinned(device)

    def _info(self) -> str:
        return (f"[jtorch.storage.TypedStorage(dtype={self.dtype}, device={self.device}) "
                f"of size {len(self)}]")

    def __reduce__(self) -> tuple:
        return (_rebuild_storage, (self._untyped_storage._host_bytes(), str(self.device), self.dtype.name,
                                   self.nbytes()))


def _rebuild_storage(data: bytes | None, device_str: str, dtype_name: str | None, nbytes: int = 0) -> Any:
    """Unpickle a storage: an UntypedStorage of these bytes, or a TypedStorage (dtype_name) over one."""
    from .device import device as _device

    dev = _device(device_str)
    n = len(data) if data is not None else nbytes
    impl = new_storage(n, _dt_module().uint8, dev)
    if data:
        impl.copy_from_host(0, np.frombuffer(data, np.uint8))
    u = UntypedStorage._wrap(impl)
    return u if dtype_name is None else TypedStorage._wrap(u, getattr(_dt_module(), dtype_name))


def _legacy_name(dtype: Any) -> str:
    from .scalar import SCALAR_TYPE_NAME

    return SCALAR_TYPE_NAME[dtype]


def _typed_conversion(dtype_name: str) -> Any:
    def convert(self: TypedStorage) -> TypedStorage:
        return self._to(getattr(_dt_module(), dtype_name))

    convert.__name__ = convert.__qualname__ = dtype_name
    return convert


for _m, _d in (("bool", "bool"), ("byte", "uint8"), ("char", "int8"), ("short", "int16"), ("int", "int32"),
               ("long", "int64"), ("half", "float16"), ("float", "float32"), ("double", "float64"),
               ("bfloat16", "bfloat16"), ("complex_float", "complex64"), ("complex_double", "complex128")):
    setattr(TypedStorage, _m, _typed_conversion(_d))


class _LegacyStorageMeta(type):
    """isinstance(s, FloatStorage): a TypedStorage of float32 on the CPU (torch's _LegacyStorageMeta)."""

    _legacy_dtype: Any

    @property
    def dtype(cls) -> Any:
        return cls._legacy_dtype

    def __instancecheck__(cls, instance: Any) -> bool:
        if type(instance) is TypedStorage:
            return instance.device.type == "cpu" and instance.dtype is cls._legacy_dtype
        return issubclass(type(instance), cls)


# The legacy storage classes by ScalarType name (FloatStorage, ...): a table, so a dtype jtorch gains
# (bfloat16) gets its class where the dtypes module has it.
LEGACY_STORAGE_DTYPES = {
    "Float": "float32", "Double": "float64", "Half": "float16", "BFloat16": "bfloat16", "Long": "int64",
    "Int": "int32", "Short": "int16", "Char": "int8", "Byte": "uint8", "Bool": "bool",
    "ComplexFloat": "complex64", "ComplexDouble": "complex128",
}


def legacy_storage_classes() -> dict[str, type]:
    """{'FloatStorage': <class FloatStorage>, ...} for the dtypes jtorch has."""
    dt = _dt_module()
    out: dict[str, type] = {}
    for name, attr in LEGACY_STORAGE_DTYPES.items():
        d = getattr(dt, attr, None)
        if d is None:
            continue
        cls = _LegacyStorageMeta(f"{name}Storage", (TypedStorage,), {
            "__slots__": (), "_legacy_dtype": d, "__module__": "jtorch",
            "__doc__": f"torch.{name}Storage: a TypedStorage of {d} on the CPU."})
        out[cls.__name__] = cls
    return out
