"""The target-neutral kernel front end (jtorch/kernels/frontend.py) and the math vocabulary.

* A toy back end that emits plain Python loops over lists (no Numba) runs real scalar functions
  from the same scalar modules the CPU back end compiles: the front end is target-neutral.
* Scalar functions in jtorch/kernels/scalar_*.py, and the helper implementations they reach,
  call no NumPy function (an AST walk over what the front end collects).
* jmath's helpers give, bit for bit, what the NumPy ufuncs they replaced give under Numba's CPU
  target (one compile per dtype).
"""
from __future__ import annotations

import ast
import importlib
import inspect
import math
import pathlib
import textwrap
import types as pytypes

import numpy as np
import pytest

from jtorch.kernels import frontend, jmath, scalar_binary, scalar_unary
from jtorch.kernels.cpu import _test_scalar_fns as F
from jtorch.kernels.cpu import codegen, mathimpl

# every jtorch/kernels/scalar_*.py, also those added later
SCALAR_MODULES = tuple(importlib.import_module(f"jtorch.kernels.{p.stem}")
                       for p in sorted(pathlib.Path(jmath.__file__).parent.glob("scalar_*.py")))


# ---- a toy back end: plain Python loops over lists ---------------------------------------------

class PythonBackend:
    """Everything frontend's docstring asks of a back end, for the Python interpreter as target.

    Header: a list recording the marked functions. Marker: append the name (Python needs no
    decorator). Loop: ``out[i] = _jt_fn(x0[i], ..., *extra)``. Helpers: their stubs' bodies are
    the Python implementations, so the hook only records what it was given.
    """

    def __init__(self) -> None:
        self.helpers: dict = {}
        frontend.on_target(self._register)

    def _register(self, stub, select) -> None:
        self.helpers[stub] = select

    def source(self, fn, ninputs: int) -> str:
        mod = frontend.collect(fn)
        args = ", ".join(f"x{k}[i]" for k in range(ninputs))
        params = ", ".join(f"x{k}" for k in range(ninputs))
        return ("_jt_marked = []\n"
                + mod.source(lambda name: f"_jt_marked.append({name!r})") + "\n\n"
                f"def _jt_loop(out, {params}, *extra):\n"
                f"    for i in range(len(out)):\n"
                f"        out[i] = _jt_fn({args}, *extra)\n")

    def run(self, fn, *inputs, extra=()) -> list:
        namespace: dict = {}
        exec(compile(self.source(fn, len(inputs)), f"<python backend: {fn.__name__}>", "exec"),
             namespace)
        out = [None] * len(inputs[0])
        namespace["_jt_loop"](out, *inputs, *extra)
        return out


@pytest.fixture(scope="module")
def python_backend() -> PythonBackend:
    return PythonBackend()


def test_python_backend_runs_scalar_functions(python_backend):
    rng = np.random.default_rng(0)
    a, b = rng.uniform(-5, 5, 50), rng.uniform(-5, 5, 50)
    run = python_backend.run
    np.testing.assert_allclose(run(scalar_binary.hypot, list(a), list(b)), np.hypot(a, b), rtol=1e-15)
    np.testing.assert_allclose(run(scalar_binary.lerp, list(a), list(b), list(b / 10)),
                               a + b / 10 * (b - a), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(run(F.mul_add_half, list(a), list(b)), (a + a) * b + 0.5)
    ints, divs = list(range(-20, 30)), [d or 7 for d in range(-25, 25)]
    assert run(scalar_binary.div_floor, ints, divs) == list(np.floor_divide(ints, divs))
    z = list(a + 1j * b)
    np.testing.assert_allclose(run(scalar_unary.sin, z), np.sin(a + 1j * b), rtol=1e-14)
    np.testing.assert_allclose(run(scalar_unary.sin, list(a)), np.sin(a), rtol=1e-15)
    gelu = [x * 0.5 * (1 + math.erf(x * 0.7071067811865476)) for x in a]
    np.testing.assert_allclose(run(scalar_unary.gelu, list(a)), gelu, rtol=1e-15)
    np.testing.assert_allclose(run(scalar_unary.logit_eps, list(a / 10 + 0.5), extra=(0.2,)),
                               [math.log(v / (1 - v)) for v in np.clip(a / 10 + 0.5, 0.2, 0.8)])


def test_python_backend_gets_every_helper_and_marks_every_function(python_backend):
    assert set(python_backend.helpers) == set(frontend.helpers())
    assert jmath.sin in python_backend.helpers and scalar_binary.floor_div in python_backend.helpers

    def later_stub(x):
        return x
    frontend.implements(later_stub)(lambda x: None)  # registered after the back end subscribed
    assert python_backend.helpers[later_stub] is not None
    namespace: dict = {}
    exec(python_backend.source(F.mul_add_half, 2), namespace)
    assert namespace["_jt_marked"] == ["_twice", "mul_add_half"]  # dependencies first


def test_scalar_module_parts():
    mod = frontend.collect(scalar_unary.gelu_tanh)
    assert mod.entries == {"_jt_fn": "gelu_tanh"}
    assert "from jtorch.kernels.jmath import like as like" in mod.imports
    assert "import jtorch.kernels.jmath as jmath" in mod.imports
    assert ("_GELU_TANH_C", "0.044715") in mod.constants
    assert [f.name for f in mod.functions] == ["gelu_tanh"]
    src = mod.source(lambda name: f"# marked {name}")
    assert src.index("def gelu_tanh") < src.index("# marked gelu_tanh") < src.index("_jt_fn = gelu_tanh")
    assert len(mod.digest) == 64
    # several entry points in one module (a reduction's pieces), shared helpers emitted once
    both = frontend.collect(F.mul_add_half, {"_jt_a": F.mul_add_half, "_jt_b": F._twice})
    assert both.entries == {"_jt_a": "mul_add_half", "_jt_b": "_twice"}
    assert [f.name for f in both.functions] == ["_twice", "mul_add_half"]


def test_numpy_scalar_constants_bring_their_import(tmp_path, monkeypatch):
    path = tmp_path / "fe_consts_mod.py"
    path.write_text("import numpy as np\nTHIRD = np.float32(1 / 3)\n\ndef f(x):\n    return x * THIRD\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    mod = frontend.collect(importlib.import_module("fe_consts_mod").f)
    assert "import numpy as _jt_np" in mod.imports
    assert mod.constants == (("THIRD", f"_jt_np.float32({float(np.float32(1 / 3))!r})"),)


def test_module_digest_follows_the_source(tmp_path, monkeypatch):
    path = tmp_path / "fe_digest_mod.py"
    path.write_text("def g(x):\n    return x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.import_module("fe_digest_mod")
    before = frontend.module_digest("fe_digest_mod")
    path.write_text("def g(x):\n    return x + 1\n")
    frontend.module_digest.cache_clear()
    assert frontend.module_digest("fe_digest_mod") != before


# ---- rules ------------------------------------------------------------------------------------

_K = 2.0
_UNSUPPORTED = [1, 2]


def _uses_reserved(x):
    return _jt_thing(x)  # noqa: F821


def _uses_undefined(x):
    return not_defined_anywhere(x)  # noqa: F821


def _uses_list(x):
    return x + _UNSUPPORTED[0]


def _nested(x):
    def inner(y):
        return y
    return inner(x)


def test_rules_give_clear_type_errors():
    k = 3.0

    def closure(x):
        return x * k
    cases = [(lambda x: x, "module-level 'def'"), (closure, "closure"),
             (_uses_reserved, "reserved"), (_uses_undefined, "undefined global 'not_defined"),
             (_uses_list, "cannot re-create"), (_nested, "nested functions"), (math.sin, "module-level")]
    for fn, text in cases:
        with pytest.raises(TypeError, match=text):
            frontend.collect(fn)
    with pytest.raises(TypeError, match="already has a selector"):
        frontend.implements(jmath.sin)(lambda x: None)


def test_cpu_backend_keeps_its_names():
    """Other CPU generators import these from cpu.codegen; the CPU header and marker are its own."""
    assert codegen.jit_import is frontend.jit_import and callable(codegen.jit_scalar)
    src, digest = codegen.prelude(F.mul_add_half, {"_jt_other": F._twice})
    assert "import numba as _jt_nb" in src and "_jt_jit_scalar(mul_add_half)" in src
    assert "_jt_fn = mul_add_half" in src and "_jt_other = _twice" in src
    assert digest == frontend.collect(F.mul_add_half).digest
    assert set(jmath.TARGET_SPECIFIC) <= {stub.__name__ for stub in mathimpl.CPU}


# ---- no NumPy in scalar functions ----------------------------------------------------------------

def _is_numpy(obj) -> bool:
    if isinstance(obj, pytypes.ModuleType):
        return obj.__name__.partition(".")[0] == "numpy"
    return isinstance(obj, np.ufunc) or str(getattr(obj, "__module__", "")).partition(".")[0] == "numpy"


def _resolve(expr: ast.expr, namespace: dict):
    """The object a Name / attribute chain means in `namespace`, or None if it is not global."""
    if isinstance(expr, ast.Name):
        return namespace.get(expr.id)
    if isinstance(expr, ast.Attribute):
        base = _resolve(expr.value, namespace)
        return getattr(base, expr.attr, None) if base is not None else None
    return None


def numpy_calls(node: ast.AST, namespace: dict, seen: set | None = None) -> list[str]:
    """Calls in `node` that reach NumPy, also through plain helpers of jtorch.kernels it calls."""
    seen = set() if seen is None else seen
    found = []
    for sub in ast.walk(node):
        if not isinstance(sub, ast.Call):
            continue
        target = _resolve(sub.func, namespace)
        if _is_numpy(target):
            found.append(ast.unparse(sub))
            continue
        target = getattr(target, "py_func", target)  # a register_jitable'd helper
        if (isinstance(target, pytypes.FunctionType) and target not in seen
                and target.__module__.startswith("jtorch.kernels.")
                and target not in frontend.helpers()):  # stubs: checked via their selectors
            seen.add(target)
            found += numpy_calls(ast.parse(textwrap.dedent(inspect.getsource(target))),
                                 target.__globals__, seen)
    return found


def _scalar_functions(module) -> list:
    """Public module-level defs that are not helper stubs (those are imported, not re-emitted)."""
    return [v for k, v in vars(module).items()
            if isinstance(v, pytypes.FunctionType) and v.__module__ == module.__name__
            and not k.startswith("_") and not frontend.is_jit_import(v)]


def _implementations(select) -> list[ast.AST]:
    """The runtime implementations inside a selector: its nested defs and lambdas (the rest of
    a selector runs at typing time, on the host, and may use NumPy for typed constants)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(select)))
    outer = tree.body[0]
    return [n for n in ast.walk(outer) if isinstance(n, (ast.FunctionDef, ast.Lambda)) and n is not outer]


def test_checker_catches_numpy(tmp_path, monkeypatch):
    path = tmp_path / "fe_bad_mod.py"
    path.write_text("import numpy as np\nfrom numpy import sqrt\n\ndef helper(x):\n    return np.sin(x)\n\n"
                    "def bad(x):\n    return helper(x) + sqrt(x)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    bad = importlib.import_module("fe_bad_mod").bad
    found = [c for f in frontend.collect(bad).functions
             for c in numpy_calls(f.node, f.function.__globals__)]
    assert sorted(found) == ["np.sin(x)", "sqrt(x)"]


@pytest.mark.parametrize("module", SCALAR_MODULES, ids=lambda m: m.__name__.rpartition(".")[2])
def test_scalar_functions_call_no_numpy(module):
    fns = _scalar_functions(module)
    assert fns and scalar_unary.sin in _scalar_functions(scalar_unary)
    bad = {}
    for fn in fns:
        for f in frontend.collect(fn).functions:
            calls = numpy_calls(f.node, f.function.__globals__)
            if calls:
                bad[f.name] = calls
    assert not bad, bad


def test_helper_implementations_call_no_numpy():
    """Selectors registered by jmath and scalar_*.py: only the vocabulary at run time."""
    bad = {}
    owners = {jmath.__name__} | {m.__name__ for m in SCALAR_MODULES}
    for stub, select in frontend.helpers().items():
        if stub.__module__ not in owners or select is None:
            continue
        for impl in _implementations(select):
            calls = numpy_calls(impl, select.__globals__)
            if calls:
                bad[stub.__name__] = calls
    assert not bad, bad


# ---- the vocabulary against the NumPy ufuncs it replaced, under Numba's CPU target -----------------

_PAIRS = {  # jmath helper -> the ufunc the scalar functions called before
    "sqrt": np.sqrt, "exp2": np.exp2, "log2": np.log2, "log10": np.log10, "sin": np.sin,
    "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
    "sinh": np.sinh, "cosh": np.cosh, "expm1": np.expm1, "log1p": np.log1p,
    "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "rint": np.rint,
}
_REAL_ONLY = {"floor", "ceil", "trunc", "rint", "expm1", "log1p"}  # complex: c10's formulas, not NumPy's


def _both_kernels(names: list[str]):
    """Kernels computing every helper and every old ufunc, generated into the kernel cache (so
    that Numba caches them on disk: a warm run compiles nothing)."""
    import hashlib

    from jtorch.kernels.common import cache
    lines = ["import numba", "import numpy as np", "import jtorch.kernels.jmath as jmath",
             "from jtorch.kernels.common.cache import enable_cache", ""]
    for fname, call in (("new", lambda n: f"jmath.{n}"), ("old", lambda n: f"np.{_PAIRS[n].__name__}")):
        lines += ["@enable_cache", "@numba.njit(error_model='numpy', nogil=True)",
                  f"def {fname}(x, out):", "    for i in range(x.size):"]
        lines += [f"        out[{k}, i] = {call(n)}(x[i])" for k, n in enumerate(names)]
    src = "\n".join(lines) + "\n"
    h = hashlib.sha256(src.encode())
    h.update(frontend.module_digest(codegen.__name__).encode())  # jmath, mathimpl, fastmath...
    stem = f"test_vocabulary_{h.hexdigest()[:20]}"
    mod = cache.import_file("jtorch_kernels_generated." + stem, cache.write_source(stem + ".py", src))
    return mod.new, mod.old


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
def test_vocabulary_matches_numpy_ufuncs_bitwise(dtype):
    names = [n for n in _PAIRS if np.dtype(dtype).kind == "f" or n not in _REAL_ONLY]
    rng = np.random.default_rng(1)
    base = np.concatenate([rng.uniform(-3, 3, 400), rng.uniform(-1, 1, 200),
                           np.exp(rng.uniform(-80, 80, 200)) * rng.choice([-1, 1], 200),
                           [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, 2.5, -2.5, 1e-300]])
    with np.errstate(invalid="ignore"):  # 1j * inf
        x = (base + 1j * rng.permutation(base) if np.dtype(dtype).kind == "c" else base).astype(dtype)
    new, old = _both_kernels(names)
    got, want = np.empty((len(names), x.size), dtype), np.empty((len(names), x.size), dtype)
    new(x, got)
    old(x, want)
    real = np.float32 if np.dtype(dtype).itemsize in (4, 8) and dtype != np.float64 else np.float64
    for k, name in enumerate(names):
        g, w = got[k].view(real), want[k].view(real)  # complex: both parts
        same = (g == w) | (np.isnan(g) & np.isnan(w))
        assert same.all(), (name, x[~same.reshape(x.size, -1).all(axis=1)][:5])


def test_integer_rounding_is_exact():
    """floor/ceil/trunc/round of an integer is the integer (np.floor went through float64)."""
    import numba
    f = numba.njit(lambda x: (jmath.floor(x), jmath.ceil(x), jmath.trunc(x), jmath.rint(x)))
    big = np.int64(2 ** 62 + 1)
    assert f(big) == (big,) * 4


def test_same_as_answers_compile_no_function_of_their_own():
    """jmath.sin(float) is math.sin lowered in place: only the caller compiles (compile time)."""
    import numba
    from numba.core import event
    f = numba.njit(lambda x: jmath.sin(x) + jmath.floor(x) + jmath.sqrt(x))
    with event.install_recorder("numba:compile") as rec:
        assert f(2.25) == math.sin(2.25) + 2.0 + 1.5
    assert sum(1 for _, ev in rec.buffer if ev.is_start) == 1
