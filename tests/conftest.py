"""Shared fixtures for the dispatcher tests: stand-in tensors, unique namespaces, libraries that clean up."""
from __future__ import annotations

import hashlib

import _torch_oracle
import pytest

from jtorch.keyset import DispatchKey as DK
from jtorch.keyset import DispatchKeySet


class StandIn:
    """The least a dispatcher argument needs until the Tensor class lands: a `_key_set` int."""

    __slots__ = ("_key_set", "tag")

    def __init__(self, keys: "DispatchKeySet | int", tag: str = "t") -> None:
        self._key_set = int(keys)
        self.tag = tag

    def __repr__(self) -> str:
        return f"StandIn({self.tag})"


# The key set of a plain (non-inference) tensor per backend, as getAutogradRelatedKeySetFromBackend builds it.
_BACKEND_KEYS = {
    "cpu": (DK.CPU, DK.AutogradCPU),
    "cuda": (DK.CUDA, DK.AutogradCUDA),
    "privateuseone": (DK.PrivateUse1, DK.AutogradPrivateUse1),
    "meta": (DK.Meta, DK.AutogradMeta),
}


def tensor_keyset(device: str) -> DispatchKeySet:
    backend, autograd = _BACKEND_KEYS[device]
    return DispatchKeySet([backend, DK.ADInplaceOrView, autograd])


def stand_in(device: str = "cpu", tag: str | None = None) -> StandIn:
    return StandIn(tensor_keyset(device), tag or device)


@pytest.fixture
def make_tensor():
    """make_tensor('cpu'|'cuda'|'privateuseone'|'meta', tag=None) -> a stand-in tensor."""
    return stand_in




@pytest.fixture
def ns(request) -> str:
    """A namespace no other test uses (namespaces outlive a test only if a library leaks)."""
    # named after the test, not a counter: torch's recorded answers name it (tests/_torch_oracle.py)
    return f"jt_test_{hashlib.sha1(request.node.nodeid.encode()).hexdigest()[:12]}"


@pytest.fixture
def libs():
    """libs(ns, kind, dispatch_key='') -> Library, destroyed (newest first) when the test ends."""
    from jtorch.library import Library

    made: list = []

    def make(ns: str, kind: str, dispatch_key: str = ""):
        lib = Library(ns, kind, dispatch_key)
        made.append(lib)
        return lib

    yield make
    for lib in reversed(made):
        lib._destroy()


@pytest.fixture
def clean_dispatch_state():
    """Fails the test if it leaves TLS, tracing or observers changed (and puts them back)."""
    from jtorch import dispatcher, tls

    before = (tls.local.included, tls.local.excluded, dispatcher._trace, len(dispatcher._observers))
    yield
    after = (tls.local.included, tls.local.excluded, dispatcher._trace, len(dispatcher._observers))
    tls.set_included(before[0])
    tls.set_excluded(before[1])
    if after[2] != before[2]:
        dispatcher.set_dispatch_trace(before[2])
    assert after == before, "test leaked dispatcher state"


@pytest.fixture
def no_leaks(clean_dispatch_state, monkeypatch):
    """No leaked dispatcher state, and kernel overrides do not spend the once-per-process override
    warning (test_override_warning_once re-arms it for itself); monkeypatch restores the flag."""
    from jtorch import dispatcher

    monkeypatch.setattr(dispatcher.registry, "_warned_override", True)
    yield


# tests/cuda runs in a process of its own (under the simulator, or on a GPU): see tests/cuda/conftest.py
import os as _os

if not (_os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0") or _os.environ.get("JTORCH_TEST_CUDA")):
    collect_ignore = ["cuda"]


# ---- torch as an oracle: each test's torch operations run live, are recorded, or are replayed ----
@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    callspec = getattr(item, "callspec", None)
    by_index = f"{item.originalname}[{'-'.join(map(str, callspec.indices.values()))}]" if callspec else ""
    _torch_oracle.begin_test(item.nodeid, getattr(item, "obj", None), by_index)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call":
        item._torch_oracle_passed = report.passed


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item):
    _torch_oracle.end_test(getattr(item, "_torch_oracle_passed", False))


def pytest_collection_modifyitems(config, items):
    """A recording run (JTORCH_RECORD_TORCH=1) runs only the tests that can ask torch something."""
    if not _torch_oracle.RECORD:
        return
    import inspect

    keep, drop = [], []
    for item in items:
        fn = getattr(item, "function", None)
        module = getattr(item, "module", None)
        # a module that asks the oracle anywhere (a module-level torch, or helpers the tests call)
        whole = module is not None and "oracle_torch()" in inspect.getsource(module)
        src = inspect.getsource(fn) if fn is not None else ""
        hyp = getattr(fn, "is_hypothesis_test", False)
        (keep if (whole or _torch_oracle.may_use_torch(src)) and not hyp else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def pytest_sessionfinish(session):
    if _torch_oracle.RECORD:
        _torch_oracle.write_recordings()
