"""torch as a test oracle, with or without torch installed.

`oracle_torch()` gives a stand-in for the `torch` module. Every operation a test performs on it (a
call, an attribute read of a torch object, an operator, a conversion to a Python or NumPy value) is an
event of the running test's tape:

- torch installed (the default): the operation runs on real torch, and when the test has a recording
  in tests/data/torch_outcomes/<test file>.json, each outcome is compared with the recorded one, so a
  recording that no longer matches torch (or the test) fails the test instead of drifting silently;
- torch installed and JTORCH_RECORD_TORCH=1: the operation runs on real torch and its outcome is
  recorded (rewrite the recordings of a file with
  `JTORCH_RECORD_TORCH=1 python -m pytest -q tests/test_x.py`);
- torch absent: nothing runs; each operation checks that the test asks what it asked when recorded
  (same operation, same arguments: arrays by content hash) and replays torch's outcome: the value
  (arrays, numbers, texts, dtypes), the exception (type and text) or the warnings it gave.

An outcome that is a torch object (a tensor, a dtype, a node) stays a stand-in; only what the test
reads out of torch (`.numpy()`, `.tolist()`, `str()`, `.shape`, `is None`, ...) is recorded. A test
whose torch calls are not a fixed function of its own code (hypothesis draws, callbacks run by torch,
classes derived from torch's) is recorded as live-only and skips without torch, with the reason.
"""
from __future__ import annotations

import ast
import base64
import builtins
import collections
import hashlib
import json
import operator
import os
import re
import types
import warnings
import zlib
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

DATA_DIR = Path(__file__).parent / "data" / "torch_outcomes"
RECORD = os.environ.get("JTORCH_RECORD_TORCH") == "1"

try:
    import torch as _torch
except ImportError:  # pragma: no cover - torch is an optional oracle
    _torch = None

HAVE_TORCH = _torch is not None
if RECORD and not HAVE_TORCH:  # pragma: no cover
    raise RuntimeError("JTORCH_RECORD_TORCH=1 needs torch installed")


class LiveOnly(Exception):
    """Raised while recording: the test cannot be replayed without torch."""


# ---------------------------------------------------------------------------------------------------
# the tape of the running test
# ---------------------------------------------------------------------------------------------------
class Tape:
    def __init__(self, nodeid: str, recorded: dict | None) -> None:
        self.nodeid = nodeid
        self.recorded = recorded  # {"events": [...]} or {"live_only": reason} or None
        self.events: list = []  # made while running (record/live)
        self.pos = 0  # next recorded event (replay/live check)
        self.next_id = 0
        self.live_only: str | None = None
        self.by_index = ""

    def new_id(self) -> int:
        self.next_id += 1
        return self.next_id


_tape: Tape | None = None
_files: dict[str, dict] = {}  # file stem -> loaded recording
_dirty: set[str] = set()


def _file_of(nodeid: str) -> str:
    return Path(nodeid.split("::")[0]).stem


def _load(stem: str) -> dict:
    if stem not in _files:
        path = DATA_DIR / f"{stem}.json"
        _files[stem] = json.loads(path.read_text()) if path.exists() else {"torch": None, "tests": {}}
    return _files[stem]


def _key(nodeid: str) -> str:
    return nodeid.split("::", 1)[1]


def begin_test(nodeid: str, test: Any, by_index: str = "") -> None:
    """Starts the tape of `nodeid`; `test` is its function (hypothesis tests are told apart by it);
    `by_index` names it by its parameters' indices, for pytest versions that spell parameter ids otherwise."""
    global _tape
    stem = _file_of(nodeid)
    recorded = None
    if not RECORD:
        data = _load(stem)
        key = _key(nodeid)
        if key not in data["tests"]:
            key = data.get("by_index", {}).get(by_index, key)
        recorded = data["tests"].get(key)
    _tape = Tape(nodeid, recorded)
    _tape.by_index = by_index
    if HAVE_TORCH:  # torch's random draws (a module's initial weights) are then the same in any test order
        _torch.manual_seed(0)
    if getattr(test, "is_hypothesis_test", False):
        # even derandomized, the examples drawn change with hypothesis' version
        _tape.live_only = "hypothesis draws the inputs torch is asked about"


def end_test(passed: bool) -> None:
    global _tape
    tape, _tape = _tape, None
    if tape is None or not RECORD or not passed:
        return
    if not tape.events and tape.live_only is None:
        return
    data = _load(_file_of(tape.nodeid))
    data["torch"] = _torch.__version__
    entry: dict = {"live_only": tape.live_only} if tape.live_only else {"events": tape.events}
    data["tests"][_key(tape.nodeid)] = entry
    if tape.by_index and tape.by_index != _key(tape.nodeid):
        data.setdefault("by_index", {})[tape.by_index] = _key(tape.nodeid)
    stem = _file_of(tape.nodeid)
    if _dirty and stem not in _dirty:  # tests run file by file: the previous file is complete
        write_recordings()
    _dirty.add(stem)


def may_use_torch(source: str) -> bool:
    """Whether a test's source (or its module's) can reach the oracle: recording runs only those."""
    return re.search(r"(?<![jJ])torch", source) is not None


def write_recordings() -> None:
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    for stem in sorted(_dirty):
        data = _files[stem]
        data["tests"] = dict(sorted(data["tests"].items()))
        text = json.dumps(data, separators=(",", ":"), sort_keys=False)
        # one test per line keeps diffs readable
        text = text.replace(',"test_', ',\n"test_').replace('{"test_', '{\n"test_')
        tmp = DATA_DIR / f"{stem}.json.tmp"
        tmp.write_text(text + "\n")
        os.replace(tmp, DATA_DIR / f"{stem}.json")  # a reader never sees half a file
    _dirty.clear()


# ---------------------------------------------------------------------------------------------------
# encoding: what a test asked (a description) and what torch answered (a result)
# ---------------------------------------------------------------------------------------------------
def _b64(raw: bytes) -> str:
    return base64.b64encode(zlib.compress(raw, 9)).decode()


def _unb64(text: str) -> bytes:
    return zlib.decompress(base64.b64decode(text))


def _digest(a: np.ndarray) -> str:
    a = np.ascontiguousarray(a)
    h = hashlib.sha1(f"{a.dtype.str}{a.shape}".encode())
    h.update(a.tobytes())
    return h.hexdigest()[:12]


def describe(v: Any) -> str:
    """A stable text of an argument: the same in every mode and every run of a deterministic test."""
    if isinstance(v, Proxy):
        return v._desc
    if v is None or isinstance(v, (bool, int, str)) or v is Ellipsis:
        return repr(v)
    if isinstance(v, float):
        return float.hex(v)
    if isinstance(v, complex):
        return f"c({float.hex(v.real)},{float.hex(v.imag)})"
    if isinstance(v, np.ndarray):
        if v.dtype == object:
            return "nd[" + ",".join(describe(x) for x in v.ravel()) + f"]{v.shape}"
        return f"nd:{_digest(v)}"
    if isinstance(v, np.generic):
        return f"np.{v.dtype}:{_digest(np.asarray(v))}"
    if isinstance(v, tuple):
        return "(" + ",".join(describe(x) for x in v) + ")"
    if isinstance(v, list):
        return "[" + ",".join(describe(x) for x in v) + "]"
    if isinstance(v, dict):  # OrderedDict too
        return "{" + ",".join(f"{describe(k)}:{describe(x)}" for k, x in v.items()) + "}"
    if isinstance(v, slice):
        return f"slice({describe(v.start)},{describe(v.stop)},{describe(v.step)})"
    if isinstance(v, range):
        return repr(v)
    if isinstance(v, type) and issubclass(v, BaseException):
        return v.__name__
    if isinstance(v, BaseException):
        return f"{type(v).__name__}()"
    if isinstance(v, type) and v.__module__ in ("builtins", "numpy"):
        return v.__name__
    if isinstance(v, np.dtype):
        return f"np.dtype({v.str})"
    mod = type(v).__module__
    if mod.startswith("jtorch") and hasattr(v, "numpy") and hasattr(v, "dtype"):
        return f"jtorch:{_digest(v.detach().cpu().numpy())}"
    raise LiveOnly(f"passes a {type(v).__qualname__} to torch")


def _encode_value(v: Any) -> Any:
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return v if abs(v) < 2**53 else {"i": str(v)}
    if isinstance(v, float):
        return {"f": float.hex(v)}
    if isinstance(v, complex):
        return {"c": [float.hex(v.real), float.hex(v.imag)]}
    if isinstance(v, np.ndarray):
        if v.dtype == object:
            raise LiveOnly("reads an object array out of torch")
        return {"nd": v.dtype.str, "s": list(v.shape), "b": _b64(np.ascontiguousarray(v).tobytes())}
    if isinstance(v, np.generic):
        return {"ns": v.dtype.str, "b": _b64(np.asarray(v).tobytes())}
    if isinstance(v, tuple):
        return {"t": [_encode_value(x) for x in v]}
    if isinstance(v, list):
        return {"l": [_encode_value(x) for x in v]}
    if isinstance(v, dict):
        items = [[_encode_value(k), _encode_value(x)] for k, x in v.items()]
        return {"d": items} if type(v) is dict else {"d": items, "cls": type(v).__name__}
    if isinstance(v, type) and v.__module__ == "builtins":
        return {"type": v.__name__}
    raise LiveOnly(f"reads a {type(v).__qualname__} out of torch")


_DICTS: dict[str, type] = {"dict": dict, "Counter": collections.Counter, "OrderedDict": collections.OrderedDict}


def _decode_value(e: Any) -> Any:
    if not isinstance(e, dict):
        return e
    if "f" in e:
        return float.fromhex(e["f"])
    if "i" in e:
        return int(e["i"])
    if "c" in e:
        return complex(float.fromhex(e["c"][0]), float.fromhex(e["c"][1]))
    if "nd" in e:
        return np.frombuffer(_unb64(e["b"]), dtype=np.dtype(e["nd"])).reshape(e["s"]).copy()
    if "ns" in e:
        return np.frombuffer(_unb64(e["b"]), dtype=np.dtype(e["ns"]))[0]
    if "t" in e:
        return tuple(_decode_value(x) for x in e["t"])
    if "l" in e:
        return [_decode_value(x) for x in e["l"]]
    if "d" in e:
        return _DICTS[e.get("cls", "dict")]({_decode_value(k): _decode_value(x) for k, x in e["d"]})
    if "type" in e:
        return getattr(builtins, e["type"])
    raise AssertionError(f"unknown recorded value {e!r}")


def _is_plain(v: Any) -> bool:
    if v is None or isinstance(v, (bool, int, float, complex, str, bytes, np.ndarray, np.generic)):
        return True
    if isinstance(v, (tuple, list)) and type(v) in (tuple, list):
        return all(_is_plain(x) for x in v)
    if HAVE_TORCH and isinstance(v, _torch.Size):
        return True
    if isinstance(v, dict) and type(v) in _DICTS.values():
        return all(_is_plain(k) and _is_plain(x) for k, x in v.items())
    return isinstance(v, type) and v.__module__ == "builtins"


_PATH_TYPES: tuple = (_torch.dtype, _torch.layout, _torch.memory_format) if HAVE_TORCH else ()


def _encode_result(v: Any, tape: Tape) -> tuple[list, Any]:
    """(recorded form, what the test gets) of a real torch outcome."""
    if _PATH_TYPES and isinstance(v, _PATH_TYPES):
        path = str(v)
        return ["path", path], PathProxy(path)
    if _is_plain(v):
        if HAVE_TORCH and isinstance(v, _torch.Size):
            v = tuple(v)
        return ["v", _encode_value(v)], v
    if type(v) in (tuple, list):
        parts = [_encode_result(x, tape) for x in v]
        return ["seq", type(v).__name__, [p[0] for p in parts]], type(v)(p[1] for p in parts)
    if _is_structseq(v):  # torch.return_types.max and kin: a named tuple
        parts = [_encode_result(x, tape) for x in v]
        name, fields = type(v).__name__, _structseq_fields(v)
        return ["seq", name, [p[0] for p in parts], fields], _named(name, fields)(*(p[1] for p in parts))
    i = tape.new_id()
    return ["p"], ValueProxy(f"%{i}", v)


def _is_structseq(v: Any) -> bool:
    return isinstance(v, tuple) and type(v).__module__ == "torch.return_types"


def _structseq_fields(v: Any) -> list[str]:
    return list(type(v).__match_args__)


_NAMED: dict[tuple, type] = {}


def _named(name: str, fields: list[str]) -> type:
    key = (name, tuple(fields))
    if key not in _NAMED:
        _NAMED[key] = collections.namedtuple(name, fields)  # type: ignore[misc]
    return _NAMED[key]


def _exception(names: list[str], text: str) -> BaseException:
    """torch's exception again; a KeyError's text is the repr of its argument, so the argument is that."""
    t = _builtin_exception(names)
    if issubclass(t, KeyError) and text[:1] in "'\"":
        try:
            return t(ast.literal_eval(text))
        except (ValueError, SyntaxError):
            pass
    return t(text)


def _decode_result(r: list, tape: Tape) -> Any:
    kind = r[0]
    if kind == "v":
        return _decode_value(r[1])
    if kind == "path":
        return PathProxy(r[1])
    if kind == "seq":
        seq = [_decode_result(x, tape) for x in r[2]]
        if len(r) > 3:
            return _named(r[1], r[3])(*seq)
        return tuple(seq) if r[1] == "tuple" else seq
    if kind == "p":
        return ValueProxy(f"%{tape.new_id()}", None)
    raise AssertionError(f"unknown recorded outcome {r!r}")


_EXCEPTIONS: dict[str, type] = {}


def _builtin_exception(names: list[str]) -> type:
    """torch's exception type: a builtin, or a class of its name derived from its nearest builtin base."""
    base: type = Exception
    for n in names:
        t = getattr(builtins, n, None)
        if isinstance(t, type) and issubclass(t, BaseException):
            base = t
            break
    if base.__name__ == names[0]:
        return base
    if names[0] not in _EXCEPTIONS:
        _EXCEPTIONS[names[0]] = type(names[0], (base,), {"__module__": "torch"})
    return _EXCEPTIONS[names[0]]


def _same(a: Any, b: Any) -> bool:
    """Recorded and live outcomes agree: exactly, floats to a few ulps."""
    if a == b:
        return True
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys():
        if "nd" in a or "ns" in a or "f" in a or "c" in a:
            x, y = _decode_value(a), _decode_value(b)
            x, y = np.asarray(x), np.asarray(y)
            if x.shape != y.shape or x.dtype != y.dtype:
                return False
            if x.dtype.kind in "fc":
                return bool(np.allclose(x, y, rtol=4 * np.finfo(x.dtype).eps, atol=0, equal_nan=True))
            return bool(np.array_equal(x, y))
        return all(_same(a[k], b[k]) for k in a)
    return False


# ---------------------------------------------------------------------------------------------------
# running one event
# ---------------------------------------------------------------------------------------------------
def _real(v: Any) -> Any:
    if isinstance(v, Proxy):
        return v._resolve()
    if isinstance(v, (types.FunctionType, types.MethodType)):  # a callback torch runs: it sees stand-ins

        def callback(*args: Any, **kwargs: Any) -> Any:
            return _real(v(*[_wrap_live(a) for a in args], **{k: _wrap_live(x) for k, x in kwargs.items()}))

        return callback
    if type(v) in (tuple, list):
        return type(v)(_real(x) for x in v)
    if isinstance(v, dict):
        return type(v)((k, _real(x)) for k, x in v.items())
    return v


def _event(desc: str, run: Any, keep: bool = False) -> Any:
    """One operation: `desc` is its stable text, `run()` performs it on real torch; `keep`: its
    outcome stays a stand-in even where it is a plain value (a torch.Size made by the test)."""
    tape = _tape
    if tape is None:
        if not HAVE_TORCH:
            raise RuntimeError(f"torch is needed outside a test: {desc}")
        return _live_outside(run)
    if not HAVE_TORCH:
        return _replay(tape, desc)
    return _live(tape, desc, run, keep)


def _live_outside(run: Any) -> Any:
    return _wrap_live(run())


def _wrap_live(v: Any) -> Any:
    """What the test gets of a torch outcome that is not recorded."""
    if _PATH_TYPES and isinstance(v, _PATH_TYPES):
        return PathProxy(str(v))
    if _is_plain(v):
        return tuple(v) if HAVE_TORCH and isinstance(v, _torch.Size) else v
    if type(v) in (tuple, list):
        return type(v)(_wrap_live(x) for x in v)
    return ValueProxy("%live", v)


_CHECKOUT = str(Path(__file__).resolve().parent.parent)  # torch's texts may name a file of this checkout


def _portable(text: str) -> str:
    """A recorded text with this checkout's path spelled `<checkout>`, so a recording made in one
    clone replays and re-checks in another."""
    return text.replace(_CHECKOUT, "<checkout>")


def _local(text: str) -> str:
    return text.replace("<checkout>", _CHECKOUT)


def _live(tape: Tape, desc: str, run: Any, keep: bool = False) -> Any:
    error: BaseException | None = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = run()
        except Exception as e:  # noqa: BLE001 - torch's exception is the outcome
            error = e
    warned = [[w.category.__name__, _portable(str(w.message))] for w in caught]
    if error is not None:
        mro = [t.__name__ for t in type(error).__mro__]
        mro = mro[: next((i + 1 for i, n in enumerate(mro) if hasattr(builtins, n)), len(mro))]
        rec, out = ["raise", mro, _portable(str(error))], None
    elif keep:
        rec, out = ["p"], ValueProxy(f"%{tape.new_id()}", value)
    else:
        try:
            rec, out = _encode_result(value, tape)
        except LiveOnly as e:
            tape.live_only = tape.live_only or str(e)
            rec, out = None, _wrap_live(value)
    event = [desc, rec] + ([warned] if warned else [])
    if tape.live_only is None and rec is not None:
        tape.events.append(event)
        _check_against_recording(tape, event)
    for w in caught:
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if error is not None:
        raise error
    return out


def _check_against_recording(tape: Tape, event: list) -> None:
    rec = tape.recorded
    if RECORD or rec is None or "events" not in rec:
        return
    events = rec["events"]
    where = f"tests/data/torch_outcomes/{_file_of(tape.nodeid)}.json"
    redo = f"re-record: JTORCH_RECORD_TORCH=1 python -m pytest -q {tape.nodeid.split('::')[0]}"
    if tape.pos >= len(events):
        pytest.fail(f"{where} records fewer torch operations for this test than it makes ({event[0]}); {redo}")
    want = events[tape.pos]
    tape.pos += 1
    if want[0] != event[0]:
        pytest.fail(f"{where}: the test now asks torch {event[0]}, recorded {want[0]}; {redo}")
    if not _same(want[1], event[1]):
        pytest.fail(f"{where}: torch's outcome of {event[0]} is {event[1]!r:.300}, recorded {want[1]!r:.300}; {redo}")


def _skip(reason: str) -> None:
    where = _tape.nodeid if _tape is not None else "outside a test"
    pytest.skip(f"needs torch: {reason} ({where})")


def _replay(tape: Tape, desc: str) -> Any:
    rec = tape.recorded
    if tape.live_only is not None:
        _skip(tape.live_only)
    if rec is None:
        _skip("no recording of torch's outcomes for this test")
    if "live_only" in rec:
        _skip(rec["live_only"])
    events = rec["events"]
    if tape.pos >= len(events):
        pytest.fail(f"the recording of {tape.nodeid} ends before {desc}; re-record with torch installed")
    want = events[tape.pos]
    tape.pos += 1
    if want[0] != desc:
        pytest.fail(f"the test asks torch {desc}, the recording has {want[0]}: re-record with torch installed")
    for cat, msg in (want[2] if len(want) > 2 else []):
        category = getattr(builtins, cat, UserWarning)
        warnings.warn_explicit(_local(msg), category if isinstance(category, type) else UserWarning, "torch", 0)
    r = want[1]
    if r[0] == "raise":
        raise _exception(r[1], _local(r[2]))
    return _decode_result(r, tape)


# ---------------------------------------------------------------------------------------------------
# the stand-ins
# ---------------------------------------------------------------------------------------------------
def _args_desc(args: tuple, kwargs: dict) -> str:
    parts = [describe(a) for a in args] + [f"{k}={describe(v)}" for k, v in kwargs.items()]
    return ",".join(parts)


def _apply(self: Proxy, name: str, args: tuple) -> Any:
    """Python's own operator semantics (NotImplemented, reflection) on the real objects."""
    obj, real_args = self._resolve(), _real(args)
    base = name.strip("_")
    if base in _OPERATORS:
        return getattr(operator, base + "_" if base in ("and", "or") else base)(obj, *real_args)
    if base.startswith("r") and base[1:] in _BINARY:
        return getattr(operator, base[1:] + "_" if base in ("rand", "ror") else base[1:])(real_args[0], obj)
    if base.startswith("i") and base[1:] in _BINARY:
        return getattr(operator, base)(obj, *real_args)
    return getattr(obj, name)(*real_args)


def _op(self: Proxy, name: str, *args: Any) -> Any:
    try:
        desc = f"{self._desc}.{name}({_args_desc(args, {})})"
    except LiveOnly as e:
        return _live_only(e, lambda: _apply(self, name, args))
    return _event(desc, lambda: _apply(self, name, args))


def _live_only(e: LiveOnly, run: Any) -> Any:
    tape = _tape
    if tape is not None:
        tape.live_only = tape.live_only or str(e)
    if not HAVE_TORCH:
        _skip(str(e))
    return _wrap_live(run())


_BINARY = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor", "lshift",
           "rshift")
_OPERATORS = set(_BINARY) | {"lt", "le", "gt", "ge", "eq", "ne", "neg", "pos", "abs", "invert"}


class Proxy:
    """A torch object (or module path) as the test sees it."""

    __slots__ = ("_desc", "_obj")
    __array_ufunc__ = None  # numpy defers to our reflected operators

    def _resolve(self) -> Any:
        raise NotImplementedError

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            desc = f"{self._desc}({_args_desc(args, kwargs)})"
        except LiveOnly as e:
            return _live_only(e, lambda: self._resolve()(*_real(args), **_real(kwargs)))
        keep = self._desc == "torch.Size"  # a Size the test makes is an argument, not a reading
        return _event(desc, lambda: self._resolve()(*_real(args), **_real(kwargs)), keep)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in Proxy.__slots__:
            object.__setattr__(self, name, value)
            return
        _event(f"{self._desc}.{name}={describe(value)}", lambda: setattr(self._resolve(), name, _real(value)))

    def __getitem__(self, key: Any) -> Any:
        return _event(f"{self._desc}[{describe(key)}]", lambda: self._resolve()[_real(key)])

    def __setitem__(self, key: Any, value: Any) -> None:
        def run() -> None:
            self._resolve()[_real(key)] = _real(value)

        _event(f"{self._desc}[{describe(key)}]={describe(value)}", run)

    def __delitem__(self, key: Any) -> None:
        def run() -> None:
            del self._resolve()[_real(key)]

        _event(f"del {self._desc}[{describe(key)}]", run)

    def __iter__(self) -> Any:
        return iter(_event(f"list({self._desc})", lambda: list(self._resolve())))

    def __len__(self) -> int:
        return _event(f"len({self._desc})", lambda: len(self._resolve()))

    def __bool__(self) -> bool:
        return _event(f"bool({self._desc})", lambda: bool(self._resolve()))

    def __int__(self) -> int:
        return _event(f"int({self._desc})", lambda: int(self._resolve()))

    def __index__(self) -> int:
        return _event(f"index({self._desc})", lambda: self._resolve().__index__())

    def __float__(self) -> float:
        return _event(f"float({self._desc})", lambda: float(self._resolve()))

    def __complex__(self) -> complex:
        return _event(f"complex({self._desc})", lambda: complex(self._resolve()))

    def __str__(self) -> str:
        return _event(f"str({self._desc})", lambda: str(self._resolve()))

    def __repr__(self) -> str:
        return _event(f"repr({self._desc})", lambda: repr(self._resolve()))

    def __format__(self, spec: str) -> str:
        return _event(f"format({self._desc},{spec!r})", lambda: format(self._resolve(), spec))

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        a = _event(f"array({self._desc})", lambda: np.asarray(self._resolve()))
        return np.asarray(a, dtype=dtype)

    def __contains__(self, item: Any) -> bool:
        return _event(f"{describe(item)} in {self._desc}", lambda: _real(item) in self._resolve())

    def __enter__(self) -> Any:
        return _op(self, "__enter__")

    def __exit__(self, *exc: Any) -> Any:
        return _event(f"{self._desc}.__exit__({exc[0].__name__ if exc[0] else None})",
                      lambda: self._resolve().__exit__(*exc))

    def __instancecheck__(self, inst: Any) -> bool:
        return _event(f"isinstance({describe(inst)},{self._desc})", lambda: isinstance(_real(inst), self._resolve()))

    def __mro_entries__(self, bases: tuple) -> tuple:
        if _tape is not None:
            _tape.live_only = _tape.live_only or f"derives a class from {self._desc}"
        if not HAVE_TORCH:
            _skip(f"derives a class from {self._desc}")
        return (self._resolve(),)

    __hash__ = object.__hash__


def _binary(name: str) -> Any:
    def method(self: Proxy, other: Any) -> Any:
        return _op(self, name, other)

    method.__name__ = name
    return method


def _unary(name: str) -> Any:
    def method(self: Proxy) -> Any:
        return _op(self, name)

    method.__name__ = name
    return method


for _n in _BINARY:
    for _p in ("", "r", "i"):
        setattr(Proxy, f"__{_p}{_n}__", _binary(f"__{_p}{_n}__"))
for _n in ("lt", "le", "gt", "ge", "eq", "ne"):
    setattr(Proxy, f"__{_n}__", _binary(f"__{_n}__"))
for _n in ("neg", "pos", "abs", "invert"):
    setattr(Proxy, f"__{_n}__", _unary(f"__{_n}__"))


# torch's dtype aliases: one object each in torch, so one stand-in here
_DTYPE_ALIASES = {f"torch.{a}": f"torch.{d}" for a, d in [
    ("half", "float16"), ("float", "float32"), ("double", "float64"), ("chalf", "complex32"),
    ("cfloat", "complex64"), ("cdouble", "complex128"), ("short", "int16"), ("int", "int32"), ("long", "int64")]}


class PathProxy(Proxy):
    """A name under torch (`torch.nn.functional.relu`, `torch.float32`): resolved only when used."""

    __slots__ = ()
    _interned: ClassVar[dict[str, PathProxy]] = {}

    def __new__(cls, path: str) -> PathProxy:  # one per name: `dtype is torch.float32` holds as in torch
        path = _DTYPE_ALIASES.get(path, path)
        self = cls._interned.get(path)
        if self is None:
            self = cls._interned[path] = object.__new__(cls)
            object.__setattr__(self, "_desc", path)
            object.__setattr__(self, "_obj", None)
        return self

    def _resolve(self) -> Any:
        obj = _torch
        for part in self._desc.split(".")[1:]:
            obj = getattr(obj, part)
        return obj

    def __getattr__(self, name: str) -> Any:
        if name == "__name__":
            return _event(f"{self._desc}.__name__", lambda: self._resolve().__name__)
        if name.startswith("__") and name.endswith("__") and name != "__version__":
            raise AttributeError(name)
        path = f"{self._desc}.{name}"
        _has_name(self, name, path)
        return PathProxy(path)

    def __eq__(self, other: Any) -> Any:  # names compare as names: dtypes are singletons
        if isinstance(other, PathProxy):
            return self._desc == other._desc
        return _op(self, "__eq__", other)

    def __ne__(self, other: Any) -> Any:
        if isinstance(other, PathProxy):
            return self._desc != other._desc
        return _op(self, "__ne__", other)

    def __hash__(self) -> int:
        return hash(self._desc)

    def __repr__(self) -> str:
        return self._desc if _tape is None else Proxy.__repr__(self)

    def __str__(self) -> str:
        return self._desc if _tape is None else Proxy.__str__(self)


def _has_name(parent: PathProxy, name: str, path: str) -> None:
    """Raises torch's AttributeError where torch lacks `path` (recorded per test file, with its text)."""
    if HAVE_TORCH:
        try:
            getattr(parent._resolve(), name)
        except AttributeError as e:
            if RECORD and _tape is not None:
                stem = _file_of(_tape.nodeid)
                _load(stem).setdefault("missing", {})[path] = str(e)
                _dirty.add(stem)
            raise
        return
    if _tape is not None:
        missing = _load(_file_of(_tape.nodeid)).get("missing", {})
        if path in missing:
            raise AttributeError(missing[path])


class ValueProxy(Proxy):
    """A torch object a test made (a tensor, a node, a module): known by the order it was made in."""

    __slots__ = ()

    def __init__(self, desc: str, obj: Any) -> None:
        object.__setattr__(self, "_desc", desc)
        object.__setattr__(self, "_obj", obj)

    def _resolve(self) -> Any:
        return self._obj

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _event(f"{self._desc}.{name}", lambda: getattr(self._obj, name))


def oracle_torch() -> Any:
    """The `torch` a test compares with: real torch, recorded torch, or a skip (see the module text)."""
    return PathProxy("torch")


def can_answer() -> bool:
    """Whether torch (live or recorded) can answer the running test: not a hypothesis test without torch."""
    return HAVE_TORCH or _tape is None or _tape.live_only is None


def live_torch(reason: str) -> Any:
    """Real torch, for a test that cannot be replayed (`reason` says why); skips where torch is absent."""
    if _torch is None:
        _skip(reason)
    return _torch


def type_name(v: Any) -> str:
    """`type(v).__name__`, of the torch object behind a stand-in too."""
    if isinstance(v, Proxy):
        return _event(f"type_name({v._desc})", lambda: type(v._resolve()).__name__)
    return type(v).__name__


def real(v: Any) -> Any:
    """The torch object behind a stand-in (torch installed only)."""
    return _real(v)
