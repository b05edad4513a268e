"""Python bindings generated from the operator declarations (torch's python_torch_functions.cpp,
python_variable_methods.cpp and PythonArgParser, as generated source).

For every Python name, the overloads of that name become signatures; an out= overload joins its
functional sibling as an `out=None` keyword. Each binding is Python source, generated once at
import and compiled with exec: argument binding is Python's own (one call to a generated function
with the signature's parameters), type checks are inlined per parameter, and the first signature
that fits calls its OpOverload. Nothing is interpreted per call.
"""
from __future__ import annotations

import keyword
import operator
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from . import dtypes as _dt
from .codegen import compile_source
from .dispatcher import op_call
from .native.factories import numpy_scalar_value, wrapped_scalar_tensor
from .native.registry import NativeFunction, by_binding_name
from .schema import Argument, SchemaKind, Type


@dataclass(frozen=True)
class Param:
    name: str          # Python name (self -> input for functions; keywords get a trailing _)
    arg: Argument | None  # None for the synthetic out= parameter
    kwarg_only: bool
    has_default: bool
    default: Any
    nout: int = 1      # out=: how many tensors (a tuple of them when more than one)

    @property
    def type(self) -> Type | None:
        return self.arg.type if self.arg is not None else None


@dataclass(frozen=True)
class Signature:
    nf: NativeFunction
    out_nf: NativeFunction | None
    method: bool
    params: tuple[Param, ...]

    def display(self) -> str:
        parts: list[str] = []
        star = False
        for p in self.params:
            if p.kwarg_only and not star:
                parts.append("*")
                star = True
            t = "Tensor" if p.arg is None else _display_type(p.arg.type)
            d = "" if not p.has_default else f" = {_display_default(p.default)}"
            parts.append(f"{t} {p.name}{d}")
        return "(" + ", ".join(parts) + ")"


_DISPLAY = {"Scalar": "Number", "ScalarType": "jtorch.dtype", "MemoryFormat": "jtorch.memory_format",
            "Layout": "jtorch.layout", "SymInt": "int", "Device": "Device"}


def _elem(t: Type) -> Type:
    """The element type of a list or optional type (Type.elem is None for base types only)."""
    assert t.elem is not None
    return t.elem


def _arg(p: Param) -> Argument:
    """The schema argument of a parameter (every parameter has one but the synthetic out=)."""
    assert p.arg is not None
    return p.arg


def _param(p: Param | None) -> Param:
    """A schema argument's parameter (None for a method's self only, which is not looked up)."""
    assert p is not None
    return p


def _display_type(t: Type) -> str:
    if t.is_optional():
        return _display_type(_elem(t))
    if t.is_list():
        inner = _display_type(_elem(t))
        return "tuple of ints" if inner == "int" else f"tuple of {inner}s"
    return _DISPLAY.get(t.base_name, t.base_name)


def _display_default(v: Any) -> str:
    return "None" if v is None else str(v)


def _py_name(name: str) -> str:
    return name + "_" if keyword.iskeyword(name) else name


def _signature(nf: NativeFunction, out_nf: NativeFunction | None, method: bool) -> Signature:
    params = []
    for a in nf.func.arguments:
        if a.is_out:
            continue
        if method and a.name == "self":
            continue
        name = "input" if a.name == "self" else _py_name(a.name)
        has_default = a.default is not None
        default = a.default_value if has_default else None
        if isinstance(default, str) and a.type.base_name == "ScalarType":  # dtype=long -> jtorch.int64
            default = getattr(_dt, default)
        params.append(Param(name, a, a.kwarg_only, has_default, default))
    if out_nf is not None:
        params.append(Param("out", None, True, True, None, sum(a.is_out for a in out_nf.func.arguments)))
    names = {a.name for a in nf.func.arguments}
    # a factory (functions, and the new_* methods): the Python-only requires_grad=
    if (not method or nf.binding_name.startswith("new_")) and all(n in names for n in _TENSOR_OPTIONS):
        params.append(Param("requires_grad", _REQUIRES_GRAD, True, True, False))
    return Signature(nf, out_nf, method, tuple(params))


_REQUIRES_GRAD = Argument.parse("bool requires_grad=False", kwarg_only=True)


_TENSOR_OPTIONS = ("dtype", "layout", "device", "pin_memory")


def _same_inputs(f: NativeFunction, o: NativeFunction) -> bool:
    """An out= overload joins the functional overload with its inputs; a factory's TensorOptions
    (dtype, layout, device, pin_memory) do not count, as in torchgen's grouping (randint.low_out
    joins randint.low)."""
    names = {a.name for a in f.func.arguments}
    skip = _TENSOR_OPTIONS if all(n in names for n in _TENSOR_OPTIONS) else ()
    key = lambda nf: [(a.name, str(a.type)) for a in nf.func.arguments if not a.is_out and a.name not in skip]  # noqa: E731 - a one-line sort key
    return key(f) == key(o)


def signatures_for(name: str, method: bool) -> list[Signature]:
    """The signatures of one Python name (out= folded into its functional twin); parses the
    schemas of that name's declarations only."""
    variant = "method" if method else "function"
    nfs = [nf for nf in by_binding_name.get(name, ()) if variant in nf.variants]
    outs = [nf for nf in nfs if nf.kind() == SchemaKind.out]
    sigs = []
    used = set()
    for nf in nfs:
        if nf.kind() == SchemaKind.out:
            continue
        match = next((o for o in outs if _same_inputs(nf, o)), None)
        if match is not None:
            used.add(id(match))
        sigs.append(_signature(nf, None if method else match, method))
    for o in outs:
        if id(o) not in used and not method:
            sigs.append(_signature(o, None, method))
    return sigs


def binding_names(method: bool) -> list[str]:
    """Python names that have a binding of this kind (no schema parsed). A method name whose
    overloads are all out= ones has none; it is found out when its binding is made."""
    variant = "method" if method else "function"
    return [name for name, nfs in by_binding_name.items() if any(variant in nf.variants for nf in nfs)]


def signatures_by_name(method: bool) -> dict[str, list[Signature]]:
    """Every Python name and its signatures (parses every declaration: for tests and tools)."""
    result: dict[str, list[Signature]] = {}
    for name in binding_names(method):
        sigs = signatures_for(name, method)
        if sigs:
            result[name] = sigs
    return result


# ---- per-parameter conversion code --------------------------------------------------------------
def _check_code(p: Param, var: str, allow_numbers: bool) -> list[str]:
    """Lines that validate/convert `var` in place, or `raise _Mismatch(...)`."""
    fail = f"raise _Mismatch({p.name!r})"
    if p.arg is None:  # out=
        if p.nout > 1:
            return [f"if {var} is not None and not (isinstance({var}, (tuple, list)) and len({var}) == {p.nout} "
                    f"and all(isinstance(x, _Tensor) for x in {var})): {fail}"]
        return [f"if {var} is not None and not isinstance({var}, _Tensor): {fail}"]
    t = p.arg.type
    lines: list[str] = []
    opt = t.is_optional()
    inner = t.unwrap_optional()
    body = _inner_check(inner, var, fail, allow_numbers, p.name)
    if not body:
        return []
    if not opt and _none_is_default(p):
        # torchgen writes a list's default [] as None: PythonArgParser takes None for it (roll(x, 1, None))
        lines.append(f"if {var} is None: {var} = ()")
        lines.append("else:")
    else:
        lines.append(f"if {var} is not None:" if opt else "if True:")
    lines += ["    " + b for b in body]
    return lines


def _none_is_default(p: Param) -> bool:
    """A list parameter whose default is [] (torch's Python signature says `= None`)."""
    t = p.type
    return t is not None and t.is_list() and p.has_default and not p.default and p.default is not None


def _inner_check(t: Type, var: str, fail: str, allow_numbers: bool, pname: str) -> list[str]:
    if t.is_list():
        b = _elem(t).base_name
        if b in ("int", "SymInt"):
            if t.size is not None:
                return [f"{var} = _int_list({var}, {t.size}, {pname!r})"]
            return [f"{var} = _int_list({var}, None, {pname!r})"]
        if b == "Tensor":
            opt = _elem(t).is_optional()
            cond = "(x is None or isinstance(x, _Tensor))" if opt else "isinstance(x, _Tensor)"
            return [f"if not isinstance({var}, (list, tuple)) or not all({cond} for x in {var}): {fail}"]
        if b == "float":
            return [f"if not isinstance({var}, (list, tuple)): {fail}"]
        return []
    b = t.base_name
    if b == "Tensor":
        if allow_numbers:
            return [f"if not isinstance({var}, _Tensor):",
                    f"    if type({var}) in _NUMBERS or isinstance({var}, _NP_NUMBERS): {var} = _wrap({var})",
                    f"    else: {fail}"]
        return [f"if not isinstance({var}, _Tensor): {fail}"]
    if b == "Scalar":
        return [f"if type({var}) not in _NUMBERS:",
                f"    {var} = _scalar({var}, {pname!r})"]
    if b in ("int", "SymInt"):
        return [f"if type({var}) is not int: {var} = _int({var}, {pname!r})"]
    if b == "float":
        return [f"if type({var}) is not float:",
                f"    if type({var}) is bool or not isinstance({var}, (int, float, np.integer, np.floating)): {fail}",
                f"    {var} = float({var})"]
    if b == "bool":
        return [f"if type({var}) is not bool:",
                f"    if not isinstance({var}, np.bool_): {fail}",
                f"    {var} = bool({var})"]
    if b == "str":
        return [f"if type({var}) is not str: {fail}"]
    if b == "ScalarType":
        return [f"if type({var}) is not _dtype: {var} = _to_dtype({var}, {pname!r})"]
    if b == "Device":
        return [f"{var} = _to_device({var}, {pname!r})"]
    if b == "Generator":
        return [f"if not getattr({var}, '_is_generator', False): {fail}"]
    return []


# ---- runtime helpers the generated code calls ------------------------------------------------------
class _Mismatch(Exception):
    """A parameter did not fit: try the next signature."""


_NUMBERS = frozenset({int, float, bool, complex})
_NP_NUMBERS = (np.number, np.bool_)

# PythonArgParser's numpy_compatibility_arg_names: a keyword that stands for a parameter not given by
# its own name (torch.sum(x, axis=0, keepdims=True), torch.cat(ts, axis=1))
_NUMPY_NAMES = {"dim": ("axis",), "keepdim": ("keepdims",), "input": ("x", "a", "x1"), "other": ("x2",)}
_NUMPY_ALIASES = frozenset(a for names in _NUMPY_NAMES.values() for a in names)


def _numpy_pairs(sig: Signature) -> tuple:
    """(alias, parameter) pairs a signature takes: its parameters with NumPy names that are not
    parameters of their own."""
    names = {p.name for p in sig.params}
    return tuple((a, n) for n, aliases in _NUMPY_NAMES.items() if n in names for a in aliases if a not in names)


def _numpy_kwargs(kwargs: dict, pairs: tuple) -> dict:
    kw = dict(kwargs)
    for alias, name in pairs:
        if alias in kw and name not in kw:
            kw[name] = kw.pop(alias)
    return kw


def _scalar(x: Any, param: str) -> Any:
    if isinstance(x, _NP_NUMBERS):
        return numpy_scalar_value(x)
    from .tensor import Tensor

    if isinstance(x, Tensor) and x.numel() == 1:
        return x.item()
    if isinstance(x, (int, float, complex)):
        return x
    raise _Mismatch(param)


def _int(x: Any, param: str) -> int:
    if type(x) is bool or x is None:
        raise _Mismatch(param)
    try:
        return operator.index(x)
    except TypeError:
        raise _Mismatch(param) from None


def _int_list(x: Any, size: int | None, param: str) -> tuple[int, ...]:
    if type(x) is tuple or type(x) is list:
        for v in x:
            if type(v) is not int:
                break
        else:
            return tuple(x) if type(x) is list else x  # type: ignore[return-value]  # a tuple of ints here
    if not isinstance(x, (list, tuple)):
        # one int-like stands for int[N] filled with it, or a 1-element size (torch.empty(np.int64(3)))
        if size is not None or (hasattr(x, "__index__") and getattr(x, "ndim", 0) == 0):
            return (_int(x, param),) * (size or 1)
        raise _Mismatch(param)
    return tuple(_int(v, param) for v in x)


def _to_dtype(x: Any, param: str) -> Any:
    py = {float: _dt.float64, int: _dt.int64, bool: _dt.bool, complex: _dt.complex128}  # as torch maps Python types
    if x in py:
        return py[x]
    raise _Mismatch(param)


def _to_device(x: Any, param: str) -> Any:
    from .device import device

    if x is None:
        return x
    if type(x) is not device:
        if not isinstance(x, (str, int)) or isinstance(x, bool):
            raise _Mismatch(param)
        x = device(x)
    if x.type == "cuda":  # torch's lazy CUDA init happens in the argument parser
        from .backends import lazy_init

        lazy_init("cuda")
    return x


def _type_name(x: Any) -> str:
    from .tensor import Tensor

    if isinstance(x, Tensor):
        return "Tensor"
    if isinstance(x, _dt.dtype):
        return "jtorch.dtype"
    return type(x).__name__  # a list or tuple by its bare name, as torch 2.13 describes it


def _tp_name(x: Any) -> str:
    """CPython's tp_name: the bare name of a builtin or a Python class, module.name of another C type
    (numpy.ndarray)."""
    t = type(x)
    if t.__module__ == "builtins" or t.__flags__ & (1 << 9):  # Py_TPFLAGS_HEAPTYPE
        return t.__name__
    return f"{t.__module__}.{t.__name__}"


def _tensor_list_element(sigs: list[Signature], args: tuple, kwargs: dict) -> TypeError | None:
    """PythonArgParser checks a Tensor[] argument element by element and raises at the first element
    that is not a tensor (is_tensor_list_and_append_overloaded, throw_error), whatever the overloads."""
    from .tensor import Tensor

    for sig in sigs:
        for j, p in enumerate(sig.params):
            t = p.type
            if t is None or not t.is_list() or _elem(t).base_name != "Tensor" or _elem(t).is_optional():
                continue
            value = kwargs.get(p.name) if p.name in kwargs else args[j] if j < len(args) and not p.kwarg_only else None
            if isinstance(value, (list, tuple)):
                for i, x in enumerate(value):
                    if not isinstance(x, Tensor):
                        return TypeError(f"expected Tensor as element {i} in argument {j}, but got {_tp_name(x)}")
    return None


def no_match(name: str, sigs: list[Signature], args: tuple, kwargs: dict, method_self: bool,
             err: Exception | None = None) -> TypeError:
    """PyTorch's binding errors: precise for a single signature, the list of signatures otherwise."""
    if method_self:
        args = args[1:]
    bad = _tensor_list_element(sigs, args, kwargs)
    if bad is not None:
        return bad
    if len(sigs) == 1 and isinstance(err, _Mismatch):
        pname = err.args[0]
        params = sigs[0].params
        p = next(p for p in params if p.name == pname)
        if pname in kwargs:
            value, where = kwargs[pname], ""
        else:
            idx = [q.name for q in params].index(pname)
            value = args[idx] if idx < len(args) else None
            where = f" (position {idx + 1})"
        expected = "Tensor" if p.arg is None else _display_type(p.arg.type)
        return TypeError(f"{name}(): argument '{pname}'{where} must be {expected}, not {_type_name(value)}")
    if len(sigs) == 1 and isinstance(err, TypeError):
        return TypeError(str(err).replace("_bind0()", f"{name}()"))
    got = [_type_name(a) for a in args] + [f"{k}={_type_name(v)}" for k, v in kwargs.items()]
    lines = "".join(f" * {s.display()}\n" for s in sigs)
    return TypeError(
        f"{name}() received an invalid combination of arguments - got ({', '.join(got)}), but expected one of:\n{lines}"
    )


# ---- code generation ------------------------------------------------------------------------------
def _varargs_index(sig: Signature) -> int | None:
    """int[] that may be given as *sizes: the only positional parameter (torch's rule)."""
    pos = [p for p in sig.params if not p.kwarg_only]
    if len(pos) == 1 and pos[0].arg is not None and pos[0].arg.type.is_list() and (
        _elem(pos[0].arg.type).base_name in ("int", "SymInt")
    ):
        return 0
    return None


def _call_expr(sig: Signature, op_var: str, out: bool, index: int = 0) -> str:
    """The OpOverload call. Keyword-only arguments still at their defaults are left out when all
    of them are (the common case), so the dispatcher and kernel see no keyword dict at all."""
    nf = sig.out_nf if out else sig.nf
    assert nf is not None  # out=True for signatures with an out= overload only
    args, kw, at_default = [], [], []
    params = {p.arg.name: p for p in sig.params if p.arg is not None}
    outs = [a.name for a in nf.func.arguments if a.is_out]
    for a in nf.func.arguments:
        if a.is_out:  # several outputs (values, indices) come as one out= tuple
            kw.append("out=out" if len(outs) == 1 else f"{a.name}=out[{outs.index(a.name)}]")
            continue
        p = params.get(a.name)
        v = "self" if (a.name == "self" and sig.method) else _param(p).name
        if not a.kwarg_only:
            args.append(v)
            continue
        assert p is not None  # a keyword-only argument is never a method's self
        kw.append(f"{a.name}={v}")
        if p.has_default and not out:
            at_default.append(f"{v} is _d{index}_{p.name}")
    full = f"{op_var}({', '.join(args + kw)})"
    if at_default and len(at_default) == len(kw):
        return f"{op_var}({', '.join(args)}) if {' and '.join(at_default)} else {full}"
    return full


# Required arguments whose common values need no conversion: the test that they need none.
_AS_IS = {"Tensor": "isinstance({v}, _Tensor)", "int": "type({v}) is int", "SymInt": "type({v}) is int",
          "float": "type({v}) is float", "bool": "type({v}) is bool", "Scalar": "type({v}) in _NUMBERS"}


def _direct_call(sig: Signature, method: bool, index: int = 0) -> list[str]:
    """The common call as one line: the first signature's required arguments given positionally,
    each of a type that needs no conversion, everything else at its default, calls the operator
    directly (what the full parse would do, as the first signature is tried first). `index` > 0:
    the first signature that takes no required argument, for a call with none (`x.sum()`): every
    signature before it needs one, so the full parse would come to it too."""
    if _varargs_index(sig) is not None or len(sig.nf.func.returns) > 1:  # several returns: a wrapped tuple
        return []
    returns = sig.nf.func.returns
    wrap = returns and returns[0].type.is_list()  # Tensor[]: a tuple, as torch's
    required = [p for p in sig.params if not p.has_default]
    if any(p.kwarg_only or p.arg is None or p.arg.type.is_optional() or p.arg.type.is_list() for p in required):
        return []
    if sig.params[:len(required)] != tuple(required):
        return []
    rest = sig.params[len(required):]
    if any(not p.kwarg_only and p.default is not None for p in rest):  # only None passes through as is
        return []
    tests = []
    for j, p in enumerate(required):
        test = _AS_IS.get(_arg(p).type.base_name)
        if test is None:
            return []
        tests.append(test.format(v=f"args[{j}]"))
    given = {_arg(p).name: f"args[{j}]" for j, p in enumerate(required)}
    args = []
    for a in sig.nf.func.arguments:  # in the schema's order: a method's self need not come first
        if a.is_out or a.kwarg_only:
            continue
        args.append("self" if method and a.name == "self" else given.get(a.name, "None"))
    call = ", ".join(args)
    cond = " and ".join(["not kwargs", f"len(args) == {len(required)}"] + tests)
    ret = f"_tuple(_op{index}({call}))" if wrap else f"_op{index}({call})"
    lines = [f"    if {cond}:", f"        return {ret}"]
    # `t * 2`: the same call with the one Python number a Tensor parameter accepts, wrapped
    numbers = [j for j, p in enumerate(required) if _arg(p).type.base_name == "Tensor"
               and sig.nf.allow_numbers_as_tensors and (method or j > 0)]
    if len(numbers) == 1:
        j = numbers[0]
        tests[j] = f"type(args[{j}]) in _NUMBERS"
        call = call.replace(f"args[{j}]", f"_wrap(args[{j}])")
        cond = " and ".join(["not kwargs", f"len(args) == {len(required)}"] + tests)
        ret = f"_tuple(_op{index}({call}))" if wrap else f"_op{index}({call})"
        lines += [f"    if {cond}:", f"        return {ret}"]
    return lines


_NOT_TENSOR = frozenset(("int", "SymInt", "float", "bool", "Scalar"))


def _refuses(earlier: Signature, later: Signature, method: bool) -> bool:
    """Whether `earlier` fails on every call that `later`'s direct call takes: at some position
    it wants a Tensor (a number is not converted) where `later` tests for a number or a bool."""
    pos = [p for p in earlier.params if not p.kwarg_only]
    for j, p in enumerate(q for q in later.params if not q.has_default):
        if j >= len(pos) or p.arg is None or p.arg.type.base_name not in _NOT_TENSOR:
            continue
        e = pos[j].arg
        if (e is not None and e.type.base_name == "Tensor" and not e.type.is_optional() and not e.type.is_list()
                and (not earlier.nf.allow_numbers_as_tensors or (not method and j == 0))):
            return True
    return False


def generate(name: str, sigs: list[Signature], *, method: bool, dunder: bool = False) -> tuple[str, dict]:
    """Source of one binding and the globals it needs."""
    env: dict[str, Any] = {}
    lines = [f"def {name}({'self, ' if method else ''}*args, **kwargs):"]
    if sigs:
        lines += _direct_call(sigs[0], method)
        empty = next((i for i, sg in enumerate(sigs) if not any(not p.has_default for p in sg.params)), None)
        if empty:  # a call without arguments, when the first signature needs some
            lines += _direct_call(sigs[empty], method, empty)
        for i in range(1, len(sigs)):  # `x ** 2`: a later signature that every earlier one refuses
            if i != empty and all(_refuses(sigs[k], sigs[i], method) for k in range(i)):
                lines += _direct_call(sigs[i], method, i)
    lines.append("    err = None")
    for i, sig in enumerate(sigs):
        binder = f"_bind{i}"
        plist = []
        star = False
        for p in sig.params:
            if p.kwarg_only and not star:
                plist.append("*")
                star = True
            plist.append(f"{p.name}=_d{i}_{p.name}" if p.has_default else p.name)
            if p.has_default:
                env[f"_d{i}_{p.name}"] = p.default
        names = [p.name for p in sig.params]
        bsrc = f"def {binder}({', '.join(plist)}):\n    return ({', '.join(names)}{',' if len(names) == 1 else ''})\n"
        compile_source(bsrc, f"<jtorch binding {name} {binder}>", env)
        env[f"_op{i}"] = op_call(sig.nf.op)
        if sig.out_nf is not None:
            env[f"_opout{i}"] = op_call(sig.out_nf.op)
        va = _varargs_index(sig)
        lines.append(f"    # {sig.display()}")
        lines.append("    while True:")
        if va is not None:
            lines.append("        a = (args,) if len(args) > 1 or (len(args) == 1 and type(args[0]) is int) else args")
        else:
            lines.append("        a = args")
        lines.append("        try:")
        target = f"{', '.join(names)}{',' if len(names) == 1 else ''} = " if names else ""
        pairs = _numpy_pairs(sig)
        if pairs:
            env[f"_np{i}"] = pairs
            lines.append(f"            kw = kwargs if not kwargs or _NP_ALIASES.isdisjoint(kwargs) "
                         f"else _np_kwargs(kwargs, _np{i})")
            lines.append(f"            {target}{binder}(*a, **kw)")
        else:
            lines.append(f"            {target}{binder}(*a, **kwargs)")
        lines.append("        except TypeError as e:")
        lines.append("            err = e.with_traceback(None)")  # kept past the frame: no frame-traceback cycle
        lines.append("            break")
        body = []
        allow = sig.nf.allow_numbers_as_tensors
        multi_out = _multi_out_check(sig)
        for j, p in enumerate(sig.params):
            first_tensor = (not method) and j == 0
            body += multi_out if (p.arg is None and multi_out) else _check_code(p, p.name, allow and not first_tensor)
        if body:
            lines.append("        try:")
            lines += ["            " + b for b in body]
            lines.append("        except _Mismatch as e:")
            lines.append("            err = e.with_traceback(None)")
            lines.append("            break")
        wrap, wrap_out = _return_types(sig, env, i)
        if sig.out_nf is not None:
            lines.append(f"        if out is not None: return {wrap_out}({_call_expr(sig, f'_opout{i}', True, i)})")
        if sig.params and sig.params[-1].arg is _REQUIRES_GRAD:  # as torch's factory bindings: set it on the result
            lines.append(f"        if requires_grad: return _set_requires_grad({_call_expr(sig, f'_op{i}', False, i)})")
        lines.append(f"        return {wrap}({_call_expr(sig, f'_op{i}', False, i)})")
    if dunder:
        if name == "__eq__":  # torch's Tensor.__eq__, alone among the operators, takes a NumPy array as a tensor
            lines.append("    if len(args) == 1 and not kwargs and type(args[0]) is np.ndarray \\")
            lines.append("            and args[0].dtype.kind != 'O':")
            lines.append("        return self.__eq__(_as_tensor(args[0]))")
        lines.append("    return NotImplemented")
    else:
        lines.append(f"    raise _no_match({name!r}, _sigs, {'(self,) + ' if method else ''}args, kwargs, {method}, "
                     "err)")
    src = "\n".join(lines) + "\n"
    from .tensor import Tensor

    env.update(_Tensor=Tensor, _Mismatch=_Mismatch, _NUMBERS=_NUMBERS, _NP_NUMBERS=_NP_NUMBERS, _scalar=_scalar,
               _int=_int, _int_list=_int_list, _to_dtype=_to_dtype, _to_device=_to_device, _dtype=_dt.dtype,
               np=np, _sigs=sigs, _no_match=no_match, _wrap=_wrap_number, _as_tensor=_as_tensor,
               _set_requires_grad=_set_requires_grad, _tuple=tuple,
               _NP_ALIASES=_NUMPY_ALIASES, _np_kwargs=_numpy_kwargs)
    return src, env


def _set_requires_grad(t: Any) -> Any:
    """A factory's requires_grad=True (torch's set_requires_grad, with its own text)."""
    if not (t.dtype.is_floating_point or t.dtype.is_complex):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    return t.requires_grad_()


def _as_tensor(a: Any) -> Any:
    from .native.tensor_new import as_tensor
    return as_tensor(a, device="cpu")  # a NumPy operand: a CPU tensor whatever the default device


_wrap_number = wrapped_scalar_tensor


def _return_types(sig: Signature, env: dict, index: int) -> tuple[str, str]:
    """Names of the wrappers of a signature's results: a jtorch.return_types type when the schema
    names several returns (max.dim -> return_types.max, its out= form -> return_types.max_out)."""
    returns = sig.nf.func.returns
    names = tuple(r.name for r in returns if r.name is not None)
    if len(returns) == 1 and returns[0].type.is_list():  # Tensor[]: torch's wrap() makes a tuple of it
        return "_tuple", ""
    if len(names) < 2 or len(names) != len(returns):  # fewer than two, or one without a name
        return "", ""
    from . import return_types

    base = sig.nf.func.name.name
    env[f"_rt{index}"] = return_types.make(base, names)
    if sig.out_nf is None:
        return f"_rt{index}", ""
    env[f"_rtout{index}"] = return_types.make(base + "_out", names)
    return f"_rt{index}", f"_rtout{index}"


def _multi_out_check(sig: Signature) -> list[str]:
    """out= of an overload with several outputs: a tuple of as many tensors."""
    n = sum(1 for a in sig.out_nf.func.arguments if a.is_out) if sig.out_nf is not None else 1
    if n < 2:
        return []
    return [f"if out is not None and (not isinstance(out, (tuple, list)) or len(out) != {n} "
            "or not all(isinstance(t, _Tensor) for t in out)): raise _Mismatch('out')"]


def build(name: str, sigs: list[Signature], *, method: bool, dunder: bool = False) -> Callable:
    src, env = generate(name, sigs, method=method, dunder=dunder)
    compile_source(src, f"<jtorch binding {'Tensor.' if method else ''}{name}>", env)
    fn = env[name]
    fn.__qualname__ = f"Tensor.{name}" if method else name
    fn.__doc__ = f"{name}" + "".join(f"\n    {s.display()}" for s in sigs)
    fn._jtorch_source = src
    return fn


# ---- installation: every binding is generated on first use --------------------------------------
class _LazyBinding:
    """A binding not generated yet, on the Tensor class: the first lookup (`t.add`, `a + b`,
    `Tensor.add`) generates it and puts it on the class in its place. Dunders must exist on the
    class itself (Python looks them up on the type), which this does without generating them."""

    __slots__ = ("owner", "name", "make")

    def __init__(self, owner: type, name: str, make: Callable[[], Callable | None]) -> None:
        self.owner, self.name, self.make = owner, name, make

    def __get__(self, obj: Any, cls: type | None = None) -> Any:
        fn = self.make()
        if fn is None:  # declared, but nothing to bind (only out= overloads with a method variant)
            if self.owner.__dict__.get(self.name) is self:
                delattr(self.owner, self.name)
            raise AttributeError(f"'{self.owner.__name__}' object has no attribute '{self.name}'")
        if self.owner.__dict__.get(self.name) is self:
            setattr(self.owner, self.name, fn)
        return fn if obj is None else fn.__get__(obj, cls)


def _method(name: str) -> Callable | None:
    sigs = signatures_for(name, method=True)
    return build(name, sigs, method=True) if sigs else None


def function_binding(name: str) -> Callable:
    """jtorch.<name> (the module's __getattr__ makes it on first use)."""
    sigs = signatures_for(name, method=False) if name in by_binding_name else None
    if not sigs:
        raise AttributeError(f"module 'jtorch' has no attribute '{name}'")
    return build(name, sigs, method=False)


def install(module_namespace: dict, tensor_cls: type) -> None:
    """Make the bindings reachable: jtorch.<name> through the module's __getattr__ (see
    jtorch/__init__.py), Tensor methods and dunders as lazy class attributes. Nothing is parsed
    or generated here; methods written by hand on the class are kept."""
    from .native.registry import dunders, reflected_dunders

    del module_namespace  # functions are found by jtorch.__getattr__ -> function_binding
    for name in binding_names(method=True):
        own = tensor_cls.__dict__.get(name)
        if own is None or getattr(own, "_jtorch_source", None) or isinstance(own, _LazyBinding):
            setattr(tensor_cls, name, _LazyBinding(tensor_cls, name, partial(_method, name)))
    for dname, target in dunders.items():
        setattr(tensor_cls, dname, _LazyBinding(tensor_cls, dname, partial(_dunder, dname, target)))
    for dname, target in reflected_dunders.items():
        setattr(tensor_cls, dname, _LazyBinding(tensor_cls, dname, partial(_reflected_dunder, dname, target)))


def _dunder(name: str, target: str) -> Callable:
    return build(name, signatures_for(target, True), method=True, dunder=True)


def _reflected_dunder(name: str, target: str) -> Callable:
    return build_reflected(name, signatures_for(target, False))


# reflected operators whose Python number goes to the binding unwrapped, to a Scalar overload
_REFLECTED_SCALAR = frozenset({"__rsub__", "__rpow__", "__rmod__"})


def build_reflected(name: str, sigs: list[Signature]) -> Callable:
    """Tensor.__rpow__(self, other) = pow(other, self) (__rsub__: rsub(self, other), __rdiv__:
    self.reciprocal() * other, as torch/_tensor.py), NotImplemented where nothing fits."""
    fn = build(name, sigs, method=False, dunder=True)
    if name in ("__rtruediv__", "__rdiv__"):  # torch's __rdiv__ is reciprocal() * other
        src = (f"def {name}(self, other):\n"
               "    if isinstance(other, (_Tensor, np.ndarray)) or type(other) in _NUMBERS \\\n"
               "            or isinstance(other, _NP_NUMBERS):\n"
               "        return self.reciprocal() * other\n"
               "    return NotImplemented\n")
    else:
        # torch.rsub(self, other) for __rsub__, f(other, self) for the others; a number goes to the
        # binding as it is (a Scalar overload: rsub.Scalar, pow.Scalar, remainder.Scalar_Tensor)
        # where the operator has one, wrapped otherwise
        call = "_fn(self, other)" if name == "__rsub__" else "_fn(other, self)"
        number = "pass" if name in _REFLECTED_SCALAR else "other = _wrap(other)"
        src = (f"def {name}(self, other):\n"
               "    if not isinstance(other, _Tensor):\n"
               f"        if type(other) in _NUMBERS: {number}\n"
               "        elif isinstance(other, _NP_NUMBERS): other = _wrap(other)\n"
               "        else: return NotImplemented\n"
               f"    return {call}\n")
    from .tensor import Tensor

    env: dict[str, Any] = dict(_fn=fn, _Tensor=Tensor, _NUMBERS=_NUMBERS, _NP_NUMBERS=_NP_NUMBERS, _wrap=_wrap_number,
                               np=np)
    compile_source(src, f"<jtorch binding Tensor.{name}>", env)
    r = env[name]
    r.__qualname__ = f"Tensor.{name}"
    r._jtorch_source = src
    return r
