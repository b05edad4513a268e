"""The dispatcher's caches: per-operator generated calls and the kernels below Autograd and
ADInplaceOrView kept per key set. Whatever was cached, a registration, a TLS guard, the dispatch
trace and observers must act on the very next call, exactly as without any cache."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import jtorch
from _dispatch_support import ops_ns
from jtorch import _C, dispatcher
from jtorch.keyset import after_autograd_keyset
from jtorch.library import Library


def _pair() -> tuple[jtorch.Tensor, jtorch.Tensor]:
    a = jtorch.from_numpy(np.arange(6, dtype=np.float32).reshape(2, 3))
    return a, a * 2


def _warm(*fns) -> None:
    for _ in range(3):
        for f in fns:
            f()


def test_bindings_call_the_generated_call():
    a, b = _pair()
    op = jtorch.ops.aten.add.Tensor
    assert jtorch.Tensor.__add__.__globals__["_op0"] is dispatcher.op_call(op) is op._entry.call
    assert op._entry.call.__name__ == "call_add_Tensor"
    np.testing.assert_array_equal((a + b).numpy(), a.numpy() + b.numpy())
    assert dispatcher.op_call(len) is len  # not a handle: returned as it is


def test_kernel_registered_after_warm_calls_is_called_next():
    a, b = _pair()
    expected = a.numpy() + b.numpy()
    _warm(lambda: a + b, lambda: jtorch.ops.aten.add.Tensor(a, b))
    seen = []

    def cpu_add(x, y, alpha=1):
        seen.append((x, y))
        return x.sub(y)  # visibly not add

    lib = Library("aten", "IMPL")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # overriding a kernel warns once per process
            lib.impl("add.Tensor", cpu_add, "CPU")
        # the binding's generated call, the handle's generic call, and the Autograd kernel's
        # below-kernel all held the old CPU kernel
        np.testing.assert_array_equal((a + b).numpy(), a.numpy() - b.numpy())
        np.testing.assert_array_equal(jtorch.ops.aten.add.Tensor(a, b).numpy(), a.numpy() - b.numpy())
        r = jtorch.ones(2, 3, requires_grad=True) + b  # recorded: the record's below-kernel too
        np.testing.assert_array_equal(r.detach().numpy(), 1 - b.numpy())
        assert len(seen) == 3
    finally:
        lib._destroy()
    np.testing.assert_array_equal((a + b).numpy(), expected)
    assert len(seen) == 3


def test_view_kernel_registered_after_warm_calls_is_called_next():
    a, _ = _pair()
    _warm(lambda: a.t())
    lib = Library("aten", "IMPL")
    calls = []

    def t_cpu(x):
        calls.append(x)
        return x.transpose(0, 1)

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lib.impl("t", t_cpu, "CPU")
        v = a.t()  # below ADInplaceOrView, which had the old kernel
        assert calls and v._base is a
    finally:
        lib._destroy()
    n = len(calls)
    a.t()
    assert len(calls) == n


def test_tls_guards_act_on_warm_calls():
    x = jtorch.ones(3, requires_grad=True)
    _warm(lambda: x * 2)
    assert (x * 2).grad_fn is not None
    with _C._AutoDispatchBelowAutograd():  # the key set changes: its own cache entry
        assert (x * 2).grad_fn is None
    with _C._ExcludeDispatchKeyGuard(_C.DispatchKeySet(_C.DispatchKey.AutogradCPU)):
        assert (x * 2).grad_fn is None
    assert (x * 2).grad_fn is not None


def test_trace_after_warm_calls_shows_every_step(capsys):
    if dispatcher._trace:
        pytest.skip("JTORCH_SHOW_DISPATCH_TRACE is set for this run")
    a, b = _pair()
    _warm(lambda: a.t(), lambda: a + b)
    capsys.readouterr()
    dispatcher.set_dispatch_trace(True)
    try:
        a.t()
        a + b
    finally:
        dispatcher.set_dispatch_trace(False)
    assert capsys.readouterr().err.splitlines() == [
        "[call] op=[aten::t], key=[AutogradCPU]",
        " [redispatch] op=[aten::t], key=[ADInplaceOrView]",
        "  [redispatch] op=[aten::t], key=[CPU]",
        "[call] op=[aten::add.Tensor], key=[AutogradCPU]",
        " [redispatch] op=[aten::add.Tensor], key=[CPU]",
    ]
    a + b
    assert capsys.readouterr().err == ""


def test_observer_after_warm_calls_sees_binding_calls():
    a, b = _pair()
    _warm(lambda: a + b, lambda: a.sum())
    names = []
    with dispatcher.add_observer(lambda name, ks, args, kwargs: names.append(name)):
        a + b
        a.sum()
    assert names == ["aten::add.Tensor", "aten::sum"]
    a + b
    assert names == ["aten::add.Tensor", "aten::sum"]


def test_fallthrough_and_new_key_kernel_after_warm_calls(ns, libs, make_tensor):
    lib = libs(ns, "DEF")
    lib.define("foo(Tensor x) -> Tensor")
    lib.impl("foo", lambda x: ("cpu", x), "CPU")
    foo, t = ops_ns(ns).foo.default, make_tensor("cpu")
    _warm(lambda: foo(t))
    assert foo(t) == ("cpu", t)
    impl = libs(ns, "IMPL")
    impl.impl("foo", lambda ks, x: ("autograd",) + foo.redispatch(ks & after_autograd_keyset, x),
              "AutogradCPU", with_keyset=True)
    assert foo(t) == ("autograd", "cpu", t)
    impl._destroy()
    assert foo(t) == ("cpu", t)


def test_lookup_that_raced_a_registration_is_not_kept(ns, libs, make_tensor):
    """A lookup read the old table while another thread registered: storing it would keep the old
    kernel past the registration's invalidation. Each registration starts a new generation and only
    a lookup of the current generation is kept."""
    lib = libs(ns, "DEF")
    lib.define("foo(Tensor x) -> Tensor")
    lib.impl("foo", lambda x: "old", "CPU")
    foo, t = ops_ns(ns).foo.default, make_tensor("cpu")
    cache: dict = {}
    generation = dispatcher._generation[0]  # a lookup starts ...
    libs(ns, "IMPL").impl("foo", lambda x: "new", "CPU")  # ... another thread registers ...
    dispatcher._keep(cache, 1, "old lookup", generation)  # ... the lookup ends
    assert cache == {}
    dispatcher._keep(cache, 1, "lookup", dispatcher._generation[0])
    assert cache == {1: "lookup"}
    assert foo(t) == "new"


@pytest.mark.parametrize("args, kwargs", [((1, 2), {}), ((), {}), ((jtorch.ones(2),), {"other": "x"}),
                                          ((jtorch.ones(2), jtorch.ones(2), 1, 2), {})])
def test_generated_call_refuses_bad_arguments_as_the_handle_does(args, kwargs):
    op = jtorch.ops.aten.add.Tensor
    with pytest.raises(Exception) as by_handle:
        op(*args, **kwargs)
    with pytest.raises(Exception) as by_call:
        dispatcher.op_call(op)(*args, **kwargs)
    assert type(by_call.value) is type(by_handle.value)
    assert str(by_call.value) == str(by_handle.value)
