"""The conjugate and negative bits (ATen's ConjugateFallback.cpp, NegateFallback.cpp, MathBitsFallback.h).

`x.conj()` of a complex tensor is a view of x that carries the Conjugate key in its key set, and
`_neg_view` one that carries the Negative key: what the tensor means is the conjugate (negation) of
what its storage holds. The keys sit between Python and ADInplaceOrView, so autograd records the
operator on the tensor with the bit, and below it the boxed fallback registered here at each key
makes every operator see the meant values:

- views (schemas whose aliased arguments are not written) pass straight through; the view
  kernels copy the bits onto their result, so `x.conj()[0]` is a conjugate too;
- other operators get each bit-carrying input materialised (a resolved copy) and run below the
  key; a written argument with the bit (in-place, out=) is computed into its resolved copy, and
  the result is written back conjugated (negated) into the original's memory;
- copy_ is handled without a temporary for the destination, as ATen's copy kernel does: writing
  v into a conjugate view means writing conj(v) into its storage.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..keyset import NUM_BACKENDS, DispatchKey, after_ADInplaceOrView_keyset, key_repr
from ..tensor import Tensor

CONJ_BIT = key_repr(DispatchKey.Conjugate)
NEG_BIT = key_repr(DispatchKey.Negative)
MATH_BITS = CONJ_BIT | NEG_BIT
_BELOW_AD = int(after_ADInplaceOrView_keyset)
_make = Tensor._make


def _full_after(k: DispatchKey) -> int:
    return (1 << (NUM_BACKENDS + int(k) - 1)) - 1


def with_bits(t: Tensor, bits: int) -> Tensor:
    """Give the new tensor `t` (a view just made) the math bits `bits`; returns `t`."""
    if bits:
        t._key_set |= bits
    return t


def toggled(t: Tensor, bit: int) -> Tensor:
    """An alias of t's memory (same geometry, no autograd history, not a view) with `bit` flipped."""
    a = _make(t._storage, t._size, t._stride, t._offset, t.dtype, t._device, t._vc)
    a._key_set = (a._key_set | (t._key_set & MATH_BITS)) ^ bit
    return a


def _materialize(t: Tensor, bit: int) -> Tensor:
    """The values t means, in new memory without `bit` (at::clone in MathBitsFallback)."""
    from .registry import by_name

    plain = toggled(t, bit)
    name = "_conj_physical" if bit == CONJ_BIT else "neg"
    return by_name[name].op.redispatch(plain._key_set & _BELOW_AD, plain)


def resolved_math_bits(t: Tensor) -> Tensor:
    """t's meant values in memory without bits (printing, tolist, numpy(force=True)); t itself when it has none.
    No autograd history: what torch's callers do under no_grad."""
    for bit in (NEG_BIT, CONJ_BIT):
        if t._key_set & bit:
            t = _materialize(t, bit)
    return t


def write_back(dst: Tensor, src: Tensor) -> None:
    """dst.copy_(src) below autograd, for a dst that may carry math bits (what ATen's copy_ does)."""
    from .registry import by_name

    copy = by_name["copy_"].op
    copy.redispatch((dst._key_set | src._key_set) & _BELOW_AD, dst, src)


class _Fallback:
    def __init__(self, key: DispatchKey, bit: int, name: str) -> None:
        self.key, self.bit, self.name = key, bit, name
        self.below = _full_after(key)

    def __call__(self, ks: int, op: Any, *args: Any, **kwargs: Any) -> Any:
        bit, below = self.bit, int(ks) & self.below
        schema = op._schema
        is_write = None
        for a in schema.arguments:
            if a.annotation is not None:
                if is_write is not None and is_write != a.is_write:
                    raise RuntimeError(
                        f"Unsupported operator for {self.name} fallback: {schema.name}{self.name} fallback doesn't "
                        "work for operators with a mix mutable and non-mutable inputs that alias with outputs, this "
                        "must be implemented manually.  If you got this error on a core op, please report a bug to "
                        "PyTorch.")
                is_write = a.is_write
        if is_write is False:  # a view: the view kernels carry the bit over
            return op.redispatch(below, *args, **kwargs)
        if str(schema.name) == "aten::copy_":
            return self._copy(below, op, *args, **kwargs)
        positional = [a for a in schema.arguments if not a.kwarg_only]
        by_kw = {a.name: a for a in schema.arguments}
        mutated: list[tuple[Tensor, Tensor]] = []

        def resolve(value: Any, arg: Any) -> Any:
            if isinstance(value, Tensor):
                if not value._key_set & bit:
                    return value
                resolved = _materialize(value, bit)
                if arg is not None and arg.is_write:
                    if mutated:
                        raise RuntimeError(f"{self.name} fallback does not support operators with more than one "
                                           f"mutable tensors with {self.name}bit set to true.")
                    mutated.append((value, resolved))
                return resolved
            if isinstance(value, (list, tuple)) and any(isinstance(v, Tensor) and v._key_set & bit for v in value):
                if arg is not None and arg.is_write:
                    raise RuntimeError(
                        f" fallback doesn't currently support mutable TensorLists with {self.name} inputs. Please "
                        f"materialize all the {self.name} input tensor(s) in the mutable TensorList inputs before "
                        f"calling {schema.name}")
                return type(value)(resolve(v, None) for v in value)
            return value

        args = tuple(resolve(v, positional[i] if i < len(positional) else None) for i, v in enumerate(args))
        kwargs = {k: resolve(v, by_kw.get(k)) for k, v in kwargs.items()}
        ret = op.redispatch(below, *args, **kwargs)
        for original, resolved in mutated:
            from ..structured.meta import resize_output

            if original._size != resolved._size:  # out= resized: resize the original the same way
                resize_output(original, resolved._size)
            write_back(original, resolved)
            if ret is resolved:
                ret = original
            elif isinstance(ret, tuple) and any(r is resolved for r in ret):
                ret = type(ret)(original if r is resolved else r for r in ret) if type(ret) is tuple else \
                    type(ret)(*(original if r is resolved else r for r in ret))
        return ret

    def _copy(self, below: int, op: Any, self_: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
        bit = self.bit
        if self_._key_set & bit:
            # writing v into a conjugate (negative) view writes conj(v) (-v) into its memory
            self._copy(below, op, toggled(self_, bit), toggled(src, bit) if isinstance(src, Tensor) else src,
                       non_blocking)
            return self_
        if isinstance(src, Tensor) and src._key_set & bit:
            src = _materialize(src, bit)
        op.redispatch(below, self_, src, non_blocking)
        return self_


conjugate_fallback: Callable[..., Any] = _Fallback(DispatchKey.Conjugate, CONJ_BIT, "Conjugate")
negative_fallback: Callable[..., Any] = _Fallback(DispatchKey.Negative, NEG_BIT, "Negative")

# What ATen registers as a fallthrough at both keys (MathBitFallThroughLists.h): the views, whose kernels
# carry the bits over, and the operators that read only metadata. copy_, clone, mm and the other BLAS
# operators that ATen's kernels resolve themselves go through the fallback here (jtorch's kernels read
# storages as they are). is_conj / is_neg pass too: jtorch's bindings reach them through the dispatcher.
_FALLTHROUGH = (
    "as_strided", "detach", "diagonal", "expand", "expand_as", "movedim.int", "movedim.intlist", "narrow",
    "permute", "select.int", "squeeze", "t", "transpose.int", "unbind.int", "unfold", "unsqueeze", "view",
    "view_as", "alias", "_conj", "conj", "resolve_conj", "resolve_neg", "split.Tensor", "split_with_sizes",
    "chunk", "reshape", "unflatten.int", "real", "imag", "view_as_real", "_unsafe_view", "swapaxes", "swapdims",
    "empty_like", "empty_strided", "full_like", "is_complex", "is_floating_point", "requires_grad_",
    "is_conj", "is_neg",
)
_registered: list[Any] = []


def register() -> None:
    """Register the fallbacks and fallthroughs (once, when the first tensor with a bit is made: nothing
    carries the keys before, and `import jtorch` stays quick)."""
    if _registered:
        return
    from ..library import Library, fallthrough_kernel

    lib, aten = Library("_", "IMPL"), Library("aten", "IMPL")
    _registered.extend((lib, aten))  # a Library undoes its registrations when collected
    lib.fallback(conjugate_fallback, "Conjugate", with_keyset=True)
    lib.fallback(negative_fallback, "Negative", with_keyset=True)
    for key in ("Conjugate", "Negative"):
        for name in _FALLTHROUGH:
            try:
                aten.impl(name, fallthrough_kernel, key)
            except (RuntimeError, KeyError):  # an operator jtorch does not declare
                pass
