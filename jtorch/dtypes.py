"""jtorch dtypes: singleton dtype objects, numpy mapping, default dtype, finfo/iinfo.

Note: this module deliberately defines module-level names ``bool``, ``int`` and
``float`` (torch-style aliases), so builtins are reached through ``builtins``.
"""
from __future__ import annotations

import builtins

import numpy as np
import numpy.typing as npt

__all__ = [
    "dtype", "all_dtypes", "from_numpy_dtype", "to_numpy_dtype",
    "get_default_dtype", "set_default_dtype", "default_complex_dtype",
    "finfo", "iinfo",
    "bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32",
    "float64", "complex64", "complex128", "long", "int", "short", "half",
    "float", "double", "cfloat", "cdouble",
    "bfloat16", "uint16", "uint32", "uint64", "reduced_floats", "uint1", "bit",
]

_pybool = builtins.bool
_pyint = builtins.int
_pyfloat = builtins.float

_CREATE_TOKEN = object()  # only this module may construct dtype instances


class dtype:
    """A scalar type. One instance per dtype; compare with ``is`` / ``==`` (identity)."""

    __slots__ = ("name", "is_floating_point", "is_complex", "is_signed", "itemsize",
                 "numpy", "char", "_index", "_real", "_complex")
    # the slots' types (set once, in __init__, through object.__setattr__)
    name: str
    is_floating_point: builtins.bool
    is_complex: builtins.bool
    is_signed: builtins.bool
    itemsize: builtins.int
    numpy: np.dtype
    char: str
    _index: builtins.int
    _real: dtype
    _complex: dtype | None

    def __init__(self, token: object, index: _pyint, name: str, char: str,
                 np_type: type, is_floating_point: _pybool, is_complex: _pybool,
                 is_signed: _pybool) -> None:
        if token is not _CREATE_TOKEN:
            raise TypeError("cannot create 'jtorch.dtype' instances")
        s = object.__setattr__
        s(self, "_index", index)  # position in all_dtypes; used by promotion tables
        s(self, "name", name)
        s(self, "char", char)
        s(self, "numpy", np.dtype(np_type))
        s(self, "itemsize", np.dtype(np_type).itemsize)
        s(self, "is_floating_point", is_floating_point)
        s(self, "is_complex", is_complex)
        s(self, "is_signed", is_signed)
        s(self, "_real", self)
        s(self, "_complex", None)

    def __setattr__(self, key: str, value: object) -> None:
        if hasattr(self, key):
            raise AttributeError(f"attribute '{key}' of 'jtorch.dtype' objects is not writable")
        raise AttributeError(f"'jtorch.dtype' object has no attribute '{key}'")

    def __delattr__(self, key: str) -> None:
        self.__setattr__(key, None)

    def __repr__(self) -> str:
        return "jtorch." + self.name

    __str__ = __repr__

    # Singletons: pickling/copying must give back the same object.
    def __reduce__(self) -> str:
        return self.name

    def __copy__(self) -> dtype:
        return self

    def __deepcopy__(self, memo: dict) -> dtype:
        return self

    def to_real(self) -> dtype:
        """complex64 -> float32, complex128 -> float64; other dtypes unchanged."""
        return self._real

    def to_complex(self) -> dtype:
        """float32 -> complex64, float64 -> complex128; complex unchanged.

        float16 -> complex64 (torch gives complex32, which jtorch does not have).
        """
        c = self._complex
        if c is None:
            raise RuntimeError(f"Unknown Complex ScalarType for {_TORCH_NAMES[self._index]}")
        return c


def _make(index: _pyint, name: str, char: str, np_type: type, fp: _pybool,
          cplx: _pybool, signed: _pybool) -> dtype:
    return dtype(_CREATE_TOKEN, index, name, char, np_type, fp, cplx, signed)


# Order = index used by promotion tables (do not reorder without updating promotion.py).
bool = _make(0, "bool", "b1", np.bool_, False, False, False)
uint8 = _make(1, "uint8", "u1", np.uint8, False, False, False)
int8 = _make(2, "int8", "i1", np.int8, False, False, True)
int16 = _make(3, "int16", "i2", np.int16, False, False, True)
int32 = _make(4, "int32", "i4", np.int32, False, False, True)
int64 = _make(5, "int64", "i8", np.int64, False, False, True)
float16 = _make(6, "float16", "f2", np.float16, True, False, True)
float32 = _make(7, "float32", "f4", np.float32, True, False, True)
float64 = _make(8, "float64", "f8", np.float64, True, False, True)
complex64 = _make(9, "complex64", "c4", np.complex64, False, True, True)
complex128 = _make(10, "complex128", "c8", np.complex128, False, True, True)
# NumPy has no bfloat16: its storage is a 2-byte opaque (void) NumPy type holding the bit patterns, so
# that no NumPy or Numba arithmetic can run on it by mistake (a uint16 buffer would silently add bits)
# and a buffer's NumPy type alone tells a bfloat16 from a uint16 one. Kernels compute it in float32,
# as torch's CPU kernels do; the copy kernels convert (ml_dtypes would give NumPy arithmetic on it,
# which nothing here needs, at the price of a dependency).
bfloat16 = _make(11, "bfloat16", "bf2", np.void, True, False, True)
object.__setattr__(bfloat16, "numpy", np.dtype("V2"))
object.__setattr__(bfloat16, "itemsize", 2)
uint16 = _make(12, "uint16", "u2", np.uint16, False, False, False)
uint32 = _make(13, "uint32", "u4", np.uint32, False, False, False)
uint64 = _make(14, "uint64", "u8", np.uint64, False, False, False)
# torch's placeholder bits type (torch.bit): one byte per element, no kernel computes on it (only allocation,
# views and promotion with the floating types work). An opaque 1-byte NumPy type, as bfloat16's, keeps every
# NumPy/Numba arithmetic off it and tells its buffers from uint8's.
uint1 = _make(15, "uint1", "bit", np.void, False, False, False)
object.__setattr__(uint1, "numpy", np.dtype("V1"))
object.__setattr__(uint1, "itemsize", 1)
bit = uint1

all_dtypes: tuple = (bool, uint8, int8, int16, int32, int64, float16, float32,
                     float64, complex64, complex128, bfloat16, uint16, uint32, uint64, uint1)

# The floating storage types kernels compute in float32 (torch's opmath type for Half and BFloat16).
reduced_floats: frozenset = frozenset((float16, bfloat16))
# The unsigned types beyond uint8: torch 2.x gives them a small operator set and no promotion with other integers.
limited_unsigned: frozenset = frozenset((uint16, uint32, uint64))
# The bits types: storage only, every kernel refuses them.
bits_dtypes: frozenset = frozenset((uint1,))

# c10 ScalarType names, used in torch-style error messages.
_TORCH_NAMES = ("Bool", "Byte", "Char", "Short", "Int", "Long", "Half", "Float",
                "Double", "ComplexFloat", "ComplexDouble", "BFloat16", "UInt16", "UInt32", "UInt64", "UInt1")

for _r, _c in ((float16, complex64), (bfloat16, complex64), (float32, complex64), (float64, complex128)):
    object.__setattr__(_r, "_complex", _c)
for _c, _r in ((complex64, float32), (complex128, float64)):
    object.__setattr__(_c, "_real", _r)
    object.__setattr__(_c, "_complex", _c)

# torch-style aliases
long = int64
int = int32
short = int16
half = float16
float = float32
double = float64
cfloat = complex64
cdouble = complex128

# ---------------------------------------------------------------- numpy mapping
# Keyed by (kind, itemsize) so that e.g. np.longlong and np.int64 both map to int64.
_FROM_NP = {(d.numpy.kind, d.numpy.itemsize): d for d in all_dtypes}
# A NumPy array of user data never holds bfloat16 (only jtorch's own buffers do): from_numpy refuses it.
_FROM_USER_NP = {k: d for k, d in _FROM_NP.items() if d is not bfloat16 and d is not uint1}


def from_numpy_dtype(np_dtype: npt.DTypeLike) -> dtype:
    """Map a numpy dtype (or anything np.dtype() accepts) to a jtorch dtype."""
    nd = np.dtype(np_dtype)
    d = _FROM_USER_NP.get((nd.kind, nd.itemsize))
    if d is None:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{nd.type.__name__}. The only supported "
            "types are: float64, float32, float16, complex64, complex128, int64, int32, "
            "int16, int8, uint64, uint32, uint16, uint8, and bool.")
    return d


def from_buffer_dtype(np_dtype: np.dtype) -> dtype:
    """The jtorch dtype of one of jtorch's own storage buffers (bfloat16's opaque type included)."""
    return _FROM_NP[(np_dtype.kind, np_dtype.itemsize)]


def to_numpy_dtype(d: dtype) -> np.dtype:
    return d.numpy


# ---------------------------------------------------------------- default dtype
# promotion.py registers a hook here so its cached wrapped-scalar tables follow the default.
_default_dtype: dtype = float32
_default_listeners: list = []


def get_default_dtype() -> dtype:
    return _default_dtype


def set_default_dtype(d: dtype) -> None:
    global _default_dtype
    if not isinstance(d, dtype):
        raise TypeError("invalid dtype object: only floating-point types are supported as the default type")
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _default_dtype = d
    for fn in _default_listeners:
        fn(d)


def default_complex_dtype() -> dtype:
    """complex128 for a float64 default, else complex64 (torch: complex32 for float16)."""
    return complex128 if _default_dtype is float64 else complex64


# ---------------------------------------------------------------- finfo / iinfo
class finfo:
    """Machine limits of a floating (or complex: its real part) dtype, as torch.finfo."""

    __slots__ = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")

    def __init__(self, type: dtype | None = None) -> None:
        if type is None:
            type = _default_dtype
        if not isinstance(type, dtype) or not (type.is_floating_point or type.is_complex):
            raise TypeError("jtorch.finfo() requires a floating point input type. "
                            "Use jtorch.iinfo to handle 'jtorch.finfo'")
        real = type.to_real()
        self.bits = real.itemsize * 8
        if real is bfloat16:  # 8 exponent bits as float32, 8 significand bits (7 stored)
            self.eps = 2.0 ** -7
            self.max = (2.0 - 2.0 ** -7) * 2.0 ** 127
            self.min = -self.max
            self.tiny = 2.0 ** -126
            self.resolution = 0.01  # pow(10, -digits10), digits10 = 2
        else:
            info = np.finfo(real.numpy)
            self.eps = _pyfloat(info.eps)
            self.max = _pyfloat(info.max)
            self.min = _pyfloat(info.min)
            self.tiny = _pyfloat(info.smallest_normal)
            self.resolution = 10.0 ** -_pyint(info.precision)  # torch: pow(10, -digits10)
        self.smallest_normal = self.tiny
        self.dtype = real.name

    def __eq__(self, other: object) -> _pybool:
        return isinstance(other, finfo) and self.dtype == other.dtype

    def __hash__(self) -> _pyint:
        return hash(("finfo", self.dtype))

    def __repr__(self) -> str:  # torch prints with C++ stream default (%g) precision
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """Limits of an integer dtype, as torch.iinfo."""

    __slots__ = ("bits", "max", "min", "dtype")

    def __init__(self, type: dtype) -> None:
        if not isinstance(type, dtype) or type.is_floating_point or type.is_complex:
            raise TypeError("jtorch.iinfo() requires an integer input type. "
                            "Use jtorch.finfo to handle 'jtorch.iinfo'")
        if type is bool:
            raise TypeError("jtorch.bool is not supported by jtorch.iinfo")
        if type in bits_dtypes:
            raise TypeError("jtorch.iinfo() requires an integer input type. "
                            "Use jtorch.finfo to handle 'jtorch.iinfo'")
        info = np.iinfo(type.numpy)
        self.bits = type.itemsize * 8
        self.max = _pyint(info.max)
        self.min = _pyint(info.min)
        self.dtype = type.name

    def __eq__(self, other: object) -> _pybool:
        return isinstance(other, iinfo) and self.dtype == other.dtype

    def __hash__(self) -> _pyint:
        return hash(("iinfo", self.dtype))

    def __repr__(self) -> str:
        return f"iinfo(min={_pyfloat(self.min):g}, max={_pyfloat(self.max):g}, dtype={self.dtype})"
