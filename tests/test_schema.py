"""Tests for jtorch.schema: the operator schema parser."""
from __future__ import annotations

import importlib.util
import math
import os
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jtorch.schema import (
    Annotation, Argument, FunctionSchema, OperatorName, Return, SchemaKind, SchemaParseError, Type,
)
from _torch_oracle import oracle_torch

DATA = os.path.join(os.path.dirname(__file__), "data", "native_schemas.txt")
with open(DATA) as f:
    SCHEMAS = [line.rstrip("\n") for line in f if line.strip()]

# Named-tensor overloads from older native_functions.yaml (Dimname was removed from torch's
# yaml, and the installed torch no longer parses it, so these live here instead of the data file).
DIMNAME_SCHEMAS = [
    "sum.dim_DimnameList(Tensor self, Dimname[1] dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    "transpose.Dimname(Tensor(a) self, Dimname dim0, Dimname dim1) -> Tensor(a)",
    "rename_(Tensor(a!) self, Dimname[]? names) -> Tensor(a!)",
    "align_to.ellipsis_idx(Tensor(a) self, Dimname[] order, int ellipsis_idx) -> Tensor(a)",
    "max.names_dim_max(Tensor self, Dimname dim, bool keepdim=False, *, Tensor(a!) max, "
    "Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices)",
]


def _native_functions_yaml() -> str | None:
    spec = importlib.util.find_spec("torchgen")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = os.path.join(list(spec.submodule_search_locations)[0],
                        "packaged", "ATen", "native", "native_functions.yaml")
    return path if os.path.exists(path) else None


# ---------------------------------------------------------------------------------------------
# Round trips over real schemas


def test_data_file_is_big_enough() -> None:
    assert len(SCHEMAS) >= 150
    assert len(set(SCHEMAS)) == len(SCHEMAS)


@pytest.mark.parametrize("s", SCHEMAS + DIMNAME_SCHEMAS)
def test_round_trip(s: str) -> None:
    f = FunctionSchema.parse(s)
    assert str(f) == s
    assert FunctionSchema.parse(str(f)) == f
    for a in f.arguments:  # every component round trips on its own too
        assert Argument.parse(str(a), a.kwarg_only) == a
        assert Type.parse(str(a.type)) == a.type
        a.default_value  # must not raise
    for r in f.returns:
        assert Return.parse(str(r)) == r


def test_data_covers_the_grammar() -> None:
    text = "\n".join(SCHEMAS)
    for needle in ["Tensor(a)", "Tensor(a!)", "Tensor(a!)[]", "Tensor(a -> *)", "-> ()", "int[2]",
                   "SymInt[]", "Tensor?[]", "ScalarType?", "Device?", "Layout?", "Generator?",
                   "MemoryFormat?", "str?", "float?", "bool?", ", *, ", "=1e-05", "=Mean",
                   "=contiguous_format", "=[]", "='", '="', "-> (Tensor values, Tensor indices)",
                   "-> Tensor(a)[]", "-> Tensor[]"]:
        assert needle in text, needle
    kinds = {FunctionSchema.parse(s).kind() for s in SCHEMAS}
    assert {SchemaKind.functional, SchemaKind.inplace, SchemaKind.out, SchemaKind.mutable} <= kinds
    names = {FunctionSchema.parse(s).name.functional_name for s in SCHEMAS}
    for fam in ["add", "sub", "mul", "div", "pow", "clamp", "where", "view", "reshape", "transpose",
                "empty", "zeros", "arange", "copy"]:
        assert fam in names, fam


def test_whole_native_functions_yaml() -> None:
    """Every func in the installed torchgen's native_functions.yaml parses, round trips, and
    is classified exactly like torchgen does."""
    yaml = pytest.importorskip("yaml")
    path = _native_functions_yaml()
    if path is None:
        pytest.skip("torchgen's packaged native_functions.yaml is not installed")
    tg = pytest.importorskip("torchgen.model")
    with open(path) as fh:
        funcs = [e["func"] for e in yaml.safe_load(fh)]
    assert len(funcs) > 1000
    for s in funcs:
        f = FunctionSchema.parse(s)
        assert str(f) == s
        g = tg.FunctionSchema.parse(s)
        assert f.kind().name == g.kind().name, s
        assert [a.name for a in f.out] == [a.name for a in g.arguments.out], s
        assert f.name.is_inplace == g.name.name.inplace, s


_TORCH_BASE = {"Scalar": "number", "SymInt": "int", "SymBool": "bool", "SymFloat": "float",
               "DeviceIndex": "int"}


def _torch_type_str(t: Type) -> str:
    if t.is_optional():
        return f"Optional[{_torch_type_str(t.elem)}]"
    if t.is_list():
        return f"List[{_torch_type_str(t.elem)}]"
    return _TORCH_BASE.get(t.name, t.name)


def _same_value(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return type(a) is type(b) and a == b


def test_matches_torch_parse_schema() -> None:
    torch = oracle_torch()
    for s in SCHEMAS:
        f = FunctionSchema.parse(s)
        ts = torch._C.parse_schema("aten::" + s)
        assert (ts.name, ts.overload_name) == ("aten::" + f.name.name, f.name.overload_name)
        assert len(ts.arguments) == len(f.arguments), s
        assert len(ts.returns) == len(f.returns), s
        for a, b in zip(f.arguments, ts.arguments):
            assert a.name == b.name, s
            assert _torch_type_str(a.type) == str(b.real_type), (s, a.name)
            assert a.type.size == (b.N if a.type.is_list() else None) or a.type.is_optional(), s
            assert (a.kwarg_only, a.is_out, a.is_write) == (b.kwarg_only, b.is_out, b.is_write), s
            assert a.has_default == b.has_default_value(), s
            if a.annotation is None:
                assert b.alias_info is None, s
            else:
                assert a.annotation.is_write == b.alias_info.is_write, s
                if not a.type.is_list():  # torch keeps list annotations on the (hidden) elements
                    ann, info = a.annotation, b.alias_info
                    assert set(ann.alias_set) == info.before_set, s
                    assert set(ann.alias_set_after or ann.alias_set) == info.after_set, s
            v = a.default_value
            # Enum-like identifiers (Mean, long, contiguous_format) map to ints in torch but
            # stay strings here by design.
            if a.default is not None and not (isinstance(v, str) and a.default[0] not in "'\""):
                assert _same_value(v, b.default_value), (s, a.name, v, b.default_value)
        for r, b in zip(f.returns, ts.returns):
            assert _torch_type_str(r.type) == str(b.real_type), s
            assert (r.name or "") == b.name, s


# ---------------------------------------------------------------------------------------------
# Components


@pytest.mark.parametrize("text,alias_set,is_write,after", [
    ("a!", ("a",), True, ()),
    ("a", ("a",), False, ()),
    ("a -> *", ("a",), False, ("*",)),
    ("a|b", ("a", "b"), False, ()),
    ("b!", ("b",), True, ()),
    ("*", ("*",), False, ()),
])
def test_annotation(text: str, alias_set: tuple, is_write: bool, after: tuple) -> None:
    a = Annotation.parse(text)
    assert (a.alias_set, a.is_write, a.alias_set_after) == (alias_set, is_write, after)
    assert str(a) == text


@pytest.mark.parametrize("text", ["", "A", "a!!", "a|b!", "a->*", "a -> ", "!a"])
def test_bad_annotation(text: str) -> None:
    with pytest.raises(SchemaParseError, match="Invalid annotation"):
        Annotation.parse(text)


@pytest.mark.parametrize("text,base,optional,is_list,size,tensor_like", [
    ("Tensor", "Tensor", False, False, None, True),
    ("Tensor?", "Tensor", True, False, None, True),
    ("Tensor[]", "Tensor", False, True, None, True),
    ("Tensor?[]", "Tensor", False, True, None, True),
    ("int[2]", "int", False, True, 2, False),
    ("SymInt[]", "SymInt", False, True, None, False),
    ("Scalar?", "Scalar", True, False, None, False),
    ("ScalarType?", "ScalarType", True, False, None, False),
    ("Dimname[1]", "Dimname", False, True, 1, False),
    ("float[]?", "float", True, False, None, False),
    ("int[1]?", "int", True, False, None, False),
    ("Generator?", "Generator", True, False, None, False),
    ("Device", "Device", False, False, None, False),
    ("ConstQuantizerPtr", "ConstQuantizerPtr", False, False, None, False),
])
def test_type(text: str, base: str, optional: bool, is_list: bool, size: int | None,
              tensor_like: bool) -> None:
    t = Type.parse(text)
    assert str(t) == text
    assert t.base_name == base
    assert (t.is_optional(), t.is_list(), t.size, t.is_tensor_like()) == (optional, is_list, size, tensor_like)
    if optional or is_list:
        assert str(t.elem) == text[:-1] if optional else str(t.elem) == text[:text.rindex("[")]
    else:
        assert t.elem is None and t.name == base


def test_type_helpers() -> None:
    assert Type.parse("int[1]?").is_list_like() and Type.parse("int[1]?").unwrap_optional().size == 1
    assert not Type.parse("int?").is_list_like()
    assert Type.parse("Tensor?[]") == Type.list_of(Type.optional_of(Type.base("Tensor")))
    assert Type.parse("int[2]") == Type.list_of(Type.base("int"), 2)
    assert Type.parse("Tensor") is Type.parse("Tensor")  # cached and immutable


@pytest.mark.parametrize("text", ["Tensr", "int[0]", "int[02]", "Tensor??", "[]", "int[", "int []",
                                  "Tensor(a)", ""])
def test_bad_type(text: str) -> None:
    with pytest.raises(SchemaParseError, match="Invalid type"):
        Type.parse(text)


@pytest.mark.parametrize("text,name,default,ann,type_s", [
    ("Tensor(a!) out", "out", None, "a!", "Tensor"),
    ("Scalar alpha=1", "alpha", "1", None, "Scalar"),
    ("int[1] dim=[]", "dim", "[]", None, "int[1]"),
    ("str? rounding_mode=None", "rounding_mode", "None", None, "str?"),
    ("MemoryFormat? memory_format=contiguous_format", "memory_format", "contiguous_format", None,
     "MemoryFormat?"),
    ("Tensor(a!)[] out", "out", None, "a!", "Tensor[]"),
    ("Tensor(a)? x", "x", None, "a", "Tensor?"),
    ("Tensor(a -> *) self", "self", None, "a -> *", "Tensor"),
    ("str a=\"\\\"'\\\\\"", "a", "\"\\\"'\\\\\"", None, "str"),
])
def test_argument(text: str, name: str, default: str | None, ann: str | None, type_s: str) -> None:
    a = Argument.parse(text)
    assert str(a) == text
    assert (a.name, a.default, str(a.type)) == (name, default, type_s)
    assert (str(a.annotation) if a.annotation else None) == ann
    assert not a.kwarg_only and not a.is_out


def test_argument_out_flags() -> None:
    a = Argument.parse("Tensor(a!) out", kwarg_only=True)
    assert a.kwarg_only and a.is_out and a.is_write
    b = Argument.parse("Tensor(a!) self")
    assert b.is_write and not b.is_out
    with pytest.raises(SchemaParseError):  # is_out must agree with kwarg_only and the annotation
        Argument("out", Type.base("Tensor"), None, Annotation(("a",), True), kwarg_only=False, is_out=True)
    with pytest.raises(SchemaParseError):
        Argument("out", Type.base("Tensor"), None, Annotation(("a",), True), kwarg_only=True, is_out=False)


@pytest.mark.parametrize("text,value", [
    ("Scalar alpha=1", 1),
    ("float eps=1e-05", 1e-05),
    ("float x=1", 1.0),
    ("float x=-inf", -math.inf),
    ("float x=inf", math.inf),
    ("bool b=True", True),
    ("bool b=False", False),
    ("Tensor? w=None", None),
    ("int dim=-1", -1),
    ("int[1] dim=[]", []),
    ("int[] dims=[0,1]", [0, 1]),
    ("int[] dims=[-2,-1]", [-2, -1]),
    ("int[2] padding=0", [0, 0]),
    ("SymInt[3] stride=1", [1, 1, 1]),
    ("float[]? r=[1,2.5]", [1.0, 2.5]),
    ("str reduction=\"mean\"", "mean"),
    ("str reduction='mean'", "mean"),
    ("str s=\"a, b)\"", "a, b)"),
    ("str s=\"\\\"'\\\\\"", "\"'\\"),
    ("str s='\"\\'\\\\'", "\"'\\"),
    ("MemoryFormat? memory_format=contiguous_format", "contiguous_format"),
    ("int reduction=Mean", "Mean"),
    ("ScalarType? dtype=long", "long"),
    ("float p=0.5", 0.5),
    ("Tensor x", None),
])
def test_default_value(text: str, value: object) -> None:
    v = Argument.parse(text).default_value
    assert _same_value(v, value) or (isinstance(v, list) and v == value
                                    and all(type(x) is type(y) for x, y in zip(v, value))), (v, value)


def test_default_nan() -> None:
    assert math.isnan(Argument.parse("float x=nan").default_value)


@pytest.mark.parametrize("text", ["Tensor", "Tensor  x", "Tensor x=", "int x=[1,", "int x=1x",
                                  "Tensor(a!)x", "Tensor x y", "int x= 1", "Tensr x"])
def test_bad_argument(text: str) -> None:
    with pytest.raises(SchemaParseError, match="Invalid argument"):
        Argument.parse(text)


def test_return() -> None:
    r = Return.parse("Tensor(a!) values")
    assert (r.name, str(r.type), str(r.annotation), r.is_write) == ("values", "Tensor", "a!", True)
    r = Return.parse("Tensor(a)[]")
    assert (r.name, str(r.type), str(r.annotation)) == (None, "Tensor[]", "a")
    assert str(r) == "Tensor(a)[]"


def test_operator_name() -> None:
    n = OperatorName.parse("aten::add.Tensor")
    assert (n.namespace, n.name, n.overload_name) == ("aten", "add", "Tensor")
    assert (str(n), n.unambiguous_name, n.base) == ("aten::add.Tensor", "add_Tensor", "add")
    n = OperatorName.parse("add_.Tensor")
    assert n.namespace is None and n.is_inplace and n.base == "add_" and n.functional_name == "add"
    assert str(n) == "add_.Tensor"
    n = OperatorName.parse("add")
    assert (n.overload_name, n.unambiguous_name, n.is_inplace, str(n)) == ("", "add", False, "add")
    assert OperatorName.parse("__iand__.Tensor").is_inplace
    assert OperatorName.parse("__iand__.Tensor").functional_name == "__and__"
    assert not OperatorName.parse("__and__.Tensor").is_inplace
    assert not OperatorName.parse("__lshift__").is_inplace
    assert OperatorName.parse("_foreach_add_.List").is_inplace
    assert not OperatorName.parse("_cast_Byte").is_inplace
    for bad in ["", "add.", "a b", "::add", "add.x.y"]:
        with pytest.raises(SchemaParseError):
            OperatorName.parse(bad)


# ---------------------------------------------------------------------------------------------
# FunctionSchema


def test_schema_structure() -> None:
    f = FunctionSchema.parse("add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)")
    assert [a.name for a in f.arguments] == ["self", "other", "alpha", "out"]
    assert [a.name for a in f.positional] == ["self", "other"]
    assert [a.name for a in f.kwarg_only] == ["alpha", "out"]
    assert [a.name for a in f.out] == ["out"]
    assert f.kind() is SchemaKind.out
    assert str(f.returns[0].annotation) == "a!"
    g = f.with_namespace("aten")
    assert str(g) == "aten::" + str(f) and g.name.namespace == "aten"
    assert FunctionSchema.parse(str(g)) == g
    assert g.with_namespace(None) == f


@pytest.mark.parametrize("s,kind", [
    ("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", SchemaKind.functional),
    ("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)", SchemaKind.inplace),
    ("add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)", SchemaKind.out),
    ("max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, Tensor(b!) max_values) "
     "-> (Tensor(a!) values, Tensor(b!) indices)", SchemaKind.out),
    ("__iand__.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", SchemaKind.inplace),
    ("_foreach_add_.List(Tensor(a!)[] self, Tensor[] other, *, Scalar alpha=1) -> ()", SchemaKind.inplace),
    ("_cummin_helper(Tensor self, Tensor(a!) values, Tensor(b!) indices, int dim) -> ()", SchemaKind.mutable),
    ("view(Tensor(a) self, SymInt[] size) -> Tensor(a)", SchemaKind.functional),
    ("_foo.out(Tensor self, *, Tensor(a!) out, Tensor(b!) _scratch_x) -> Tensor(a!)", SchemaKind.scratch),
])
def test_kind(s: str, kind: SchemaKind) -> None:
    assert FunctionSchema.parse(s).kind() is kind


def test_returns_forms() -> None:
    for s, n in [("f(Tensor x) -> ()", 0), ("f(Tensor x) -> Tensor", 1),
                 ("f(Tensor(a) x) -> Tensor(a)", 1), ("f(Tensor x) -> (Tensor, Tensor)", 2),
                 ("f(Tensor x) -> (Tensor values, Tensor indices)", 2),
                 ("f(Tensor(a) x) -> Tensor(a)[]", 1), ("f(Tensor x) -> Tensor[]", 1),
                 ("f(Tensor x) -> Tensor grid", 1), ("f() -> ()", 0)]:
        f = FunctionSchema.parse(s)
        assert len(f.returns) == n and str(f) == s


def test_varargs() -> None:
    f = FunctionSchema.parse("prim::PythonOp(...) -> ...")
    assert f.is_vararg and f.is_varret and f.arguments == () and str(f) == "prim::PythonOp(...) -> ..."
    f = FunctionSchema.parse("aten::format(str self, ...) -> str")
    assert f.is_vararg and not f.is_varret and str(f) == "aten::format(str self, ...) -> str"


MALFORMED = [
    "foo(Tensor x -> Tensor",                       # missing ')'
    "foo(Tensor x) Tensor",                         # missing '->'
    "foo(Tensor x)",                                # missing '->'
    "foo(Tensr x) -> Tensor",                       # bad type
    "foo(Tensor x) -> Tensr",                       # bad return type
    "foo(Tensor x, int x) -> Tensor",               # duplicate argument names
    "foo(Tensor x) -> Tensor junk junk",            # garbage after
    "foo(Tensor x) -> (Tensor, Tensor) junk",       # garbage after
    "foo(Tensor x) -> (Tensor, Tensor",             # unbalanced returns
    "foo(Tensor x)) -> Tensor",                     # garbage after the argument list
    "foo(Tensor x,int y) -> Tensor",                # non-canonical separator
    "foo(Tensor x,  int y) -> Tensor",
    "foo(Tensor x, *) -> Tensor",                   # dangling '*'
    "foo(*, *, Tensor x) -> Tensor",
    "foo(Tensor x, *, Tensor(a!) out, int y=1) -> Tensor(a!)",   # out args must be last
    "foo_(Tensor x) -> Tensor",                     # inplace without a mutable first argument
    "foo_.out(Tensor(a!) self, *, Tensor(b!) out) -> Tensor(b!)",  # inplace and out=
    "foo.out(Tensor x, *, Tensor(a!) out) -> Tensor(b!)",      # out/return annotations differ
    "foo(Tensor x) -> Tensor(a!)",                  # mutable return aliasing nothing
    "foo(Tensor x) -> (Tensor)",                    # single return must not be parenthesized
    "foo(Tensor x) -> (Tensor a, Tensor a)",        # duplicate return names
    "foo(Tensor x, ..., int y) -> ()",              # '...' not last
    "foo(Tensor(a!|b) x) -> ()",                    # bad annotation
    "foo(int x=[1,) -> ()",
    "foo(int x=1x) -> ()",
    "(Tensor x) -> ()",
    "foo bar(Tensor x) -> ()",
    "foo(, Tensor x) -> ()",
    "",
    "foo",
]


@pytest.mark.parametrize("s", MALFORMED)
def test_malformed(s: str) -> None:
    with pytest.raises(SchemaParseError) as ei:
        FunctionSchema.parse(s)
    assert f"'{s}'" in str(ei.value)
    assert isinstance(ei.value, ValueError)


def test_error_message_format() -> None:
    with pytest.raises(SchemaParseError) as ei:
        FunctionSchema.parse("foo(Tensor x -> Tensor")
    assert str(ei.value).startswith(
        "Invalid schema 'foo(Tensor x -> Tensor': could not parse argument list 'Tensor x -> Tensor'")
    with pytest.raises(SchemaParseError, match="duplicate argument name 'x'"):
        FunctionSchema.parse("foo(Tensor x, int x) -> Tensor")
    with pytest.raises(SchemaParseError, match="could not parse argument 'Tensr x'"):
        FunctionSchema.parse("foo(Tensr x) -> Tensor")


def test_direct_construction_checks_invariants() -> None:
    t = Type.base("Tensor")
    name = OperatorName(None, "foo", "")
    with pytest.raises(SchemaParseError, match="duplicate argument name"):
        FunctionSchema(name, (Argument("x", t), Argument("x", t)), ())
    with pytest.raises(SchemaParseError, match="follows kwarg-only"):
        FunctionSchema(name, (Argument("x", t, kwarg_only=True), Argument("y", t)), ())
    with pytest.raises(ValueError, match="inplace"):
        FunctionSchema(OperatorName(None, "foo_", ""), (Argument("self", t),), ())


def test_parse_speed() -> None:
    # Parsing runs at import time for every declared operator: keep it cheap.
    start = time.perf_counter()
    for _ in range(3):
        for s in SCHEMAS:
            FunctionSchema.parse(s)
    per = (time.perf_counter() - start) / (3 * len(SCHEMAS))
    assert per < 500e-6, f"{per * 1e6:.1f} us per schema"


# ---------------------------------------------------------------------------------------------
# Property test: random schemas from the grammar round trip


_BASES = ["Tensor", "Scalar", "int", "SymInt", "float", "bool", "str", "ScalarType", "Device",
          "Layout", "Generator", "MemoryFormat", "Dimname", "Storage", "Stream", "QScheme",
          "ConstQuantizerPtr", "complex", "Any"]
_DEFAULTS = ["None", "True", "False", "0", "-1", "1.5", "1e-05", "-inf", "nan", "[]", "[0,1]",
             "[-2,-1]", "'mean'", "\"valid\"", "\"a, b)\"", "Mean", "contiguous_format", "long"]
_NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True).filter(lambda n: not n.endswith("_"))


@st.composite
def types(draw: st.DrawFn) -> Type:
    t = Type.base(draw(st.sampled_from(_BASES)))
    for _ in range(draw(st.integers(0, 2))):
        if draw(st.booleans()) and not t.is_optional():
            t = Type.optional_of(t)
        else:
            t = Type.list_of(t, draw(st.one_of(st.none(), st.integers(1, 6))))
    return t


@st.composite
def annotations(draw: st.DrawFn, write: bool) -> Annotation:
    letters = st.sampled_from("abcdef")
    if write:
        return Annotation((draw(letters),), True, ())
    before = tuple(draw(st.lists(letters, min_size=1, max_size=2, unique=True)))
    after = () if draw(st.booleans()) else ("*",) if draw(st.booleans()) else (draw(letters),)
    return Annotation(before, False, after)


@st.composite
def schemas(draw: st.DrawFn) -> FunctionSchema:
    names = draw(st.lists(_NAMES, min_size=0, max_size=7, unique=True))
    n_kw = draw(st.integers(0, len(names)))
    n_out = draw(st.integers(0, n_kw))
    inplace = n_kw < len(names) and n_out == 0 and draw(st.booleans())  # needs a positional self
    args = []
    for i, n in enumerate(names):
        kw = i >= len(names) - n_kw
        is_out = i >= len(names) - n_out
        if is_out or (inplace and i == 0):
            t = draw(st.sampled_from([Type.base("Tensor"), Type.parse("Tensor[]"), Type.parse("Tensor?")]))
            ann = Annotation((chr(ord("a") + i),), True, ())  # distinct alias sets per argument
            args.append(Argument(n, t, None, ann, kw, is_out))
            continue
        t = draw(types())
        ann = draw(st.none() | annotations(False)) if t.base_name == "Tensor" else None
        default = draw(st.none() | st.sampled_from(_DEFAULTS))
        args.append(Argument(n, t, default, ann, kw, False))
    outs = [a for a in args if a.is_out]
    if outs:  # out= schemas return their outs (in order) or nothing
        rets = tuple(Return(None, a.type, a.annotation) for a in outs) if draw(st.booleans()) else ()
    elif inplace and draw(st.booleans()):
        rets = (Return(None, args[0].type, args[0].annotation),)
    else:
        rnames = draw(st.lists(_NAMES, max_size=3, unique=True))
        named = draw(st.booleans())
        rets = tuple(Return(n if named else None, draw(types()), None) for n in rnames)
    base = draw(_NAMES) + ("_" if inplace else "")
    op = OperatorName(draw(st.none() | st.sampled_from(["aten", "jtorch"])), base,
                      draw(st.sampled_from(["", "Tensor", "out", "Scalar_out"])))
    vararg = draw(st.booleans()) and draw(st.booleans())
    return FunctionSchema(op, tuple(args), rets, is_vararg=vararg)


@settings(max_examples=300, deadline=None)
@given(schemas())
def test_property_round_trip(f: FunctionSchema) -> None:
    s = str(f)
    g = FunctionSchema.parse(s)
    assert g == f
    assert str(g) == s


@settings(max_examples=200, deadline=None)
@given(st.integers(-10**12, 10**12), st.floats(allow_nan=False, allow_infinity=False))
def test_property_numeric_defaults(i: int, x: float) -> None:
    assert Argument.parse(f"int n={i}").default_value == i
    assert Argument.parse(f"float x={x!r}").default_value == x
