"""Does a call's arguments fit an operator's schema? The slow path behind `jtorch.ops` errors and
OpOverloadPacket's overload choice, with PyTorch's messages (never on the hot path)."""
from __future__ import annotations

from typing import Any

from .schema import Argument, FunctionSchema, Type


def _is_tensor(x: Any) -> bool:
    return hasattr(x, "_key_set") and not hasattr(x, "_is_generator")


def _fits_type(t: Type, x: Any) -> bool:
    elem = t.elem  # set for optional and list types
    if t.is_optional():
        assert elem is not None
        return x is None or _fits_type(elem, x)
    if t.is_list():
        assert elem is not None
        if t.size is not None and elem.base_name in ("int", "SymInt", "float", "bool") and _fits_type(elem, x):
            return True  # int[2] accepts a single int
        return isinstance(x, (list, tuple)) and all(_fits_type(elem, e) for e in x)
    b = t.base_name
    if b == "Tensor":
        return _is_tensor(x)
    if b in ("int", "SymInt"):
        return isinstance(x, int) or hasattr(x, "__index__") and not _is_tensor(x)
    if b == "float":
        return isinstance(x, (int, float)) and not isinstance(x, bool)
    if b == "bool":
        return isinstance(x, bool)
    if b == "complex":
        return isinstance(x, (int, float, complex))
    if b == "Scalar":
        return isinstance(x, (bool, int, float, complex)) or (_is_tensor(x) and getattr(x, "ndim", 1) == 0)
    if b == "str":
        return isinstance(x, str)
    if b == "Generator":
        return hasattr(x, "_is_generator")
    return True  # ScalarType, Device, Layout, MemoryFormat, ...: checked by the kernels that use them


def _type_name(x: Any) -> str:
    """The 'found type' torch names: Tensor for tensors, else the Python type's name ('list', 'int')."""
    return "Tensor" if _is_tensor(x) else type(x).__name__


_PY_BASE = {"Scalar": "number", "SymInt": "int", "SymFloat": "float", "SymBool": "bool"}


def _py_type(t: Type) -> str:
    """The schema type as torch prints it in argument errors: Optional[Tensor], List[int], number."""
    if t.elem is not None:  # an optional or a list type
        return f"Optional[{_py_type(t.elem)}]" if t.is_optional() else f"List[{_py_type(t.elem)}]"
    return _PY_BASE.get(t.base_name, t.base_name)


def _display_name(schema: FunctionSchema) -> str:
    n = schema.name
    return f"{n.namespace}::{n.name}" if n.namespace else n.name


def fits(entry: Any, args: tuple, kwargs: dict, explain: bool = True) -> str | None:
    """None when the arguments fit entry's schema, else PyTorch's error text (an empty string
    without `explain`: OpOverloadPacket tries overloads first and words the errors only if none fits).

    Same checks in the same order as torch's createStackForSchema: total count, positional count,
    each argument in schema order (missing, then type), then unknown keyword arguments.
    """
    schema: FunctionSchema | None = entry.schema
    if schema is None:
        return f"Could not find schema for {entry.name}"
    fname = _display_name(schema)
    arguments = schema.arguments
    if len(args) + len(kwargs) > len(arguments):
        return "" if not explain else (
            f"{fname}() expected at most {len(arguments)} argument(s) but received {len(args) + len(kwargs)} "
            f"argument(s). Declaration: {schema}"
        )
    positional = [a for a in arguments if not a.kwarg_only]
    if len(args) > len(positional):
        return "" if not explain else (
            f"{fname}() takes {len(positional)} positional argument(s) but {len(args)} was/were given.  "
            f"Declaration: {schema}"
        )
    consumed = 0
    for i, a in enumerate(arguments):
        if not a.kwarg_only and i < len(args):
            x = args[i]
        elif a.name in kwargs:
            x = kwargs[a.name]
            consumed += 1
        elif a.default is not None or a.type.is_optional():
            continue
        else:
            return "" if not explain else f"{fname}() is missing value for argument '{a.name}'. Declaration: {schema}"
        if not _fits_type(a.type, x):
            return "" if not explain else _type_error(fname, schema, a, i, x)
    if consumed != len(kwargs):
        if not explain:
            return ""
        given = {a.name for i, a in enumerate(arguments) if not a.kwarg_only and i < len(args)}
        for k in kwargs:
            if k in given:
                return f"Argument '{k}' specified both as positional and keyword argument. Schema: {schema}"
        bad = next(k for k in kwargs if k not in {a.name for a in arguments})
        return f"Unknown keyword argument '{bad}' for operator '{fname}'. Schema: {schema}"
    return None


def _cast_detail(t: Type, x: Any) -> str:
    inner = t.unwrap_optional()
    if t.is_tensor_like() and not inner.is_list():
        return f"Unable to cast {x} to Tensor"
    if t.is_tensor_like() and isinstance(x, list):  # names the first element that is not a tensor
        bad = next((e for e in x if not _fits_type(inner.elem, e)), x)  # type: ignore[arg-type]  # a list type
        return f"Unable to cast {bad} to Tensor"
    return (
        f"Unable to cast Python instance of type {type(x)} to C++ type '?' "
        "(#define PYBIND11_DETAILED_ERROR_MESSAGES or compile in debug mode for details)"
    )


def _type_error(fname: str, schema: FunctionSchema, a: Argument, pos: int, x: Any) -> str:
    return (
        f"{fname}() Expected a value of type '{_py_type(a.type)}' for argument '{a.name}' but instead found type "
        f"'{_type_name(x)}'.\nPosition: {pos}\nValue: {x!r}\nDeclaration: {schema}\n"
        f"Cast error details: {_cast_detail(a.type, x)}"
    )


def check_arguments(entry: Any, args: tuple, kwargs: dict) -> None:
    err = fits(entry, args, kwargs)
    if err is not None:
        raise RuntimeError(err)


def no_overload_error(errors: list[str]) -> RuntimeError:
    return RuntimeError(
        "Overloaded torch operator invoked from Python failed to match any schema:\n" + "\n\n".join(errors) + "\n\n"
    )
