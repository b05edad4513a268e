"""A backend registered after `import jtorch` gets kernels for every operator declared before it.

The test registers a toy PrivateUse1 backend of its own: a NumPy-backed storage class and a
subclass of the typed backend contract (jtorch.backends.Backend) whose methods are small pure-NumPy
loops written here (not jtorch's CPU kernels). It makes tensors on device="privateuseone"
(factories, `.to(...)`, `.cpu()`, `jtorch.tensor(..., device=...)`), runs elementwise operators,
reductions, sort and matmul on them and checks the values against NumPy, checks the dispatcher's
tables, and checks that an operator needing a method the toy leaves out (topk) raises torch's
"Could not run" error. The fixture unregisters the backend and removes its kernels, so other
tests see jtorch as it was.

To add a capability (a pooling, say): implement the contract's method in ToyBackend and add a
test that calls the operator on toy tensors.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jtorch
from jtorch import backends
from jtorch.native import registry
from jtorch.storage import Storage

DEV = "privateuseone"
TOY = jtorch.device(DEV)


# ---- the toy backend: storage and stubs, pure NumPy ----------------------------------------------------
class ToyStorage(Storage):
    """A flat NumPy buffer on the toy device (the storage factory is the class itself)."""

    __slots__ = ("buf",)
    device = TOY

    def __init__(self, numel: int, dtype: jtorch.dtype, device: jtorch.device) -> None:
        assert device.type == DEV
        self.buf = np.empty(numel, dtype.numpy)

    def nbytes(self) -> int:
        return self.buf.nbytes

    def numel(self) -> int:
        return self.buf.shape[0]

    def data_ptr(self) -> int:
        return self.buf.__array_interface__["data"][0] if self.buf.size else 0

    def resize_(self, n: int) -> None:
        if n > self.buf.shape[0]:
            self.buf = np.concatenate([self.buf, np.zeros(n - self.buf.shape[0], self.buf.dtype)])

    def read(self, offset: int):
        return self.buf[offset]

    def copy_to_host(self, offset: int, numel: int) -> np.ndarray:
        return self.buf[offset:offset + numel].copy()

    def copy_from_host(self, offset: int, values: np.ndarray) -> None:
        self.buf[offset:offset + values.shape[0]] = values


def view(t: jtorch.Tensor, shape: tuple | None = None, strides: tuple | None = None) -> np.ndarray:
    """A NumPy view of a toy tensor (or of one TensorIterator operand: its shape and strides)."""
    buf = t._storage.buf
    shape = t._size if shape is None else shape
    strides = t._stride if strides is None else strides
    return np.lib.stride_tricks.as_strided(buf[t._offset:], shape, tuple(s * buf.itemsize for s in strides))


class ToyBackend(backends.Backend):
    """The capabilities the tests below use; every other method stays the contract's (missing)."""

    device_type = DEV
    dispatch_key = "PrivateUse1"

    def allocate(self, numel: int, dtype: jtorch.dtype, device: jtorch.device) -> ToyStorage:
        return ToyStorage(numel, dtype, device)

    def fill(self, t: jtorch.Tensor, value) -> None:
        view(t)[...] = value

    def copy(self, dst: jtorch.Tensor, src: jtorch.Tensor) -> None:
        s = view(src)
        if s.dtype.kind == "c" and dst.dtype.numpy.kind != "c":
            s = s.real if dst.dtype.numpy.kind != "b" else s != 0
        view(dst)[...] = s

    def read_scalar(self, t: jtorch.Tensor):
        return t._storage.buf[t._offset]

    def elementwise(self, it, scalar_fn, extras: tuple) -> None:
        """The scalar function, called in Python on every element of the built TensorIterator."""
        ops = [o.scalar if o.scalar is not None else view(o.tensor, it.shape, tuple(o.strides)) for o in it.operands]
        out, ins = ops[0], ops[1:]
        fn = np.frompyfunc(lambda *xs: scalar_fn(*xs, *extras), len(ins), 1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
            out[...] = np.asarray(fn(*ins)).astype(out.dtype) if ins else fn()

    def reduce(self, it, r, extras: tuple) -> None:
        """An accumulating Reduction (sum, prod, mean, ...) folded in Python from its scalar pieces
        over a built reduce-mode TensorIterator: each input element goes to the output element its
        position maps to (outputs have stride 0 along the reduced dims). Selecting reductions are
        not needed here."""
        assert not r.selecting, "the toy backend folds accumulating reductions only"
        nout = it.num_outputs
        shape = tuple(it.shape) or (1,)
        src = it.operands[nout]
        x = view(src.tensor, shape, tuple(src.strides) or (0,))
        out = view(it.operands[0].tensor, shape, tuple(it.operands[0].strides) or (0,))
        ident = r.identity
        accs: dict = {}
        counts: dict = {}
        # group the input elements by the address of the output element they reduce into
        base = out.__array_interface__["data"][0]
        for idx in np.ndindex(*shape):
            addr = base + sum(i * st for i, st in zip(idx, out.strides))
            v = x[idx].item()
            if r.map is not None:
                v = r.map(v, *extras[:r.map.__code__.co_argcount - 1])
            accs[addr] = r.combine(accs.get(addr, ident), v)
            counts[addr] = counts.get(addr, 0) + 1
        n = max(counts.values()) if counts else 0
        for idx in np.ndindex(*shape):
            addr = base + sum(i * st for i, st in zip(idx, out.strides))
            acc = accs.get(addr, ident)
            out[idx] = r.project(acc, n, *extras[:r.project.__code__.co_argcount - 2]) if r.project is not None else acc

    def sort(self, src: jtorch.Tensor, dim: int, descending: bool, values, indices: jtorch.Tensor) -> None:
        """NumPy's stable argsort (NaN last ascending; descending: the stable order of the negated keys)."""
        a = view(src)
        if a.ndim == 0:
            a = a.reshape(1)
        keys = -a if descending else a
        order = np.argsort(keys, axis=dim, kind="stable")
        view(indices)[...] = order.reshape(view(indices).shape)
        if values is not None:
            view(values)[...] = np.take_along_axis(a, order, dim).reshape(view(values).shape)

    def mm(self, out: jtorch.Tensor, a: jtorch.Tensor, b: jtorch.Tensor, self_=None, beta=0, alpha=1) -> None:
        p = view(a) @ view(b)
        if alpha != 1:
            p = p * alpha
        if self_ is not None and beta != 0:
            p = p + beta * view(self_)
        view(out)[...] = p


# operators declared before the backend exists, one per kind of kernel
DECLARED = ["aten::empty.memory_format", "aten::empty_strided", "aten::fill_.Scalar", "aten::zero_", "aten::copy_",
            "aten::_local_scalar_dense", "aten::add.Tensor", "aten::add.out", "aten::add_.Tensor", "aten::exp",
            "aten::mul.Tensor", "aten::arange.start_out", "aten::uniform_", "aten::sum", "aten::sum.dim_IntList",
            "aten::mean.dim"]


def unregister() -> None:
    """Forget the backend and remove the kernels its registration added (idempotent)."""
    backends.unregister_backend(DEV)
    lib = registry._impl_libs.pop("PrivateUse1", None)
    if lib is not None:
        lib._destroy()


@pytest.fixture(scope="module")
def toy():
    for name in DECLARED:
        assert not jtorch._C._dispatch_has_kernel_for_dispatch_key(name, "PrivateUse1"), name
    backend = backends.register_backend(ToyBackend())
    yield backend
    unregister()


def cpu(t: jtorch.Tensor) -> np.ndarray:
    assert t.device == TOY
    c = t.cpu()
    assert c.device.type == "cpu"
    return c.numpy()


# ---- registration and the dispatcher's tables ------------------------------------------------------------
def test_operators_declared_before_registration_get_privateuse1_kernels(toy):
    for name in DECLARED:
        table = jtorch._C._dispatch_dump_table(name)
        assert "\nPrivateUse1: registered at" in "\n" + table, (name, table)
        assert jtorch._C._dispatch_has_kernel_for_dispatch_key(name, "PrivateUse1")


def test_factories_allocate_toy_storage(toy):
    e = jtorch.empty(2, 3, device=DEV)
    assert e.device == TOY and isinstance(e._storage, ToyStorage) and e.shape == (2, 3) and e.stride() == (3, 1)
    f = jtorch.full((2, 3), 1.5, device=DEV)
    assert isinstance(f._storage, ToyStorage) and f.dtype is jtorch.float32
    np.testing.assert_array_equal(f._storage.buf, np.full(6, 1.5, np.float32))  # written by ToyBackend.fill
    np.testing.assert_array_equal(cpu(f), np.full((2, 3), 1.5, np.float32))
    np.testing.assert_array_equal(cpu(jtorch.zeros(4, dtype=jtorch.int64, device=DEV)), np.zeros(4, np.int64))
    np.testing.assert_array_equal(cpu(jtorch.ones(2, 2, dtype=jtorch.bool, device=DEV)), np.ones((2, 2), bool))
    np.testing.assert_array_equal(cpu(jtorch.arange(5, device=DEV)), np.arange(5))
    np.testing.assert_array_equal(cpu(jtorch.tensor([[1, 2], [3, 4]], device=DEV)), [[1, 2], [3, 4]])
    np.testing.assert_array_equal(cpu(jtorch.eye(3, device=DEV)), np.eye(3, dtype=np.float32))
    assert jtorch.full((), 7, device=DEV).item() == 7
    assert "device='privateuseone'" in repr(f)


def test_to_and_cpu_round_trip_with_conversions(toy):
    a = np.arange(12, dtype=np.float64).reshape(3, 4) - 5.5
    x = jtorch.from_numpy(a)
    t = x.to(DEV)
    assert isinstance(t._storage, ToyStorage) and t.dtype is jtorch.float64
    np.testing.assert_array_equal(cpu(t), a)
    np.testing.assert_array_equal(cpu(x.T.to(DEV)), a.T)                       # a non-contiguous source
    np.testing.assert_array_equal(cpu(x.to(DEV, jtorch.int32)), a.astype(np.int32))
    np.testing.assert_array_equal(cpu(t.to(jtorch.float16)), a.astype(np.float16))  # on the toy: ToyBackend.copy
    np.testing.assert_array_equal(t.T.cpu().numpy(), a.T)                       # a non-contiguous toy source
    y = jtorch.empty(4, 3)
    y.copy_(t.T)                                                               # toy -> CPU into a given tensor
    np.testing.assert_array_equal(y.numpy(), a.T)
    z = jtorch.zeros(3, 4, device=DEV)
    z.copy_(jtorch.tensor([1.0, 2.0, 3.0, 4.0]))                               # CPU -> toy, broadcast
    np.testing.assert_array_equal(cpu(z), np.tile(np.arange(1, 5, dtype=np.float32), (3, 1)))


def test_elementwise_operators_on_the_toy_backend(toy):
    a = np.arange(6, dtype=np.float32).reshape(2, 3) / 4
    b = np.array([1.0, -2.0, 0.5], np.float32)
    ta, tb = jtorch.from_numpy(a).to(DEV), jtorch.from_numpy(b).to(DEV)
    s = ta + tb
    assert isinstance(s._storage, ToyStorage)
    np.testing.assert_array_equal(cpu(s), a + b)
    np.testing.assert_array_equal(cpu(ta * 2 - 1), a * 2 - 1)                 # Python scalars: CPU wrapped numbers
    np.testing.assert_allclose(cpu(jtorch.exp(ta)), np.exp(a), rtol=1e-6)
    np.testing.assert_allclose(cpu(jtorch.exp(jtorch.arange(4, device=DEV))), np.exp(np.arange(4.0, dtype=np.float32)),
                               rtol=1e-6)                                      # int -> float through ToyBackend.copy
    ta.add_(tb, alpha=2)
    np.testing.assert_array_equal(cpu(ta), a + 2 * b)
    out = jtorch.empty(0, device=DEV)
    with pytest.warns(UserWarning, match="resized"):
        jtorch.add(ta, tb, out=jtorch.empty(5, device=DEV))
    jtorch.add(tb, tb, out=out)
    np.testing.assert_array_equal(cpu(out), b + b)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device|device"):
        ta + jtorch.from_numpy(a)


@settings(max_examples=25, deadline=None)
@given(shape=st.lists(st.integers(0, 3), min_size=0, max_size=3).map(tuple),
       dtype=st.sampled_from([np.bool_, np.uint8, np.int32, np.int64, np.float16, np.float32, np.float64,
                              np.complex64]),
       transpose=st.booleans())
def test_round_trip_and_add_match_numpy(toy, shape, dtype, transpose):
    a = np.asarray(np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape) % 7).astype(dtype)
    x = jtorch.from_numpy(a)
    if transpose and len(shape) >= 2:
        x, a = x.transpose(0, 1), a.swapaxes(0, 1)
    t = x.to(DEV)
    np.testing.assert_array_equal(cpu(t), a)
    if dtype is not np.bool_:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            np.testing.assert_array_equal(cpu(t + t), a + a)


def test_reductions_on_the_toy_backend(toy):
    """sum and mean run on a backend registered after import, through its own `reduce` method."""
    a = (np.arange(12, dtype=np.float32).reshape(3, 4) - 5) / 4
    ta = jtorch.from_numpy(a).to(DEV)
    s = ta.sum()
    assert isinstance(s._storage, ToyStorage) and s.dtype is jtorch.float32
    np.testing.assert_allclose(cpu(s), a.sum(), rtol=1e-6)
    np.testing.assert_allclose(cpu(ta.sum(0)), a.sum(0), rtol=1e-6)
    np.testing.assert_allclose(cpu(ta.sum(1, keepdim=True)), a.sum(1, keepdims=True), rtol=1e-6)
    np.testing.assert_allclose(cpu(ta.T.mean(0)), a.T.mean(0), rtol=1e-6)          # non-contiguous input
    ti = jtorch.from_numpy(np.arange(6, dtype=np.int32)).to(DEV)
    r = ti.sum()
    assert r.dtype is jtorch.int64 and cpu(r) == 15                                 # torch's int -> int64 rule


def test_sort_on_the_toy_backend(toy):
    """sort runs through the toy's typed `sort` method (values and indices, both directions, any dim)."""
    a = np.array([[3.0, -1.0, 2.0, -1.0], [0.5, 7.0, 0.5, -2.0]], np.float32)
    ta = jtorch.from_numpy(a).to(DEV)
    for dim in (0, 1, -1):
        v, i = jtorch.sort(ta, dim=dim)
        assert isinstance(v._storage, ToyStorage) and i.dtype is jtorch.int64
        order = np.argsort(a, axis=dim, kind="stable")
        np.testing.assert_array_equal(cpu(i), order)
        np.testing.assert_array_equal(cpu(v), np.take_along_axis(a, order, dim))
    v, i = ta.sort(descending=True)
    order = np.argsort(-a, axis=-1, kind="stable")
    np.testing.assert_array_equal(cpu(i), order)
    np.testing.assert_array_equal(cpu(v), np.take_along_axis(a, order, -1))


def test_matmul_on_the_toy_backend(toy):
    """a @ b, mm and addmm run through the toy's typed `mm` method."""
    a = (np.arange(6, dtype=np.float32).reshape(2, 3) - 2) / 2
    b = (np.arange(12, dtype=np.float32).reshape(3, 4) - 5) / 4
    c = np.full((2, 4), 0.25, np.float32)
    ta, tb, tc = (jtorch.from_numpy(x).to(DEV) for x in (a, b, c))
    r = ta @ tb
    assert isinstance(r._storage, ToyStorage) and r.shape == (2, 4)
    np.testing.assert_allclose(cpu(r), a @ b, rtol=1e-6)
    np.testing.assert_allclose(cpu(jtorch.mm(ta, tb)), a @ b, rtol=1e-6)
    np.testing.assert_allclose(cpu(jtorch.addmm(tc, ta, tb, beta=2, alpha=0.5)), 2 * c + 0.5 * (a @ b), rtol=1e-6)
    np.testing.assert_allclose(cpu(tb.T @ ta.T), (a @ b).T, rtol=1e-6)  # transposed inputs


def _could_not_run(name: str) -> str:
    """The first sentences of torch's error for an operator with no kernel for PrivateUse1."""
    return (f"Could not run '{name}' with arguments from the 'PrivateUse1' backend. This could be because the "
            "operator doesn't exist for this backend, or was omitted during the selective/custom build process (if "
            "using custom build). If you are a Facebook employee using PyTorch on mobile, please visit "
            f"https://fburl.com/ptmfixes for possible resolutions. '{name}' is only available for these backends: [")


def test_cpu_and_cuda_implement_the_whole_contract():
    """Their kernels are registered as they are (no wrapper reporting missing methods on the way)."""
    for device_type in ("cpu", "cuda"):
        b = backends.backend(device_type)
        assert isinstance(b, backends.Backend) and b.missing() == [], (device_type, b.missing())
    assert backends.backend_for_key("CPU") is backends.backend("cpu")


def test_the_contract_lists_what_the_toy_leaves_out(toy):
    assert toy.implements("sort") and toy.implements("mm") and toy.implements("allocate")
    assert not toy.implements("topk") and not toy.implements("max_pool2d")
    missing = toy.missing()
    assert "topk" in missing and "sort" not in missing and "elementwise_contiguous" not in missing  # optional
    with pytest.raises(backends.MissingKernel, match="the PrivateUse1 backend does not implement 'topk'"):
        toy.topk(None, 1, 0, True, None, None)
    with pytest.raises(TypeError, match="register_backend expects a jtorch.backends.Backend"):
        backends.register_backend(object())
    assert backends.register_backend(toy) is toy  # the same backend again: nothing changes
    with pytest.raises(RuntimeError, match="already registered for device type 'privateuseone'"):
        backends.register_backend(ToyBackend())


def test_a_missing_method_gives_torchs_could_not_run_error(toy):
    """topk needs the contract's `topk`, which the toy leaves out: torch's NotImplementedError for the
    operator (not an AttributeError), as if the backend had registered no kernel for it, which is
    what it then has."""
    t = jtorch.from_numpy(np.array([3.0, 1.0, 2.0], np.float32)).to(DEV)
    assert jtorch._C._dispatch_has_kernel_for_dispatch_key("aten::topk", "PrivateUse1")
    with pytest.raises(NotImplementedError) as first:
        jtorch.topk(t, 2)
    text = str(first.value)
    assert text.startswith(_could_not_run("aten::topk")), text
    available = text[len(_could_not_run("aten::topk")):].split("]", 1)[0].split(", ")
    assert "CPU" in available and "PrivateUse1" not in available
    assert not jtorch._C._dispatch_has_kernel_for_dispatch_key("aten::topk", "PrivateUse1")
    with pytest.raises(NotImplementedError) as again:  # now the dispatcher's own missing-kernel path
        jtorch.topk(t, 2)
    assert str(again.value) == text
    with pytest.raises(NotImplementedError, match=r"^Could not run 'aten::max_pool2d_with_indices' with arguments "
                                                  r"from the 'PrivateUse1' backend\. "):
        jtorch.nn.functional.max_pool2d(jtorch.zeros(1, 1, 4, 4, device=DEV), 2)


def test_unregistering_removes_the_kernels(toy):
    """Last in the module: the fixture's teardown then has nothing left to do."""
    unregister()
    for name in DECLARED:
        assert not jtorch._C._dispatch_has_kernel_for_dispatch_key(name, "PrivateUse1")
    with pytest.raises(RuntimeError, match="PrivateUse1"):
        jtorch.empty(1, device=DEV)
    with pytest.raises(RuntimeError, match="no backend is registered for device type 'privateuseone'"):
        backends.backend(DEV)
