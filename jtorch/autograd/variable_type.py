"""The generated Autograd kernels (PyTorch's VariableType, gen_variable_type.py).

`autograd_kernel(schema, get_op, info)` makes the kernel registered at the Autograd key for one
operator. Its first lines are generated per schema: when grad mode is off or no tensor argument
requires grad, it redispatches below Autograd at once (the cost of autograd for code that does not
use it). Otherwise `record` does what VariableType does: check the in-place and out= rules, make
the node (`MulBackward0`) with the edges of its inputs, save what the formulas read (with version
numbers), redispatch below autograd, and set the history of the outputs.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from .. import tls as _tls
from ..codegen import compile_source
from ..keyset import after_autograd_keyset, autograd_dispatch_keyset, autograd_dispatch_keyset_with_ADInplaceOrView
from ..schema import FunctionSchema, SchemaKind
from ..structured.fast_path import FAST_PATHS
from ..tensor import CreationMeta, Tensor
from . import record_codegen
from .derivative import DifferentiabilityInfo
from .inplace_or_view import INPLACE_VIEW, is_view_op, redispatch_below
from .node import FREED, NO_EDGE, Node, NotImplemented, SavedVariable, gradient_edge
from .views import rebase_history, set_history

_local = _tls.local
_AFTER = int(after_autograd_keyset)
_BELOW_AUTOGRAD = int(autograd_dispatch_keyset)
_BELOW_VIEW = int(autograd_dispatch_keyset_with_ADInplaceOrView)


class TensorMeta:
    """A saved tensor the formulas only ask for its shape, dtype or device (torchgen's self_sym_sizes)."""

    __slots__ = ("shape", "dtype", "device", "_stride", "_offset")

    def __init__(self, t: Tensor) -> None:
        self.shape, self.dtype, self.device = t.shape, t.dtype, t._device
        self._stride, self._offset = t._stride, t._offset  # TensorGeometry (as_strided's backward)

    def stride(self, dim: int | None = None) -> Any:
        return self._stride if dim is None else self._stride[dim]

    def storage_offset(self) -> int:
        return self._offset

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def size(self, dim: int | None = None) -> Any:
        return self.shape if dim is None else self.shape[dim]

    def dim(self) -> int:
        return len(self.shape)

    def numel(self) -> int:
        return self.shape.numel()

    def is_complex(self) -> bool:
        return self.dtype.is_complex

    def is_floating_point(self) -> bool:
        return self.dtype.is_floating_point


class FormulaNode(Node):
    """A node whose backward is a derivatives-table entry (every `XxxBackwardN` class derives from it)."""

    __slots__ = ("_saved", "_needs", "_out_meta", "_list_lens")
    _info: DifferentiabilityInfo
    _saved: dict[str, Any] | None  # the saved inputs and results by name; None once released
    _needs: list[bool]  # which inputs need a gradient
    _out_meta: list[tuple[Tensor, tuple[int, ...]] | None] | None  # of a multi-output op: to make zeros
    _list_lens: dict[str, int]  # the lengths of its Tensor[] inputs

    def apply(self, grads: list) -> tuple:
        saved = self._saved
        if saved is None:
            raise RuntimeError(FREED)
        vals = {}
        for k, v in saved.items():
            t = type(v)
            if t is SavedVariable:
                vals[k] = v.unpack(self)
            elif t is list and any(type(x) is SavedVariable for x in v):  # Tensor[] or Tensor?[]
                vals[k] = [x.unpack(self) if x is not None else None for x in v]
            else:
                vals[k] = v
        if len(grads) > 1 and None in grads:  # an unused output of a multi-output op: zeros
            grads = [g if g is not None or m is None else _zeros(m)
                     for g, m in zip(grads, self._out_meta)]  # type: ignore[arg-type]  # set: several outputs
        res = self._info.backward(self._needs, grads, vals)
        if self._info.has_list:
            flat: list[Any] = []
            for (name, kind), r in zip(self._info.inputs, res):
                if kind == "list":
                    flat.extend(r if r is not None else [None] * self._list_lens[name])
                else:
                    flat.append(r)
            return tuple(flat)
        return res

    def release(self) -> None:
        """Free the saved tensors only, as torch's release_variables: sizes, dtypes and numbers stay,
        so a second backward through a node that saved no tensor ((x + 1).sum()) runs as in torch,
        and one that did raises when it unpacks them (SavedVariable.unpack sees _released)."""
        self._released = True
        saved = self._saved
        if saved:
            for k, v in saved.items():
                t = type(v)
                if t is SavedVariable:
                    saved[k] = _FREED_VARIABLE
                elif t is list and any(type(x) is SavedVariable for x in v):
                    saved[k] = [_FREED_VARIABLE if x is not None else None for x in v]

    def __getattr__(self, name: str) -> Any:
        """`node._saved_self`, `node._saved_result`: the saved values, as torch exposes them."""
        if name.startswith("_saved_"):
            saved = object.__getattribute__(self, "_saved")
            if saved is None:
                raise RuntimeError(FREED)
            key = name[7:]
            if key in saved:
                v = saved[key]
                if type(v) is SavedVariable:
                    return v.unpack(self)
                return v.shape if type(v) is TensorMeta else v
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")


# what a freed saved tensor leaves behind: unpacking it raises FREED (its node is released)
_FREED_VARIABLE = object.__new__(SavedVariable)


def _zeros(meta: tuple) -> Tensor:
    like, shape = meta
    return like.new_zeros(shape)


def node_class(info: DifferentiabilityInfo) -> type[FormulaNode]:
    body = {"__slots__": (), "_info": info, "__module__": "jtorch.autograd"}
    # a node torch writes by hand prints its C++ name; a view_copy's generated node (DiagonalBackward0_copy),
    # named in the table too, prints as the other generated nodes
    if info.derivative.node_name is not None and not info.node_name.endswith("_copy"):
        qualified = "torch::autograd::" + info.node_name
        body["name"] = lambda self: qualified
    return type(info.node_name, (FormulaNode,), body)


class OpSpec:
    """Everything `record` needs about one operator, computed when its kernel is made."""

    def __init__(self, schema: FunctionSchema, get_op: Callable[[], Any], info: DifferentiabilityInfo | None,
                 not_implemented: bool) -> None:
        self.schema, self.get_op, self.info = schema, get_op, info
        self.kind = schema.kind()
        self.base = schema.name.base
        args = [a for a in schema.arguments]
        self.pos_names = [a.name for a in args if not a.kwarg_only]
        self.defaults = {a.name: a.default_value for a in args if a.has_default}
        self.tensor_args = [(a.name, k) for a in args if (k := a.type.tensor_kind(any_list=True)) is not None]
        self.not_implemented = not_implemented
        self.node_cls = node_class(info) if info is not None else None
        self.is_view = is_view_op(schema)
        self.multi_output = len(schema.returns) > 1 or (schema.returns and schema.returns[0].type.is_list())
        self.is_out = self.kind == SchemaKind.out
        self.inplace = self.kind == SchemaKind.inplace
        self.inplace_view = str(schema.name) in INPLACE_VIEW  # its node goes on self itself, never CopySlices
        self.below = _BELOW_AUTOGRAD if self.inplace else _BELOW_VIEW
        self.inputs = info.inputs if info is not None else self.tensor_args
        self.saved_args = info.saved_args if info is not None else ()
        self.od = info.output_differentiability if info is not None else None
        self._op = None
        self.below_fns: dict = {}  # ks -> the kernel below Autograd (the dispatcher keeps it current)
        self.fast: Callable[..., Any] | Literal[False] | None = None  # the generated record; False: none fits

    @property
    def op(self) -> Any:
        op = self._op
        if op is None:
            op = self._op = self.get_op()
        return op

    def bind(self, args: tuple, kwargs: dict) -> dict:
        b = dict(self.defaults)
        b.update(zip(self.pos_names, args))
        if kwargs:
            b.update(kwargs)
        return b


def _requires_grad(v: Any, kind: str) -> bool:
    if v is None:
        return False
    if kind == "list":
        return any(t is not None and t._requires_grad for t in v)
    return v._requires_grad


def _outputs(result: Any) -> list:
    if isinstance(result, Tensor):
        return [result]
    if isinstance(result, (tuple, list)):
        return list(result)
    return []


def record(spec: OpSpec, ks: int, args: tuple, kwargs: dict) -> Any:
    """Some tensor argument may require grad and grad mode is on: the operator's own generated
    record (record_codegen), made at its first such call, or the generic one."""
    fast = spec.fast
    if fast is None:
        fast = spec.fast = _make_fast_record(spec) if FAST_PATHS else False
    if fast is not False:
        return fast(spec, ks, args, kwargs)
    return record_generic(spec, ks, args, kwargs)


_fast_sources: dict[str, Callable] = {}


def _make_fast_record(spec: OpSpec) -> Callable[..., Any] | Literal[False]:
    if not record_codegen.fits(spec):
        return False
    src = record_codegen.record_source(spec)
    if not src:
        return False
    assert spec.info is not None  # fits() checked it
    make = _fast_sources.get(src)
    if make is None:  # operators of one argument layout share the compiled source
        make = _fast_sources[src] = compile_source(src, f"<jtorch record {spec.info.node_name}>", {})["make"]
    return make(spec, record_generic, redispatch_below, _AFTER, gradient_edge, NO_EDGE, SavedVariable, TensorMeta,
                Tensor, spec.node_cls, record_codegen.positional_tails(spec))


def record_generic(spec: OpSpec, ks: int, args: tuple, kwargs: dict) -> Any:
    """Every operator, every call: what VariableType does, read from the OpSpec."""
    if spec.is_out:
        raise RuntimeError(f"{spec.base}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")
    b = spec.bind(args, kwargs)
    inplace = spec.inplace
    info = spec.info
    # collect_next_edges, and which inputs need a gradient
    edges: list = []
    needs: list = []
    for name, kind in spec.inputs:
        v = b.get(name)
        if kind == "list":
            es = [gradient_edge(t) if t is not None else NO_EDGE for t in (v or ())]
            edges += es
            needs.append(any(e[0] is not None for e in es))
        elif type(v) is Tensor or isinstance(v, Tensor):
            e = gradient_edge(v)
            edges.append(e)
            needs.append(e[0] is not None)
        else:
            edges.append(NO_EDGE)
            needs.append(False)
    if inplace:
        check_inplace(b["self"], True in needs or b["self"]._requires_grad)
    if True not in needs or (info is None and not spec.not_implemented):
        return redispatch_below(spec.get_op, spec.below_fns, ks, _AFTER, spec.below, args, kwargs)
    if info is None:
        # autogradNotImplementedFallback: edges to the inputs that require grad only
        node: Node = NotImplemented(f"derivative for aten::{spec.base} is not implemented",
                                    tuple(e for e in edges if e[0] is not None))
    else:
        assert spec.node_cls is not None  # made with the info
        node = formula = spec.node_cls(tuple(edges))
        node._needs = needs
        node._out_meta = None
        node._saved = _save_inputs(spec, b, inplace, needs) if spec.saved_args else {}
    result = redispatch_below(spec.get_op, spec.below_fns, ks, _AFTER, spec.below, args, kwargs)
    outs = [result] if type(result) is Tensor else _outputs(result)
    node._n_out = len(outs)
    od = spec.od
    multi_meta: list[tuple[Tensor, tuple[int, ...]] | None] | None = [] if len(outs) > 1 else None
    for i, t in enumerate(outs):
        diff = (od is None or (od[i] if i < len(od) else od[-1])) and isinstance(t, Tensor) and (
            t.dtype.is_floating_point or t.dtype.is_complex)
        if multi_meta is not None:
            multi_meta.append((t, t._size) if diff else None)
        if not diff:
            continue
        if inplace and i == 0:
            (set_history if spec.inplace_view else rebase_history)(t, node)
        else:
            t.grad_fn = node
            t._requires_grad = True
            t._output_nr = i
            if spec.is_view and spec.multi_output:
                t._creation_meta = CreationMeta.MULTI_OUTPUT_NODE
    if info is not None:
        formula._out_meta = multi_meta
        if info.saved_results:
            saved = formula._saved
            assert saved is not None  # saved above, not released yet
            for i, name, kind in info.saved_results:
                saved[name] = SavedVariable(outs[i], True) if kind == "tensor" else TensorMeta(outs[i])
        if info.has_list:
            formula._list_lens = {name: len(b.get(name) or ()) for name, kind in info.inputs if kind == "list"}
    return result


def _save_inputs(spec: OpSpec, b: dict[str, Any], inplace: bool, needs: list[bool]) -> dict[str, Any]:
    saved: dict[str, Any] = {}
    info = spec.info
    assert info is not None  # an operator with saved inputs has a derivatives entry
    save_for = info.save_for
    for name, kind in spec.saved_args:
        v: Any = b.get(name)
        if kind == "tensor":
            guard = save_for.get(name)
            if guard is not None and True not in [needs[i] for i in guard]:
                # only formulas of inputs that need no gradient read its values: its metadata is enough
                saved[name] = TensorMeta(v) if v is not None else None
                continue
            if inplace and name == "self" and info.uses_self:
                # original_self: self's value before the write, cloned with its history (as
                # VariableType does) so that double backward reaches what self came from
                v = v.clone()
            saved[name] = SavedVariable(v, False) if v is not None else None
        elif kind == "meta":
            saved[name] = TensorMeta(v) if v is not None else None
        elif kind == "list":
            saved[name] = [SavedVariable(t, False) if t is not None else None for t in v]
        elif kind == "list_meta":
            saved[name] = [TensorMeta(t) if t is not None else None for t in v]
        else:
            saved[name] = v
    return saved


def check_inplace(self: Tensor, requires_grad: bool) -> None:
    """check_inplace (VariableTypeUtils.h): leaves and some views must not be written with grad."""
    if not requires_grad:
        return
    if self.grad_fn is None and self._requires_grad and self._base is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    base = self._base
    if base is not None:
        meta = self._creation_meta
        if meta is CreationMeta.MULTI_OUTPUT_NODE and self.grad_fn is not None:
            raise RuntimeError(
                f"Output {self._output_nr} of {self.grad_fn.name_of_forward()} is a view and is being modified "
                "inplace. This view is the output of a function that returns multiple views. Such functions do not "
                "allow the output views to be modified inplace. You should replace the inplace operation by an "
                "out-of-place one.")
        if meta is CreationMeta.NO_GRAD_MODE:
            raise RuntimeError(
                "A view was created in no_grad mode and is being modified inplace with grad mode enabled. Given that "
                "this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both "
                "the view and the inplace either both inside the no_grad block (if you don't want the inplace to be "
                "tracked) or both outside (if you want the inplace to be tracked).")
        if base.grad_fn is None and base._requires_grad:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")


def _check_expr(pos: int | None, name: str, kind: str) -> str:
    get = f"(args[{pos}] if n > {pos} else kwargs.get({name!r}))" if pos is not None else f"kwargs.get({name!r})"
    if kind == "tensor":
        return f"{get}._requires_grad" if pos is not None else f"_rg({get}, 'opt')"
    return f"_rg({get}, {kind!r})"


_kernels: dict[str, Callable] = {}


def autograd_kernel(schema: FunctionSchema, get_op: Callable[[], Any], info: DifferentiabilityInfo | None,
                    not_implemented: bool) -> Callable:
    """The Autograd kernel of one operator (registered with the raw key set as first argument)."""
    spec = OpSpec(schema, get_op, info, not_implemented)
    checks = []
    pos = 0
    for a in schema.arguments:
        kind = a.type.tensor_kind(any_list=True)
        if kind is not None:
            checks.append(_check_expr(None if a.kwarg_only else pos, a.name, kind))
        if not a.kwarg_only:
            pos += 1
    cond = " or ".join(checks) or "False"
    src = "\n".join([
        "def make(spec, record, _rg, _local, _AFTER):",
        "    below = {}",  # ks -> the kernel below Autograd (the dispatcher keeps it current)
        "    def autograd_kernel(ks, *args, **kwargs):",
        "        if _local.grad_enabled:",
        "            n = len(args)",
        f"            if {cond}:",
        "                return record(spec, ks, args, kwargs)",
        "        fn = below.get(ks)",
        "        if fn is None:",
        "            fn = spec.op.redispatch_function(ks & _AFTER, below, ks)",
        "        return fn(*args, **kwargs)",
        "    return autograd_kernel",
    ])
    make = _kernels.get(src)
    if make is None:  # operators with the same tensor-argument layout share the compiled source
        make = _kernels[src] = compile_source(src, "<jtorch autograd kernel>", {})["make"]
    k = make(spec, record, _requires_grad, _local, _AFTER)
    k.__name__ = k.__qualname__ = "autograd_" + schema.name.unambiguous_name
    return k
