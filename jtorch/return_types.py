"""Named-tuple results of functions whose schema names its returns (torch.return_types): one type
per function, made from the schema's return names, plus `<name>_out` for its out= form.

    r = x.max(1)          # jtorch.return_types.max(values=..., indices=...)
    r[0], r.values, len(r) == 2, tuple(r)

They are tuple subclasses (PyTorch's structseq). `jtorch.ops.aten.max.dim` itself returns a plain
tuple, as in torch: only the Python bindings wrap.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__: list[str] = []


class _StructSeq(tuple):
    """Base of the generated types: a tuple with named fields and torch's repr."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()
    n_fields = 0

    def __new__(cls, sequence: Iterable[Any], dict: Any = None) -> _StructSeq:
        values = tuple(sequence)
        if len(values) != len(cls._fields):
            raise TypeError(f"torch.return_types.{cls.__name__}() takes a {len(cls._fields)}-sequence "
                            f"({len(values)}-sequence given)")
        return tuple.__new__(cls, values)

    def __repr__(self) -> str:
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(self._fields, self))
        return f"torch.return_types.{type(self).__name__}(\n{body})"

    __str__ = __repr__

    def __reduce__(self) -> tuple:
        return (type(self), (tuple(self),))


def _field(i: int) -> property:
    return property(lambda self: tuple.__getitem__(self, i))


def make(name: str, fields: tuple[str, ...]) -> type:
    """The return type `name` with `fields`, made once and kept in this module."""
    t = globals().get(name)
    if isinstance(t, type) and issubclass(t, _StructSeq):
        if t._fields != tuple(fields):
            raise ValueError(f"return type {name} already has fields {t._fields}, not {tuple(fields)}")
        return t
    ns: dict[str, Any] = {"__slots__": (), "_fields": tuple(fields), "n_fields": len(fields),
                          "__module__": __name__}
    for i, f in enumerate(fields):
        ns[f] = _field(i)
    t = type(name, (_StructSeq,), ns)
    globals()[name] = t
    __all__.append(name)
    return t
