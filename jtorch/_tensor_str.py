"""Tensor printing that reproduces ``torch/_tensor_str.py`` character for character.

It works on plain NumPy arrays plus metadata (shape, dtype, device, autograd info),
so it does not depend on the Tensor class: ``Tensor.__repr__`` just calls
:func:`tensor_repr` with its values.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from . import dtypes as _dt

__all__ = [
    "set_printoptions",
    "get_printoptions",
    "printoptions",
    "tensor_repr",
    "tensor_str_values",
]


@dataclasses.dataclass
class _PrinterOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


PRINT_OPTS = _PrinterOptions()


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Set print options; same semantics as ``torch.set_printoptions``."""
    profiles = {"default": (4, 1000, 3), "short": (2, 1000, 2), "full": (4, math.inf, 3)}
    if profile in profiles:  # unknown profiles are ignored, as in torch
        PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems = profiles[profile]
        PRINT_OPTS.linewidth = 80
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    # torch always assigns sci_mode, so omitting it resets to automatic
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """Current options as a dict that can be passed back to set_printoptions()."""
    return dataclasses.asdict(PRINT_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs: Any) -> Iterator[None]:
    """Temporarily change print options (accepts set_printoptions' arguments)."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


# ---------------------------------------------------------------------------
# dtype helpers


def _dtype_name(dtype: Any) -> str:
    name = getattr(dtype, "name", None)
    return name if isinstance(name, str) else str(dtype).rsplit(".", 1)[-1]


def _dtype_str(dtype: Any) -> str:
    return "jtorch." + _dtype_name(dtype)


def _default_dtype_names() -> tuple[str, str]:
    """(default float dtype name, default complex dtype name)."""
    return _dtype_name(_dt.get_default_dtype()), _dtype_name(_dt.default_complex_dtype())


# ---------------------------------------------------------------------------
# formatting core (mirrors torch._tensor_str._Formatter & friends)


class _Formatter:
    def __init__(self, arr: np.ndarray) -> None:
        self.floating_dtype = arr.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = arr.reshape(-1)
        if not self.floating_dtype:
            if flat.size:
                if flat.dtype.kind == "b":
                    widths = [len(str(v)) for v in np.unique(flat).tolist()]
                else:
                    # the longest decimal string is at the min or the max value
                    widths = [len(str(flat.min().item())), len(str(flat.max().item()))]
                self.max_width = max(self.max_width, *widths)
            return
        # torch computes in double, which also avoids float16 overflow
        vals = flat.astype(np.float64)
        vals = vals[np.isfinite(vals) & (vals != 0)]
        if vals.size == 0:
            return
        absv = np.abs(vals)
        vmin, vmax = float(absv.min()), float(absv.max())
        self.int_mode = bool(np.all(vals == np.ceil(vals)))
        if PRINT_OPTS.sci_mode is None:
            self.sci_mode = vmax / vmin > 1000.0 or vmax > 1.0e8 or vmin < 1.0e-4
        else:
            self.sci_mode = bool(PRINT_OPTS.sci_mode)
        p = PRINT_OPTS.precision
        uniq = np.unique(vals).tolist()
        if self.sci_mode:
            w = max(len(f"{v:.{p}e}") for v in uniq)
        elif self.int_mode:
            # +1 for the trailing '.' that marks a float tensor
            w = max(len(f"{v:.0f}") for v in uniq) + 1
        else:
            w = max(len(f"{v:.{p}f}") for v in uniq)
        self.max_width = max(self.max_width, w)

    def width(self) -> int:
        return self.max_width

    def format(self, value: Any) -> str:
        if self.floating_dtype:
            p = PRINT_OPTS.precision
            if self.sci_mode:
                ret = f"{value:{self.max_width}.{p}e}"
            elif self.int_mode:
                ret = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = f"{value:.{p}f}"
        else:
            ret = f"{value}"
        return (self.max_width - len(ret)) * " " + ret


def _complex_str(val: complex, f1: _Formatter, f2: _Formatter) -> str:
    real_str = f1.format(val.real)
    imag_str = (f2.format(val.imag) + "j").lstrip()
    # the sign of imag (incl. -0.0) already provides the separator
    if imag_str[0] in "+-":
        return real_str + imag_str
    return real_str + "+" + imag_str


def _vector_str(arr: np.ndarray, indent: int, summarize: bool,
                f1: _Formatter, f2: _Formatter | None) -> str:
    element_length = f1.width() + 2  # includes ", "
    if f2 is not None:
        element_length += f2.width() + 1  # imag part and the 'j'
    per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / element_length))

    def fmt(vals: np.ndarray) -> list[str]:
        if f2 is not None:
            return [_complex_str(v, f1, f2) for v in vals.tolist()]
        return [f1.format(v) for v in vals.tolist()]

    e = PRINT_OPTS.edgeitems
    if summarize and not e:
        data = ["..."]
    elif summarize and arr.shape[0] > 2 * e:
        data = fmt(arr[:e]) + [" ..."] + fmt(arr[-e:])
    else:
        data = fmt(arr)
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _str_with_formatter(arr: np.ndarray, indent: int, summarize: bool,
                        f1: _Formatter, f2: _Formatter | None) -> str:
    dim = arr.ndim
    if dim == 0:
        v = arr.item()
        return _complex_str(v, f1, f2) if f2 is not None else f1.format(v)
    if dim == 1:
        return _vector_str(arr, indent, summarize, f1, f2)
    e = PRINT_OPTS.edgeitems
    n = arr.shape[0]
    if summarize and n > 2 * e:
        rows = list(range(e)) + [None] + list(range(n - e, n))
    else:
        rows = list(range(n))
    slices = ["..." if i is None else _str_with_formatter(arr[i], indent + 1, summarize, f1, f2)
              for i in rows]
    return "[" + ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(slices) + "]"


def _summarized_data(arr: np.ndarray) -> np.ndarray:
    """Only the elements that will be shown, so the formatter widths match torch."""
    e = PRINT_OPTS.edgeitems
    if arr.ndim == 0:
        return arr
    if arr.ndim >= 2 and not e:
        return arr[(slice(0, 0),) * arr.ndim]
    for ax, n in enumerate(arr.shape):
        if n > 2 * e:
            # e == 0 only reaches here for 1-d, where torch's self[-0:] is the whole row
            idx = np.r_[0:e, n - e:n] if e else np.arange(n)
            arr = np.take(arr, idx, axis=ax)
    return arr


def _tensor_str(arr: np.ndarray, indent: int) -> str:
    if arr.size == 0:
        return "[]"
    summarize = arr.size > PRINT_OPTS.threshold
    data = _summarized_data(arr) if summarize else arr
    if arr.dtype.kind == "c":
        return _str_with_formatter(arr, indent, summarize,
                                   _Formatter(data.real), _Formatter(data.imag))
    return _str_with_formatter(arr, indent, summarize, _Formatter(data), None)


def tensor_str_values(values: np.ndarray, dtype: Any = None, *, indent: int = 0) -> str:
    """The bracketed value text of a tensor (what torch puts after ``tensor(``).

    ``indent`` is the column the text starts at; continuation lines are aligned to it.
    """
    arr = np.asarray(values)
    if dtype is not None and getattr(dtype, "is_complex", False) and arr.dtype.kind != "c":
        arr = arr.astype(np.complex128)
    return _tensor_str(arr, indent)


def _add_suffixes(tensor_str: str, suffixes: list[str], indent: int) -> str:
    out = [tensor_str]
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1  # torch's (off-by-one) rule
    for suffix in suffixes:
        # measure as torch's 'dtype=torch.X' so line breaks land exactly where torch's do
        suffix_len = len(suffix) - suffix.startswith("dtype=jtorch.")
        if last_line_len + suffix_len + 2 > PRINT_OPTS.linewidth:
            out.append(",\n" + " " * indent + suffix)
            last_line_len = indent + suffix_len
        else:
            out.append(", " + suffix)
            last_line_len += suffix_len + 2
    out.append(")")
    return "".join(out)


def tensor_repr(
    values: np.ndarray | None,
    *,
    shape: tuple[int, ...],
    dtype: Any,
    device: str,
    requires_grad: bool = False,
    grad_fn_name: str | None = None,
    prefix: str = "tensor(",
) -> str:
    """``repr`` of a tensor, identical to torch's with ``torch.`` -> ``jtorch.``.

    ``values`` holds the data (shape == ``shape``) or is None for meta tensors.
    """
    shape = tuple(int(s) for s in shape)
    indent = len(prefix)
    suffixes: list[str] = []
    device = str(device)
    if device.split(":", 1)[0] != "cpu":
        suffixes.append(f"device='{device}'")

    name = _dtype_name(dtype)
    fdef, cdef = _default_dtype_names()
    has_default_dtype = name in (fdef, cdef, "int64", "bool")
    numel = math.prod(shape)

    if values is None or device == "meta":
        # no data: torch prints '...' and always the size; int64/bool are not exempt here
        suffixes.append("size=" + str(shape))
        if name != fdef:
            suffixes.append("dtype=" + _dtype_str(dtype))
        tensor_str = "..."
    elif numel == 0:
        if len(shape) != 1:  # like NumPy, (0,) is implied by '[]'
            suffixes.append("size=" + str(shape))
        if name != fdef:  # no elements to infer the dtype from
            suffixes.append("dtype=" + _dtype_str(dtype))
        tensor_str = "[]"
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append("size=" + str(shape))
        if not has_default_dtype:
            suffixes.append("dtype=" + _dtype_str(dtype))
        arr = np.asarray(values).reshape(shape)
        tensor_str = tensor_str_values(arr, dtype, indent=indent)

    if grad_fn_name is not None:
        suffixes.append(f"grad_fn=<{grad_fn_name}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + tensor_str, suffixes, indent)
