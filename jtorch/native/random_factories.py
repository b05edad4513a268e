"""Random factories (TensorFactories.cpp): `rand`, `randn`, `randint`, `randperm`, their `*_like`
and out= overloads, and `normal.float_float`, generated from one table.

Each factory composes as in ATen: make the tensor (`empty(size)`, `empty_like(self)`, or resize
the out= tensor), then call an in-place sampler of random.py through the dispatcher. A table row
names the family, the sampler and its arguments, an optional argument check, and the overloads'
schemas; small pure functions turn a row into declarations and kernels. An overload's arguments
say how its tensor is made: `out` (resized to `size`), `self` (`*_like`), or `size` / `n`.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .. import dtypes as _dt
from ..structured.structured import make_binder
from ..tensor import Tensor
from .factories import _empty, aten, empty_like, resize_, runs_below_inplace_or_view
from .random import check_normal_std, normal_, random__from, randperm_generator_out_kernel, uniform_
from .registry import NativeFunction, declare

_OPTS = "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None"
_LIKE = f"{_OPTS}, MemoryFormat? memory_format=None"
_LONG = "ScalarType? dtype=long, Layout? layout=None, Device? device=None, bool? pin_memory=None"
_GEN = "Generator? generator"

Args = dict  # a call's arguments by schema name


# ---- samplers: the in-place operator a fresh tensor goes through ---------------------------------------
def uniform(t: Tensor, a: Args) -> Tensor:
    return uniform_.op(t, 0.0, 1.0, generator=a.get("generator"))


def normal(t: Tensor, a: Args) -> Tensor:
    return normal_.op(t, a.get("mean", 0.0), a.get("std", 1.0), generator=a.get("generator"))


def randint(t: Tensor, a: Args) -> Tensor:
    return random__from.op(t, a.get("low", 0), a["high"], generator=a.get("generator"))


def randperm(t: Tensor, a: Args) -> Tensor:
    return aten("randperm.generator_out")(a["n"], generator=a.get("generator"), out=t)


# ---- argument checks (before anything is allocated) -----------------------------------------------------
def high_item(a: Args) -> None:
    """randint_like.Tensor: `high` read out of a one-element integral tensor."""
    high = a["high"]
    if isinstance(high, Tensor):
        if high.numel() != 1 or high.dtype.is_floating_point or high.dtype.is_complex:
            raise RuntimeError("high must be a scalar tensor and on CPU")
        a["high"] = int(high.item())


def normal_std(a: Args) -> None:
    check_normal_std(a["std"])


@dataclass(frozen=True)
class Factory:
    """One random factory family: its sampler, an argument check, and its overloads' schemas."""

    sample: Callable[[Tensor, Args], Tensor]
    schemas: tuple[str, ...]
    check: Callable[[Args], None] | None = None
    implicit: frozenset[str] = frozenset()  # overloads PyTorch registers CompositeImplicitAutograd
    kernels: tuple = ()  # (overload, backend-neutral kernel): overloads that sample themselves


FACTORIES = (
    Factory(uniform, (
        f"rand(SymInt[] size, *, {_OPTS}) -> Tensor",
        f"rand.generator(SymInt[] size, *, {_GEN}, {_OPTS}) -> Tensor",
        "rand.out(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)",
        f"rand.generator_out(SymInt[] size, *, {_GEN}, Tensor(a!) out) -> Tensor(a!)",
    ), implicit=frozenset({"rand.generator_out"})),
    Factory(uniform, (
        f"rand_like(Tensor self, *, {_LIKE}) -> Tensor",
        f"rand_like.generator(Tensor self, *, {_GEN}, {_LIKE}) -> Tensor",
    )),
    Factory(randint, (
        f"randint(SymInt high, SymInt[] size, *, {_LONG}) -> Tensor",
        f"randint.generator(SymInt high, SymInt[] size, *, {_GEN}, {_LONG}) -> Tensor",
        f"randint.low(SymInt low, SymInt high, SymInt[] size, *, {_LONG}) -> Tensor",
        f"randint.low_generator(SymInt low, SymInt high, SymInt[] size, *, {_GEN}, {_LONG}) -> Tensor",
        "randint.out(SymInt high, SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)",
        f"randint.generator_out(SymInt high, SymInt[] size, *, {_GEN}, Tensor(a!) out) -> Tensor(a!)",
        "randint.low_out(SymInt low, SymInt high, SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)",
        f"randint.low_generator_out(SymInt low, SymInt high, SymInt[] size, *, {_GEN}, Tensor(a!) out) "
        "-> Tensor(a!)",
    )),
    Factory(randint, (
        f"randint_like(Tensor self, SymInt high, *, {_LIKE}) -> Tensor",
        f"randint_like.generator(Tensor self, SymInt high, *, {_GEN}, {_LIKE}) -> Tensor",
        f"randint_like.Tensor(Tensor self, Tensor high, *, {_LIKE}) -> Tensor",
        f"randint_like.Tensor_generator(Tensor self, Tensor high, *, {_GEN}, {_LIKE}) -> Tensor",
        f"randint_like.low_dtype(Tensor self, SymInt low, SymInt high, *, {_LIKE}) -> Tensor",
        f"randint_like.low_generator_dtype(Tensor self, SymInt low, SymInt high, *, {_GEN}, {_LIKE}) -> Tensor",
    ), check=high_item),
    Factory(normal, (
        f"randn(SymInt[] size, *, {_OPTS}) -> Tensor",
        f"randn.generator(SymInt[] size, *, {_GEN}, {_OPTS}) -> Tensor",
        "randn.out(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)",
        f"randn.generator_out(SymInt[] size, *, {_GEN}, Tensor(a!) out) -> Tensor(a!)",
    ), implicit=frozenset({"randn.out", "randn.generator_out"})),
    Factory(normal, (
        f"randn_like(Tensor self, *, {_LIKE}) -> Tensor",
        f"randn_like.generator(Tensor self, *, {_GEN}, {_LIKE}) -> Tensor",
    )),
    Factory(randperm, (
        f"randperm(SymInt n, *, {_LONG}) -> Tensor",
        f"randperm.generator(SymInt n, *, {_GEN}, {_LONG}) -> Tensor",
        "randperm.out(SymInt n, *, Tensor(a!) out) -> Tensor(a!)",
        f"randperm.generator_out(SymInt n, *, {_GEN}, Tensor(a!) out) -> Tensor(a!)",
    ), kernels=(("randperm.generator_out", randperm_generator_out_kernel),)),
    # after random.py's normal overloads with tensor arguments (the bindings try them in this order)
    Factory(normal, (
        f"normal.float_float(float mean, float std, SymInt[] size, *, Generator? generator=None, {_OPTS}) -> Tensor",
        "normal.float_float_out(float mean, float std, SymInt[] size, *, Generator? generator=None, "
        "Tensor(a!) out) -> Tensor(a!)",
    ), check=normal_std),
)


# ---- rows -> declarations and kernels --------------------------------------------------------------------
def _long_dtype(dtype: Any) -> Any:
    """The schema default `dtype=long` (the bindings pass the name through, or None)."""
    return _dt.int64 if dtype is None or dtype == "long" else dtype


def make_kernel(nf: NativeFunction, row: Factory) -> Callable:
    """The composite kernel of one overload: check, make the tensor as its arguments say, sample."""
    args = nf.func.arguments
    bind = make_binder(nf.func)
    tensor_names = [a.name for a in args if a.type.base_name == "Tensor" and not a.type.is_list() and not a.is_out]
    names = {a.name for a in args}
    has_out = any(a.is_out for a in args)
    long_default = any(a.name == "dtype" and a.default == "long" for a in args)

    @runs_below_inplace_or_view
    def kernel(*call_args: Any, **kwargs: Any) -> Tensor:
        out = kwargs.pop("out") if has_out else None
        tensors, a = bind(*call_args, **kwargs)
        a.update(zip(tensor_names, tensors))
        if row.check is not None:
            row.check(a)
        if out is not None:
            if "size" in names:
                resize_(out, a["size"])
            t = out
        elif "self" in names:
            t = empty_like.op(a["self"], dtype=a.get("dtype"), device=a.get("device"),
                              memory_format=a.get("memory_format"))
        else:
            dtype = _long_dtype(a.get("dtype")) if long_default else a.get("dtype")
            t = _empty(a["size"] if "size" in names else (a["n"],), dtype, a.get("device"))
        row.sample(t, a)
        return t

    kernel.__name__ = kernel.__qualname__ = f"{nf.name.replace('.', '_')}_kernel"
    return kernel


def declare_factory(row: Factory) -> list[NativeFunction]:
    """Declare a row's overloads, in order, with their composite kernels."""
    nfs = []
    own = dict(row.kernels)
    for schema in row.schemas:
        nf = declare(schema)
        if nf.name in own:
            nf.impl_backends(own[nf.name])
        else:
            key = "CompositeImplicitAutograd" if nf.name in row.implicit else "CompositeExplicitAutograd"
            nf.impl(key)(make_kernel(nf, row))
        nfs.append(nf)
    return nfs


declared = [nf for row in FACTORIES for nf in declare_factory(row)]
