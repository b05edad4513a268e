"""Parser for PyTorch's operator schema language (``native_functions.yaml`` ``func:`` strings).

Modelled on torchgen/model.py: frozen dataclasses, ``parse()`` classmethods and a *lossless*
representation, i.e. ``str(FunctionSchema.parse(s)) == s``.  Parsing is strict about spacing so
the round trip holds by construction; non-canonical text is rejected with SchemaParseError.

    add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
    split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]
"""
from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import Enum
from functools import cache, lru_cache
from typing import Any, TypeVar

__all__ = ["SchemaParseError", "Annotation", "TypeKind", "Type", "Argument", "Return",
           "OperatorName", "SchemaKind", "FunctionSchema", "BASE_TYPES"]

_T = TypeVar("_T")


class SchemaParseError(ValueError):
    """Malformed schema text, or a schema object that violates an invariant."""


def _entry(what: str, fn: Callable[..., _T], s: str, *args: Any) -> _T:
    # Public parse() entry point: prefix internal failures with the whole input, so every
    # message names it ("Invalid schema '<s>': could not parse argument ...").
    try:
        return fn(s, *args)
    except SchemaParseError as e:
        if str(e).startswith("Invalid "):
            raise
        raise SchemaParseError(f"Invalid {what} '{s}': {e}") from None


BASE_TYPES = frozenset({
    "Tensor", "Scalar", "int", "SymInt", "float", "SymFloat", "bool", "SymBool", "str",
    "ScalarType", "Device", "DeviceIndex", "Layout", "Generator", "MemoryFormat", "Dimname",
    "DimVector", "Storage", "Stream", "QScheme", "ConstQuantizerPtr", "GraphModule",
    "Any", "any", "complex", "number", "t", "t1", "t2",
})

_IDENT = r"[A-Za-z_]\w*"
_ALIAS = r"(?:[a-z]\w*|\*)"
_ANN_RE = re.compile(rf"({_ALIAS}(?:\|{_ALIAS})*)(!?)(?: -> ({_ALIAS}(?:\|{_ALIAS})*))?")
_TYPE_RE = re.compile(r"([A-Za-z_][\w.]*)((?:\?|\[(?:[1-9]\d*)?\])*)")
_SUFFIX_RE = re.compile(r"\?|\[(\d*)\]")
# A (possibly annotated) type: the annotation binds to the base token, before any ?/[] suffix.
_TYPED = r"(?P<base>[A-Za-z_][\w.]*)(?:\((?P<ann>[^()]*)\))?(?P<suf>(?:\?|\[\d*\])*)"
_ARG_RE = re.compile(rf"{_TYPED} (?P<name>{_IDENT})(?:=(?P<default>.+))?", re.S)
_RET_RE = re.compile(rf"{_TYPED}(?: (?P<name>{_IDENT}))?")
_OPNAME_RE = re.compile(rf"(?:(\w+)::)?({_IDENT})(?:\.(\w+))?")
_NUM = r"-?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|inf|nan)"
_STR = r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'"
_SCALAR = rf"(?:{_NUM}|{_STR}|[A-Za-z_][\w.]*)"
_SCALAR_RE = re.compile(_SCALAR, re.S)
_DEFAULT_RE = re.compile(rf"{_SCALAR}|\[ ?(?:{_SCALAR}(?: ?, ?{_SCALAR})*)? ?\]", re.S)
_INT_RE = re.compile(r"-?\d+")
# Only brackets and commas matter for splitting; quoted strings are matched whole so a
# default like "a, b)" cannot confuse the depth count.
_TOKEN_RE = re.compile(rf"[()\[\],]|{_STR}", re.S)
# Dunder names whose "__i<op>__" form is an augmented (in-place) assignment.
_AUGMENTED = frozenset({"add", "sub", "mul", "div", "truediv", "floordiv", "mod", "pow",
                        "lshift", "rshift", "and", "or", "xor", "matmul"})


def _split_group(s: str, open_ix: int) -> tuple[list[str], int] | None:
    """Split the group opened at s[open_ix] on top-level commas -> (pieces, end), None if unclosed."""
    depth, last, pieces = 0, open_ix + 1, []
    for m in _TOKEN_RE.finditer(s, open_ix):
        c = m.group()
        if c == "(" or c == "[":
            depth += 1
        elif c == ")" or c == "]":
            depth -= 1
            if depth == 0:
                pieces.append(s[last:m.start()])
                return pieces, m.end()
        elif c == "," and depth == 1:
            pieces.append(s[last:m.start()])
            last = m.end()
    return None


def _items(pieces: list[str], what: str) -> list[str]:
    # The canonical separator is exactly ", "; anything else would not round trip.
    for p in pieces[1:]:
        if not p.startswith(" ") or p.startswith("  "):
            raise SchemaParseError(f"{what} must be separated by ', ' (got '{p}')")
    return [pieces[0]] + [p[1:] for p in pieces[1:]]


@dataclass(frozen=True)
class Annotation:
    """Alias annotation: ``a``, ``a!``, ``a|b``, ``a -> *``."""

    alias_set: tuple[str, ...]
    is_write: bool
    alias_set_after: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.alias_set:
            raise SchemaParseError("alias annotation needs at least one alias set")
        if self.is_write and len(self.alias_set) > 1:
            raise SchemaParseError(f"alias set larger than 1 cannot be mutable: '{self}'")
        if len(self.alias_set) > 1 and len(self.alias_set_after) > 1:
            raise SchemaParseError(f"before and after alias sets cannot both have several members: '{self}'")

    @classmethod
    def parse(cls, s: str) -> Annotation:
        return _entry("annotation", _parse_annotation, s)

    def __str__(self) -> str:
        r = "|".join(self.alias_set) + ("!" if self.is_write else "")
        return f"{r} -> {'|'.join(self.alias_set_after)}" if self.alias_set_after else r


@cache
def _parse_annotation(s: str) -> Annotation:
    m = _ANN_RE.fullmatch(s)
    if m is None:
        raise SchemaParseError(f"unrecognized alias annotation '{s}'")
    after = tuple(m.group(3).split("|")) if m.group(3) else ()
    return Annotation(tuple(m.group(1).split("|")), m.group(2) == "!", after)


class TypeKind(Enum):
    BASE = "base"
    OPTIONAL = "optional"
    LIST = "list"


@dataclass(frozen=True)
class Type:
    """One class for torchgen's BaseType / OptionalType / ListType, selected by ``kind``."""

    kind: TypeKind
    name: str | None = None      # base types only, e.g. "Tensor"
    elem: Type | None = None     # optional and list types only
    size: int | None = None      # list types only: int[2] -> 2

    def __post_init__(self) -> None:
        if self.kind is TypeKind.BASE:
            if self.elem is not None or self.size is not None or not (
                    self.name in BASE_TYPES or str(self.name).startswith("__torch__.torch.classes.")):
                raise SchemaParseError(f"unknown base type '{self.name}'")
        elif self.elem is None or self.name is not None:
            raise SchemaParseError(f"{self.kind.value} type needs an element type and no name")
        elif self.kind is TypeKind.OPTIONAL and (self.size is not None or self.elem.is_optional()):
            raise SchemaParseError(f"invalid optional type '{self.elem}?'")
        elif self.size is not None and self.size <= 0:
            raise SchemaParseError(f"list size must be positive, got {self.size}")

    @classmethod
    def base(cls, name: str) -> Type:
        return cls(TypeKind.BASE, name=name)

    @classmethod
    def optional_of(cls, elem: Type) -> Type:
        return cls(TypeKind.OPTIONAL, elem=elem)

    @classmethod
    def list_of(cls, elem: Type, size: int | None = None) -> Type:
        return cls(TypeKind.LIST, elem=elem, size=size)

    @classmethod
    def parse(cls, s: str) -> Type:
        return _entry("type", _parse_type, s)

    def __str__(self) -> str:
        if self.kind is TypeKind.BASE:
            return self.name  # type: ignore[return-value]  # a BASE type always has a name
        return f"{self.elem}?" if self.kind is TypeKind.OPTIONAL else f"{self.elem}[{self.size or ''}]"

    @property
    def base_name(self) -> str:
        """The innermost base type name: "Tensor" for Tensor?[]."""
        t = self
        while t.elem is not None:
            t = t.elem
        return t.name  # type: ignore[return-value]  # the innermost type is a BASE type, which has a name

    def is_optional(self) -> bool:
        return self.kind is TypeKind.OPTIONAL

    def is_list(self) -> bool:
        return self.kind is TypeKind.LIST

    def is_list_like(self) -> bool:
        """A list or an optional list (int[1]?)."""
        return self.unwrap_optional().kind is TypeKind.LIST

    def unwrap_optional(self) -> Type:
        # the ignore on the next line: an OPTIONAL type always has an elem
        return self.elem if self.kind is TypeKind.OPTIONAL else self  # type: ignore[return-value]

    def is_tensor_like(self) -> bool:
        return self.base_name == "Tensor"

    def tensor_kind(self, *, any_list: bool = False) -> str | None:
        """How an argument of this type holds tensors, for the code generated per schema (key
        extraction, autograd's requires-grad checks and records): 'tensor' (Tensor), 'opt'
        (Tensor?: None or a tensor), 'list' (Tensor[]), 'optlist' (Tensor?[]: elements may be
        None), 'listopt' (Tensor[]?: None or a list); None when it holds no tensor. any_list: every
        list kind is 'list' (autograd reads a list and each of its elements as maybe None)."""
        elem = self.elem
        if self.base_name != "Tensor":
            return None
        if elem is None:
            return "tensor"
        if self.kind is TypeKind.LIST:
            return "optlist" if elem.is_optional() and not any_list else "list"
        if elem.is_list():  # an optional list
            return "list" if any_list else "listopt"
        return "opt"


@cache
def _parse_type(s: str) -> Type:
    m = _TYPE_RE.fullmatch(s)
    if m is None:
        raise SchemaParseError(f"could not parse type '{s}'")
    t = Type.base(m.group(1))
    for sm in _SUFFIX_RE.finditer(m.group(2)):
        t = Type.optional_of(t) if sm.group() == "?" else Type.list_of(t, int(sm.group(1) or 0) or None)
    return t


def _fmt_typed(t: Type, ann: Annotation | None) -> str:
    s = str(t)
    if ann is None:
        return s
    b = t.base_name  # str(t) always starts with the base name
    return f"{b}({ann}){s[len(b):]}"


def _parse_typed(m: re.Match[str]) -> tuple[Type, Annotation | None]:
    ann = m.group("ann")
    return _parse_type(m.group("base") + m.group("suf")), (None if ann is None else _parse_annotation(ann))


def _literal(text: str) -> Any:
    """Python value of one default literal (already validated by _DEFAULT_RE)."""
    c = text[0]
    if c == "[":
        return [_literal(m.group()) for m in _SCALAR_RE.finditer(text, 1, len(text) - 1)]
    if c == '"' or c == "'":
        return ast.literal_eval(text)  # schemas use the \" \' \\ escapes that Python shares
    if text in ("None", "True", "False"):
        return {"None": None, "True": True, "False": False}[text]
    if _INT_RE.fullmatch(text):
        return int(text)
    try:
        return float(text)  # 1e-05, 1., inf, -inf, nan
    except ValueError:
        return text  # enum-like identifiers: contiguous_format, Mean, long


def _coerce(t: Type, v: Any) -> Any:
    # Match torch's FunctionSchema: `float x=1` -> 1.0, `int[2] p=0` -> [0, 0].
    t = t.unwrap_optional()
    if v is None:
        return v
    if t.elem is not None:
        if not isinstance(v, list):
            return [_coerce(t.elem, v)] * t.size if t.size else v
        return [_coerce(t.elem, x) for x in v]
    if t.name in ("float", "SymFloat") and isinstance(v, int) and not isinstance(v, bool):
        return float(v)
    return v


@dataclass(frozen=True)
class Argument:
    """One formal argument, e.g. ``Tensor(a!) out`` or ``Scalar alpha=1``."""

    name: str
    type: Type
    default: str | None = None          # raw default text, exactly as written
    annotation: Annotation | None = None
    kwarg_only: bool = False
    is_out: bool = False                # == kwarg_only and is_write (torchgen's definition)

    def __post_init__(self) -> None:
        if self.default is not None and not _DEFAULT_RE.fullmatch(self.default):
            raise SchemaParseError(f"invalid default value '{self.default}' for argument '{self.name}'")
        if self.is_out != (self.kwarg_only and self.is_write):
            raise SchemaParseError(
                f"argument '{self.name}': out arguments are exactly the kwarg-only arguments with a write "
                f"annotation (kwarg_only={self.kwarg_only}, is_write={self.is_write}, is_out={self.is_out})")

    @classmethod
    def parse(cls, s: str, kwarg_only: bool = False) -> Argument:
        return _entry("argument", _parse_argument, s, kwarg_only)

    def __str__(self) -> str:
        d = "" if self.default is None else f"={self.default}"
        return f"{_fmt_typed(self.type, self.annotation)} {self.name}{d}"

    @property
    def is_write(self) -> bool:
        return self.annotation is not None and self.annotation.is_write

    @property
    def has_default(self) -> bool:
        return self.default is not None

    @property
    def default_value(self) -> Any:
        """The default as a Python value (None when there is no default or it is ``None``)."""
        return None if self.default is None else _coerce(self.type, _literal(self.default))


@lru_cache(maxsize=4096)  # arguments repeat a lot ("Tensor self", "Scalar alpha=1"); all immutable
def _parse_argument(s: str, kwarg_only: bool) -> Argument:
    m = _ARG_RE.fullmatch(s)
    if m is None:
        raise SchemaParseError(f"could not parse argument '{s}'")
    try:
        t, ann = _parse_typed(m)
        is_out = kwarg_only and ann is not None and ann.is_write
        return Argument(m.group("name"), t, m.group("default"), ann, kwarg_only, is_out)
    except SchemaParseError as e:
        raise SchemaParseError(f"could not parse argument '{s}': {e}") from None


@dataclass(frozen=True)
class Return:
    """One return, e.g. ``Tensor(a)``, ``Tensor values``, ``Tensor(a)[]``."""

    name: str | None
    type: Type
    annotation: Annotation | None = None

    @classmethod
    def parse(cls, s: str) -> Return:
        return _entry("return", _parse_return, s)

    def __str__(self) -> str:
        t = _fmt_typed(self.type, self.annotation)
        return t if self.name is None else f"{t} {self.name}"

    @property
    def is_write(self) -> bool:
        return self.annotation is not None and self.annotation.is_write


@lru_cache(maxsize=1024)
def _parse_return(s: str) -> Return:
    m = _RET_RE.fullmatch(s)
    if m is None:
        raise SchemaParseError(f"could not parse return '{s}'")
    try:
        t, ann = _parse_typed(m)
    except SchemaParseError as e:
        raise SchemaParseError(f"could not parse return '{s}': {e}") from None
    return Return(m.group("name"), t, ann)


@dataclass(frozen=True)
class OperatorName:
    """``aten::add.Tensor`` -> namespace "aten", name "add", overload_name "Tensor"."""

    namespace: str | None
    name: str
    overload_name: str = ""

    def __post_init__(self) -> None:
        if not (re.fullmatch(_IDENT, self.name) and re.fullmatch(r"\w*", self.overload_name)
                and (self.namespace is None or re.fullmatch(r"\w+", self.namespace))):
            raise SchemaParseError(f"invalid operator name '{self}'")

    @classmethod
    def parse(cls, s: str) -> OperatorName:
        m = _OPNAME_RE.fullmatch(s)
        if m is None:
            raise SchemaParseError(f"Invalid operator name '{s}'")
        return cls(m.group(1), m.group(2), m.group(3) or "")

    def __str__(self) -> str:
        ns = f"{self.namespace}::" if self.namespace else ""
        return f"{ns}{self.name}.{self.overload_name}" if self.overload_name else f"{ns}{self.name}"

    @property
    def base(self) -> str:
        """The name without namespace or overload ("add_" for "aten::add_.Tensor")."""
        return self.name

    @property
    def unambiguous_name(self) -> str:
        return f"{self.name}_{self.overload_name}" if self.overload_name else self.name

    @property
    def is_dunder(self) -> bool:
        return len(self.name) > 4 and self.name.startswith("__") and self.name.endswith("__")

    @property
    def is_inplace(self) -> bool:
        if self.is_dunder:
            return self.name[2] == "i" and self.name[3:-2] in _AUGMENTED
        return self.name.endswith("_") and not self.name.endswith("__")

    @property
    def functional_name(self) -> str:
        """The name with the in-place marker removed: add_ -> add, __iand__ -> __and__."""
        if not self.is_inplace:
            return self.name
        return f"__{self.name[3:]}" if self.is_dunder else self.name[:-1]


class SchemaKind(Enum):
    functional = "functional"
    inplace = "inplace"
    out = "out"
    mutable = "mutable"
    scratch = "scratch"


@dataclass(frozen=True)
class FunctionSchema:
    name: OperatorName
    arguments: tuple[Argument, ...]   # positional first, then kwarg-only (out arguments last)
    returns: tuple[Return, ...]
    is_vararg: bool = False           # "f(...)"  (TorchScript-only forms)
    is_varret: bool = False           # "-> ..."

    def __post_init__(self) -> None:
        args = self.arguments
        if len({a.name for a in args}) != len(args):
            dup = next(a.name for i, a in enumerate(args) if a.name in {b.name for b in args[:i]})
            self._invalid(f"duplicate argument name '{dup}'")
        for prev, a in zip(args, args[1:]):
            if prev.kwarg_only and not a.kwarg_only:
                self._invalid(f"positional argument '{a.name}' follows kwarg-only arguments")
            if prev.is_out and not a.is_out:
                self._invalid(f"non-out argument '{a.name}' follows out arguments")
        rnames = [r.name for r in self.returns if r.name is not None]
        if len(set(rnames)) != len(rnames):
            self._invalid("duplicate return names")
        if self.is_varret and self.returns:
            self._invalid("'...' returns cannot be mixed with other returns")
        out = self.out
        if self.name.is_inplace:
            if out:
                self._invalid("a schema cannot be both inplace and out=")
            if not args or not args[0].is_write:
                self._invalid(f"inplace operator '{self.name}' must annotate its first argument as written (a!)")
        for a, r in zip(out, self.returns):
            if a.annotation != r.annotation:
                self._invalid(f"out argument '{a.name}' and the matching return must have the same annotation")
        # A mutable return must be one of the mutated inputs (looser than torchgen, which also
        # requires it to be out= or self: torch registers ops with positional outs).
        written = {a.annotation for a in args if a.is_write}
        for r in self.returns:
            if r.is_write and r.annotation not in written:
                self._invalid(f"mutable return '{r}' does not alias any mutated argument")

    def _invalid(self, detail: str) -> None:
        raise SchemaParseError(f"Invalid schema '{self}': {detail}")

    @classmethod
    def parse(cls, s: str) -> FunctionSchema:
        return _entry("schema", _parse_schema, s)

    def __str__(self) -> str:
        parts = [str(a) for a in self.arguments if not a.kwarg_only]
        kw = [str(a) for a in self.arguments if a.kwarg_only]
        parts += ["*", *kw] if kw else []
        parts += ["..."] if self.is_vararg else []
        if self.is_varret:
            rets = "..."
        elif len(self.returns) == 1:  # native_functions.yaml never parenthesizes a single return
            rets = str(self.returns[0])
        else:
            rets = f"({', '.join(str(r) for r in self.returns)})"
        return f"{self.name}({', '.join(parts)}) -> {rets}"

    @property
    def positional(self) -> tuple[Argument, ...]:
        return tuple(a for a in self.arguments if not a.kwarg_only)

    @property
    def kwarg_only(self) -> tuple[Argument, ...]:
        """All keyword-only arguments, *including* the out arguments."""
        return tuple(a for a in self.arguments if a.kwarg_only)

    @property
    def out(self) -> tuple[Argument, ...]:
        return tuple(a for a in self.arguments if a.is_out)

    @property
    def is_mutable(self) -> bool:
        return any(a.is_write for a in self.arguments)

    def kind(self) -> SchemaKind:
        """torchgen's classification; inplace and out= take precedence over mutable."""
        if self.name.is_inplace:
            return SchemaKind.inplace
        out = self.out
        if out:
            return SchemaKind.scratch if any(a.name.startswith("_scratch_") for a in out) else SchemaKind.out
        pos = self.positional
        self_ix = next((i for i, a in enumerate(pos) if a.name == "self"), -1)
        return SchemaKind.mutable if any(a.is_write for a in pos[self_ix + 1:]) else SchemaKind.functional

    def with_namespace(self, ns: str | None) -> FunctionSchema:
        return replace(self, name=replace(self.name, namespace=ns))


def _parse_schema(s: str) -> FunctionSchema:
    i = s.find("(")
    if i <= 0:
        raise SchemaParseError("expected 'name(arguments) -> returns'")
    try:
        name = OperatorName.parse(s[:i])
    except SchemaParseError:
        raise SchemaParseError(f"could not parse operator name '{s[:i]}'") from None
    group = _split_group(s, i)
    if group is None:
        raise SchemaParseError(f"could not parse argument list '{s[i + 1:]}': missing closing ')'")
    pieces, j = group
    if not s.startswith(" -> ", j):
        raise SchemaParseError(f"expected ' -> ' after the argument list, got '{s[j:]}'")
    args: list[Argument] = []
    kwarg_only = vararg = False
    items = _items(pieces, "arguments") if pieces != [""] else []
    for k, p in enumerate(items):
        if vararg:
            raise SchemaParseError("'...' must be the last argument")
        if p == "*":
            if kwarg_only or k == len(items) - 1:
                raise SchemaParseError("'*' must appear once and be followed by an argument")
            kwarg_only = True
        elif p == "...":
            vararg = True
        else:
            args.append(_parse_argument(p, kwarg_only))
    returns, varret = _parse_returns(s[j + 4:])
    return FunctionSchema(name, tuple(args), returns, vararg, varret)


def _parse_returns(r: str) -> tuple[tuple[Return, ...], bool]:
    if r == "()" or r == "...":
        return (), r == "..."
    if not r.startswith("("):
        return (_parse_return(r),), False
    group = _split_group(r, 0)
    if group is None or group[1] != len(r):
        raise SchemaParseError(f"could not parse returns '{r}'")
    rets = tuple(_parse_return(p) for p in _items(group[0], "returns"))
    if len(rets) == 1:
        raise SchemaParseError(f"a single return must not be parenthesized: '{r}'")
    return rets, False
