"""batch_norm / layer_norm / group_norm and their modules against torch: values and gradients
(input, weight, bias) in float32 and float64, running statistics after several training steps
(momentum, momentum=None, track_running_stats=False), eval mode, num_batches_tracked and the
version-1 state-dict upgrade, reprs and error texts.
"""
from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest

import jtorch
import jtorch.nn as nn
import jtorch.nn.functional as F
from _torch_oracle import live_torch, oracle_torch

torch = oracle_torch()
TF = torch.nn.functional
TOL = {np.float32: 5e-5, np.float64: 1e-10}


def rand(shape, dtype=np.float64, seed=0, scale=1.0, shift=0.0):
    return (np.random.default_rng(seed).standard_normal(shape) * scale + shift).astype(dtype)


def close(j, t, tol):
    np.testing.assert_allclose(j.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol)


def compare(jfn, tfn, arrays, tol, grads):
    js = [jtorch.tensor(a, requires_grad=i in grads) for i, a in enumerate(arrays)]
    ts = [torch.tensor(a, requires_grad=i in grads) for i, a in enumerate(arrays)]
    jy, ty = jfn(*js), tfn(*ts)
    close(jy, ty, tol)
    g = rand(tuple(ty.shape), arrays[0].dtype, 9)
    jy.backward(jtorch.tensor(g)), ty.backward(torch.tensor(g))
    for i in grads:
        close(js[i].grad, ts[i].grad, tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 5), (2, 3, 4, 4)])
def test_batch_norm_functional_training(shape, dtype):
    x = rand(shape, dtype, 0, 2.0, 1.0)
    w, b = rand((3,), dtype, 1), rand((3,), dtype, 2)
    jrm, jrv = jtorch.zeros(3, dtype=jtorch.tensor(x).dtype), jtorch.ones(3, dtype=jtorch.tensor(x).dtype)
    trm, trv = torch.zeros(3, dtype=torch.tensor(x).dtype), torch.ones(3, dtype=torch.tensor(x).dtype)
    compare(lambda a, c, d: F.batch_norm(a, jrm, jrv, c, d, training=True, momentum=0.3),
            lambda a, c, d: TF.batch_norm(a, trm, trv, c, d, training=True, momentum=0.3), [x, w, b], TOL[dtype],
            (0, 1, 2))
    close(jrm, trm, TOL[dtype]), close(jrv, trv, TOL[dtype])
    # no running statistics, no affine
    compare(lambda a: F.batch_norm(a, None, None, training=True),
            lambda a: TF.batch_norm(a, None, None, training=True), [x], TOL[dtype], (0,))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_batch_norm_functional_eval(dtype):
    x = rand((4, 3, 5), dtype, 0)
    rm, rv = rand((3,), dtype, 3), np.abs(rand((3,), dtype, 4)) + 0.5
    w, b = rand((3,), dtype, 1), rand((3,), dtype, 2)
    compare(lambda a, m, v, c, d: F.batch_norm(a, m, v, c, d, eps=1e-3),
            lambda a, m, v, c, d: TF.batch_norm(a, m, v, c, d, eps=1e-3), [x, rm, rv, w, b], TOL[dtype], (0, 3, 4))


@pytest.mark.parametrize("cls,shape", [("BatchNorm1d", (8, 4)), ("BatchNorm1d", (5, 4, 3)),
                                       ("BatchNorm2d", (3, 4, 5, 5)),
                                       ("BatchNorm3d", (2, 4, 2, 3, 2))])
@pytest.mark.parametrize("kw", [{}, {"momentum": None}, {"momentum": 0.5, "affine": False},
                                {"track_running_stats": False}, {"eps": 1e-3}, {"bias": False}])
def test_batch_norm_modules_steps(cls, shape, kw):
    jm, tm = getattr(nn, cls)(4, **kw), getattr(torch.nn, cls)(4, **kw)
    assert repr(jm) == repr(tm)
    assert list(jm.state_dict()) == list(tm.state_dict())
    opt_w = []
    for step in range(4):
        x = rand(shape, np.float32, step, 1.0 + step, step - 1.0)
        jx, tx = jtorch.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        jy, ty = jm(jx), tm(tx)
        close(jy, ty, 5e-5)
        (jy * jy).sum().backward(), (ty * ty).sum().backward()
        close(jx.grad, tx.grad, 5e-4)
        opt_w += [(jp.grad, tp.grad) for jp, tp in zip(jm.parameters(), tm.parameters())]
    for jg, tg in opt_w:
        close(jg, tg, 5e-3)
    for (jk, jv), (tk, tv) in zip(jm.state_dict().items(), tm.state_dict().items()):
        assert jk == tk
        close(jv, tv, 1e-5)
    # eval: the running statistics (batch ones without tracking), no update
    jm.eval(), tm.eval()
    x = rand(shape, np.float32, 11)
    close(jm(jtorch.tensor(x)), tm(torch.tensor(x)), 5e-5)
    for (jk, jv), (tk, tv) in zip(jm.state_dict().items(), tm.state_dict().items()):
        close(jv, tv, 1e-5)


def test_num_batches_tracked_and_old_state_dicts():
    torch = live_torch("torch's modules hold the test's tensors and modules")
    jm, tm = nn.BatchNorm2d(3), torch.nn.BatchNorm2d(3)
    assert jm.num_batches_tracked.dtype == jtorch.int64 and int(jm.num_batches_tracked) == 0
    x = rand((2, 3, 2, 2), np.float32)
    for _ in range(3):
        jm(jtorch.tensor(x)), tm(torch.tensor(x))
    assert int(jm.num_batches_tracked) == int(tm.num_batches_tracked) == 3
    # a version-1 state dict has no num_batches_tracked: it loads with 0
    sd = OrderedDict((k, v) for k, v in jm.state_dict().items() if k != "num_batches_tracked")
    sd._metadata = OrderedDict({"": {"version": 1}})
    fresh = nn.BatchNorm2d(3)
    fresh.num_batches_tracked.fill_(5)
    assert fresh.load_state_dict(sd).missing_keys == []
    assert int(fresh.num_batches_tracked) == 5  # torch keeps the module's own value
    # a version-2 state dict without it is a missing key, as in torch
    for mod, model in ((nn, jm), (torch.nn, tm)):
        sd2 = OrderedDict((k, v) for k, v in model.state_dict().items() if k != "num_batches_tracked")
        sd2._metadata = OrderedDict({"": {"version": 2}})
        with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "num_batches_tracked"'):
            mod.BatchNorm2d(3).load_state_dict(sd2)
    jm.reset_running_stats()
    assert int(jm.num_batches_tracked) == 0 and float(jm.running_var.sum()) == 3.0


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("nshape", [(5,), (4, 5)])
def test_layer_norm(nshape, dtype):
    x = rand((3, 4, 5), dtype, 0, 3.0, 2.0)
    w, b = rand(nshape, dtype, 1), rand(nshape, dtype, 2)
    compare(lambda a, c, d: F.layer_norm(a, nshape, c, d),
            lambda a, c, d: TF.layer_norm(a, nshape, c, d), [x, w, b], TOL[dtype], (0, 1, 2))
    compare(lambda a: F.layer_norm(a, nshape, eps=1e-2), lambda a: TF.layer_norm(a, nshape, eps=1e-2),
            [x], TOL[dtype], (0,))


@pytest.mark.parametrize("kw", [{}, {"elementwise_affine": False}, {"bias": False}, {"eps": 1e-3}])
def test_layer_norm_module(kw):
    jm, tm = nn.LayerNorm([4, 5], **kw), torch.nn.LayerNorm([4, 5], **kw)
    assert repr(jm) == repr(tm)
    assert repr(nn.LayerNorm(7)) == repr(torch.nn.LayerNorm(7))
    assert list(jm.state_dict()) == list(tm.state_dict())
    x = rand((2, 4, 5), np.float32, 0)
    jx, tx = jtorch.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    jy, ty = jm(jx), tm(tx)
    close(jy, ty, 5e-5)
    (jy * jy * jy).sum().backward(), (ty * ty * ty).sum().backward()
    close(jx.grad, tx.grad, 5e-4)
    for jp, tp in zip(jm.parameters(), tm.parameters()):
        close(jp.grad, tp.grad, 5e-4)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,groups", [((2, 6), 3), ((2, 6, 5), 2), ((3, 4, 3, 3), 4), ((2, 4, 3, 3), 1)])
def test_group_norm(shape, groups, dtype):
    x = rand(shape, dtype, 0, 2.0, 1.0)
    w, b = rand((shape[1],), dtype, 1), rand((shape[1],), dtype, 2)
    compare(lambda a, c, d: F.group_norm(a, groups, c, d),
            lambda a, c, d: TF.group_norm(a, groups, c, d), [x, w, b], TOL[dtype], (0, 1, 2))
    jm, tm = nn.GroupNorm(groups, shape[1]), torch.nn.GroupNorm(groups, shape[1])
    assert repr(jm) == repr(tm)
    compare(jm, tm, [x.astype(np.float32)], 5e-5, (0,))


def raises_like(jcall, tcall):
    with pytest.raises(Exception) as texc:
        tcall()
    with pytest.raises(type(texc.value)) as jexc:
        jcall()
    assert str(jexc.value) == str(texc.value).replace("torch.Size", "jtorch.Size")


ERRORS = [
    lambda m, n, f: f.batch_norm(m.zeros(3, 4), None, None, training=False),
    lambda m, n, f: f.batch_norm(m.zeros(3, 4), m.zeros(3), m.ones(3), training=False),
    lambda m, n, f: f.batch_norm(m.zeros(1, 4), None, None, training=True),
    lambda m, n, f: f.batch_norm(m.zeros(2, 4), None, None, training=True, eps=0.0),
    lambda m, n, f: f.layer_norm(m.zeros(3, 4), [3]),
    lambda m, n, f: f.layer_norm(m.zeros(3, 4), [4], weight=m.ones(3)),
    lambda m, n, f: f.layer_norm(m.zeros(3, 4), [4], bias=m.ones(2)),
    lambda m, n, f: f.group_norm(m.zeros(2, 6, 4), 4),
    lambda m, n, f: f.group_norm(m.zeros(2, 6, 4), 3, weight=m.ones(5)),
    lambda m, n, f: f.group_norm(m.zeros(6), 3),
    lambda m, n, f: f.group_norm(m.zeros(1, 6), 6),
    lambda m, n, f: n.BatchNorm1d(4)(m.zeros(2, 4, 3, 3)),
    lambda m, n, f: n.BatchNorm2d(4)(m.zeros(2, 4)),
    lambda m, n, f: n.BatchNorm3d(4)(m.zeros(2, 4)),
    lambda m, n, f: n.BatchNorm1d(4)(m.zeros(1, 4)),
    lambda m, n, f: n.GroupNorm(4, 6),
    lambda m, n, f: n.GroupNorm(0, 6),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors(case):
    raises_like(lambda: ERRORS[case](jtorch, nn, F), lambda: ERRORS[case](torch, torch.nn, TF))


def test_reprs_and_defaults():
    cases = [("BatchNorm1d", (16,), {}), ("BatchNorm2d", (8,), {"eps": 1e-3, "momentum": None, "affine": False}),
             ("BatchNorm2d", (8,), {"track_running_stats": False}), ("GroupNorm", (2, 6), {"affine": False}),
             ("GroupNorm", (2, 6), {"bias": False}), ("LayerNorm", ((2, 3),), {"elementwise_affine": False})]
    for name, args, kw in cases:
        jm, tm = getattr(nn, name)(*args, **kw), getattr(torch.nn, name)(*args, **kw)
        assert repr(jm) == repr(tm)
        for (jk, jv), (tk, tv) in zip(jm.state_dict().items(), tm.state_dict().items()):
            assert jk == tk
            np.testing.assert_array_equal(jv.numpy(), tv.numpy())
        assert [n for n, _ in jm.named_parameters()] == [n for n, _ in tm.named_parameters()]
        assert [n for n, _ in jm.named_buffers()] == [n for n, _ in tm.named_buffers()]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("nshape,eps", [((5,), None), ((4, 5), 1e-3)])
def test_rms_norm(nshape, eps, dtype):
    x = rand((3, 4, 5), dtype, 0, 3.0, 1.0)
    w = rand(nshape, dtype, 1)
    compare(lambda a, c: F.rms_norm(a, nshape, c, eps), lambda a, c: TF.rms_norm(a, nshape, c, eps),
            [x, w], TOL[dtype], (0, 1))
    jm, tm = nn.RMSNorm(nshape, eps=eps), torch.nn.RMSNorm(nshape, eps=eps)
    assert repr(jm) == repr(tm)
    assert repr(nn.RMSNorm(3, elementwise_affine=False)) == repr(torch.nn.RMSNorm(3, elementwise_affine=False))
    compare(jm.to(jtorch.float64), tm.double(), [x.astype(np.float64)], 1e-10, (0,))


@pytest.mark.parametrize("cls,shape", [("InstanceNorm1d", (3, 4, 6)), ("InstanceNorm1d", (4, 6)),
                                       ("InstanceNorm2d", (2, 4, 3, 3)), ("InstanceNorm3d", (2, 4, 2, 2, 3))])
@pytest.mark.parametrize("kw", [{}, {"affine": True, "track_running_stats": True, "momentum": 0.3}])
def test_instance_norm_modules(cls, shape, kw):
    jm, tm = getattr(nn, cls)(4, **kw), getattr(torch.nn, cls)(4, **kw)
    assert repr(jm) == repr(tm)
    assert list(jm.state_dict()) == list(tm.state_dict())
    for step in range(3):
        x = rand(shape, np.float64, step, 1.0 + step, step)
        compare(jm.double(), tm.double(), [x], 1e-10, (0,))
    for (k, jv), (_, tv) in zip(jm.state_dict().items(), tm.state_dict().items()):
        close(jv, tv, 1e-10)
        assert k
    jm.eval(), tm.eval()
    x = rand(shape, np.float64, 9)
    close(jm(jtorch.tensor(x)), tm(torch.tensor(x)), 1e-10)


INSTANCE_ERRORS = [
    lambda m, n, f: f.instance_norm(m.zeros(2, 3, 4), use_input_stats=False),
    lambda m, n, f: f.instance_norm(m.zeros(2, 3, 1)),
    lambda m, n, f: f.rms_norm(m.zeros(2, 3), [4, 5]),
    lambda m, n, f: f.rms_norm(m.zeros(2, 4), [4], weight=m.ones(3)),
    lambda m, n, f: n.InstanceNorm1d(4, affine=True)(m.zeros(2, 3, 5)),
    lambda m, n, f: n.InstanceNorm2d(4)(m.zeros(2, 3)),
]


@pytest.mark.parametrize("case", range(len(INSTANCE_ERRORS)))
def test_instance_and_rms_errors(case):
    raises_like(lambda: INSTANCE_ERRORS[case](jtorch, nn, F), lambda: INSTANCE_ERRORS[case](torch, torch.nn, TF))


@pytest.mark.parametrize("dtype", ["int64", "bool", "complex64"])
@pytest.mark.parametrize("fn", ["layer_norm", "group_norm", "batch_norm", "batch_norm_eval", "instance_norm"])
def test_norm_refuses_non_floating_input_with_torch_text(fn: str, dtype: str) -> None:
    def call(T):
        x = T.arange(24).view(2, 3, 4).to(getattr(T, dtype))
        f = T.nn.functional
        return {"layer_norm": lambda: f.layer_norm(x, (4,)), "group_norm": lambda: f.group_norm(x, 3),
                "batch_norm": lambda: f.batch_norm(x, None, None, training=True),
                "batch_norm_eval": lambda: f.batch_norm(x, T.zeros(3), T.ones(3)),
                "instance_norm": lambda: f.instance_norm(x)}[fn]()

    torch = oracle_torch()
    raises_like(lambda: call(jtorch), lambda: call(torch))


_RUNNING = np.random.default_rng(5).random((2, 3)) + 0.5  # an eval-mode running mean and variance


@pytest.mark.parametrize("case", ["layer_norm", "layer_norm_nw", "group_norm", "batch_norm", "batch_norm_running",
                                  "batch_norm_eval", "instance_norm"])
def test_norm_gradients_gradcheck_and_gradgradcheck(case: str) -> None:
    """native_layer_norm / native_group_norm / native_batch_norm's formulas, first and second order."""
    rng = np.random.default_rng(0)

    def t(*shape: int) -> jtorch.Tensor:
        return jtorch.tensor(rng.standard_normal(shape), dtype=jtorch.float64, requires_grad=True)

    rm, rv = (jtorch.tensor(r, dtype=jtorch.float64) for r in _RUNNING)
    fn, args = {
        "layer_norm": (lambda x, w, b: F.layer_norm(x, (3, 4), w, b), (t(2, 3, 4), t(3, 4), t(3, 4))),
        "layer_norm_nw": (lambda x: F.layer_norm(x, (4,)), (t(2, 3, 4),)),
        "group_norm": (lambda x, w, b: F.group_norm(x, 2, w, b), (t(2, 4, 3), t(4), t(4))),
        "batch_norm": (lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), (t(4, 3), t(3), t(3))),
        "batch_norm_running": (lambda x: F.batch_norm(x, rm.clone(), rv.clone(), training=True), (t(4, 3, 2),)),
        "batch_norm_eval": (lambda x, w, b: F.batch_norm(x, rm, rv, w, b), (t(4, 3, 2), t(3), t(3))),
        "instance_norm": (lambda x, w, b: F.instance_norm(x, None, None, w, b), (t(2, 3, 4), t(3), t(3))),
    }[case]
    assert jtorch.autograd.gradcheck(fn, args)
    assert jtorch.autograd.gradgradcheck(fn, args)
