"""The indexing, selection and search operators against torch 2.13, case by case: each test states
torch's behaviour (recorded here, and compared with torch itself where it is installed) where
jtorch used to differ: index_select's path-dependent out-of-range errors, index_reduce's and
index_fill's dtype errors, nonzero's column-major result, masked_fill/masked_scatter's contiguous
result, histc's and kthvalue/mode's out= resizing, mode and repeat_interleave on meta tensors,
unique with dim, rot90's text, isin's scalar types, row_stack, the parser's NumPy keyword names
(axis=, keepdims=), NumPy bool/complex64 scalars, and the Tensor[] element error.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import jtorch
from _reduction_support import check_error, torch_or_none

RESIZE = ("An output with one or more elements was resized since it had shape {}, which does not match the "
          "required output shape {}.")


def _libs() -> list:
    """jtorch, and torch where installed: every behaviour below is checked on both."""
    torch = torch_or_none()
    return [jtorch] if torch is None else [jtorch, torch]


def _warnings(fn) -> list:
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        fn()
    return [str(x.message) for x in w]


# ---- index_select: the error depends on CPU path ------------------------------------------------
@pytest.mark.parametrize("call, exc, text", [
    # dim 0 (and 1-D self): TORCH_CHECK_INDEX
    (lambda T: T.index_select(T.arange(12.).reshape(3, 4), 0, T.tensor([5])), IndexError,
     "index out of range in self"),
    (lambda T: T.index_select(T.arange(4.), 0, T.tensor([-1])), IndexError, "index out of range in self"),
    # dim 1 with a contiguous result: index_select_out_cpu_dim1_'s range check
    (lambda T: T.index_select(T.arange(12.).reshape(3, 4), 1, T.tensor([0, 5])), RuntimeError,
     "INDICES element is out of DATA bounds, id=5 axis_dim=4"),
    (lambda T: T.index_select(T.arange(12.).reshape(3, 4), 1, T.tensor([-1], dtype=T.int32)), RuntimeError,
     "INDICES element is out of DATA bounds, id=-1 axis_dim=4"),
    (lambda T: T.index_select(T.arange(12.).reshape(3, 4).t(), 1, T.tensor([3])), RuntimeError,
     "INDICES element is out of DATA bounds, id=3 axis_dim=3"),
    # dim 1 into a non-contiguous out: the generic path again
    (lambda T: T.index_select(T.arange(12.).reshape(3, 4), 1, T.tensor([0, 5]), out=T.empty(2, 3).t()),
     IndexError, "index out of range in self"),
    # an empty self of 2+ dims
    (lambda T: T.index_select(T.zeros(0, 3), 0, T.tensor([5])), RuntimeError,
     "index_select(): self indexing axis dim should be positive"),
    (lambda T: T.index_select(T.zeros(3, 0), 0, T.tensor([5])), RuntimeError,
     "INDICES element is out of DATA bounds, id=5 axis_dim=3"),
])
def test_index_select_out_of_range_errors(call, exc, text):
    check_error(call, exc, text)


# ---- index_reduce / index_fill dtype errors -------------------------------------------------------
@pytest.mark.parametrize("dtype", ["bool", "complex64"])
@pytest.mark.parametrize("include_self, kernel", [(True, "index_func_"), (False, "index_reduce_func_exclude_input_init")])
@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
def test_index_reduce_refuses_bool_and_complex(dtype, include_self, kernel, reduce):
    name = {"bool": "Bool", "complex64": "ComplexFloat"}[dtype]
    for T in _libs():
        d = getattr(T, dtype)
        for n in (3, 0):  # the dtype dispatch runs even with nothing to do
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with pytest.raises(NotImplementedError) as e:
                    T.zeros(n, dtype=d).index_reduce(0, T.ones(min(n, 1), dtype=T.long), T.ones(min(n, 1), dtype=d), reduce,
                                                     include_self=include_self)
            assert str(e.value) == f"\"{kernel}\" not implemented for '{name}'"
        # meta tensors have no kernel to refuse them
        m = T.empty(3, dtype=d, device="meta").index_reduce(
            0, T.empty(1, dtype=T.long, device="meta"), T.empty(1, dtype=d, device="meta"), reduce)
        assert tuple(m.shape) == (3,)


def test_index_fill_refuses_a_complex_value_for_a_real_tensor():
    text = "index_fill_(): Converting complex Scalar to non-complex type is not supported"
    check_error(lambda T: T.zeros(3).index_fill(0, T.tensor([1]), 1j), RuntimeError, text)
    check_error(lambda T: T.zeros(3, dtype=T.int64).index_fill_(0, T.tensor([1]), T.tensor(0j)), RuntimeError, text)
    for T in _libs():
        assert T.zeros(2, dtype=T.complex64).index_fill(0, T.tensor([1]), 1j)[1].item() == 1j


# ---- nonzero: a column-major (N, ndim) result ------------------------------------------------------
def test_nonzero_result_is_column_major():
    for T in _libs():
        m = T.tensor([[True, False, True], [False, True, True]])
        r = T.nonzero(m)
        assert r.tolist() == [[0, 0], [0, 2], [1, 1], [1, 2]]
        assert r.stride() == (1, 4) and not r.is_contiguous()
        assert T.argwhere(m).stride() == (1, 4)
        rows, cols = T.nonzero(m, as_tuple=True)  # unbind(1): each one contiguous, so view() works
        assert rows.is_contiguous() and cols.is_contiguous()
        assert cols.view(2, 2).tolist() == [[0, 2], [1, 2]]
        assert [t.tolist() for t in T.where(m)] == [[0, 0, 1, 1], [0, 2, 1, 2]]
        assert T.nonzero(T.zeros(2, 3)).stride() == (1, 0)
        assert T.nonzero(T.tensor(5)).stride() == (1, 1)


def test_nonzero_out_strides_and_overlap():
    for T in _libs():
        m = T.tensor([[1, 0], [1, 1]])
        fresh = T.empty(0, dtype=T.long)  # resized: column-major
        T.nonzero(m, out=fresh)
        assert fresh.stride() == (1, 3) and fresh.tolist() == [[0, 0], [1, 0], [1, 1]]
        exact = T.empty(3, 2, dtype=T.long)  # already of the right shape: kept as it is
        T.nonzero(m, out=exact)
        assert exact.stride() == (2, 1) and exact.tolist() == [[0, 0], [1, 0], [1, 1]]
    check_error(lambda T: (lambda a: T.nonzero(a, out=a))(T.tensor([[1, 1]])), RuntimeError,
                "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
                "memory location. Please clone() the tensor before performing the operation.")


# ---- masked_fill / masked_scatter: clone(contiguous) -----------------------------------------------
def test_masked_fill_and_scatter_results_are_contiguous():
    for T in _libs():
        x = T.arange(12.).reshape(3, 4).t()  # strides (1, 4)
        mask = (T.arange(12).reshape(3, 4) % 3 == 0).t()
        for r in (x.masked_fill(mask, -1.), x.masked_fill(mask, T.tensor(-1.)), x.masked_scatter(mask, -x),
                  x.masked_fill(T.tensor(True), 0.)):
            assert r.shape == (4, 3) and r.stride() == (3, 1)
        assert x.masked_fill(mask, -1.).tolist()[0] == [-1.0, 4.0, 8.0]


# ---- histc -------------------------------------------------------------------------------------------
def test_histc_out_resize_warns_and_bool_text():
    for T in _libs():
        out = T.zeros(2)
        got = _warnings(lambda: T.histc(T.tensor([1., 2., 3.]), bins=4, out=out))
        assert len(got) == 1 and got[0].startswith(RESIZE.format("[2]", "[4]"))
        assert out.tolist() == [1.0, 0.0, 1.0, 1.0]
        assert _warnings(lambda: T.histc(T.tensor([1., 2.]), bins=4, out=T.zeros(0))) == []
    check_error(lambda T: T.histc(T.tensor([True, False]), 3), NotImplementedError,
                "\"linspace_cpu\" not implemented for 'Bool'")
    check_error(lambda T: T.histc(T.tensor([1, 2]), 3), NotImplementedError,
                "\"histogram_cpu\" not implemented for 'Long'")


# ---- kthvalue / mode: out= resized with the reduced dim kept --------------------------------------
# (out, dim, expected warning shapes or None): kthvalue unsqueezes an out of one dim fewer than self,
# mode (compare_base_kernel_core) an out of at least `dim` dims, before resizing to the kept shape
_KTH_CASES = [((7,), 1, ("[7]", "[2, 1, 4]")), ((2, 5), 1, ("[2, 1, 5]", "[2, 1, 4]")), ((2, 1, 4), 1, None),
              ((0,), 1, None), ((2, 4), 1, None), ((7,), 0, ("[7]", "[1, 3, 4]")), ((7,), 2, ("[7]", "[2, 3, 1]"))]
_MODE_CASES = [((7,), 1, ("[7, 1]", "[2, 1, 4]")), ((2, 5), 1, ("[2, 1, 5]", "[2, 1, 4]")),
               ((2, 1, 4), 1, ("[2, 1, 1, 4]", "[2, 1, 4]")), ((0,), 1, None), ((2, 4), 1, None),
               ((7,), 0, ("[1, 7]", "[1, 3, 4]")), ((7,), 2, ("[7]", "[2, 3, 1]")), ((), 1, ("[]", "[2, 1, 4]"))]


@pytest.mark.parametrize("fn, cases", [("kthvalue", _KTH_CASES), ("mode", _MODE_CASES)])
def test_reduced_out_resize_like_torch(fn, cases):
    for T in _libs():
        x = T.tensor([[[1., 5, 2, 7], [1, 5, 3, 8], [9, 6, 3, 7]], [[0, 0, 4, 4], [2, 2, 4, 5], [2, 1, 6, 5]]])
        for shape, dim, shapes in cases:
            out = T.zeros(shape)
            if fn == "kthvalue":
                got = _warnings(lambda: T.kthvalue(x, 1, dim, out=(out, T.zeros(0, dtype=T.long))))
                want_values = x.min(dim).values
            else:
                got = _warnings(lambda: T.mode(x, dim, out=(out, T.zeros(0, dtype=T.long))))
                want_values = T.mode(x, dim).values
            want = [] if shapes is None else [RESIZE.format(*shapes)]
            assert len(got) == len(want) and all(g.startswith(w) for g, w in zip(got, want)), got
            assert out.shape == want_values.shape and out.is_contiguous()
            assert out.tolist() == want_values.tolist()
        t = T.zeros(4, 2).t()  # the right shape, not contiguous: written in place
        getattr(T, fn)(*((x, 1, 1) if fn == "kthvalue" else (x, 1)), out=(t, T.zeros(2, 4, dtype=T.long)))
        assert t.stride() == (1, 2)


def test_mode_of_a_0dim_tensor_resizes_out_silently():
    for T in _libs():
        out = (T.zeros(3), T.zeros(3, dtype=T.long))
        assert _warnings(lambda: T.mode(T.tensor(3.), 0, True, out=out)) == []
        assert out[0].shape == () and out[0].item() == 3.0 and out[1].item() == 0


def test_mode_on_meta_tensors():
    for T in _libs():
        v, i = T.mode(T.empty(2, 3, device="meta"))
        assert (tuple(v.shape), v.dtype, tuple(i.shape), i.dtype) == ((2,), T.float32, (2,), T.int64)
        v, i = T.mode(T.empty(2, 3, device="meta", dtype=T.complex64), 0, True)
        assert (tuple(v.shape), v.dtype) == ((1, 3), T.complex64)
        v, _ = T.mode(T.empty(2, 0, device="meta"))  # no zero-size check without data
        assert tuple(v.shape) == (2,)
    check_error(lambda T: T.mode(T.empty(2, 3, device="meta"), 2), IndexError,
                "Dimension out of range (expected to be in range of [-2, 1], but got 2)")


# ---- unique / unique_consecutive with dim ---------------------------------------------------------
@pytest.mark.parametrize("fn", ["unique", "unique_consecutive"])
@pytest.mark.parametrize("dim", [0, -1, 1])
def test_unique_dim_of_a_0dim_tensor(fn, dim):
    check_error(lambda T: getattr(T, fn)(T.tensor(3), dim=dim), IndexError,
                f"Dimension specified as {dim} but tensor has no dimensions")


def test_unique_dim_result_is_moved_back():
    for T in _libs():
        m = T.tensor([[1, 2], [0, 1], [1, 2], [0, 0]])
        r = T.unique(m, dim=1)
        assert r.tolist() == [[1, 2], [0, 1], [1, 2], [0, 0]] and r.stride() == (1, 4)
        assert T.unique_consecutive(m, dim=1).stride() == (1, 4)
        assert T.unique(m, dim=0).stride() == (2, 1)
        x = T.arange(24).reshape(2, 3, 4) % 3
        assert T.unique(x, dim=2).stride() == (3, 1, 6)
        assert T.unique(x, dim=1).stride() == (4, 8, 1)


def test_unique_consecutive_complex_kernel_names():
    check_error(lambda T: T.unique_consecutive(T.tensor([1j]), dim=0), NotImplementedError,
                "\"unique\" not implemented for 'ComplexFloat'")
    check_error(lambda T: T.unique_consecutive(T.tensor([1j]), dim=-1), NotImplementedError,
                "\"unique_dim\" not implemented for 'ComplexFloat'")
    check_error(lambda T: T.unique_consecutive(T.tensor(1j), dim=0), NotImplementedError,
                "\"unique_dim\" not implemented for 'ComplexFloat'")


# ---- repeat_interleave with int repeats ----------------------------------------------------------
def test_repeat_interleave_int_on_meta_and_its_checks():
    for T in _libs():
        r = T.repeat_interleave(T.empty(2, 3, device="meta"), 2, dim=0)
        assert (tuple(r.shape), r.stride(), r.device.type) == ((4, 3), (3, 1), "meta")
        assert tuple(T.empty(2, 3, device="meta").repeat_interleave(2).shape) == (12,)
        assert T.repeat_interleave(T.arange(6.).reshape(2, 3).t(), 2, dim=1).tolist() == [
            [0.0, 0.0, 3.0, 3.0], [1.0, 1.0, 4.0, 4.0], [2.0, 2.0, 5.0, 5.0]]
        assert T.repeat_interleave(T.tensor(5.), 3).tolist() == [5.0, 5.0, 5.0]
    check_error(lambda T: T.repeat_interleave(T.ones(2, 3), 2, dim=1, output_size=5), RuntimeError,
                "repeat_interleave: Invalid output_size, expected 6 but got 5")
    check_error(lambda T: T.repeat_interleave(T.ones(2, 3), -1, dim=5), IndexError,
                "Dimension out of range (expected to be in range of [-2, 1], but got 5)")
    check_error(lambda T: T.repeat_interleave(T.tensor(5.), 3, dim=0), IndexError,
                "Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    check_error(lambda T: T.repeat_interleave(T.empty(2, 3, device="meta"), T.tensor(2, device="meta"), dim=0),
                RuntimeError, "cannot repeat_interleave a meta tensor without output_size")


# ---- rot90 ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("dims", [[1, -1], [-2, 0], [-1, 1]])
def test_rot90_same_dims_text_names_dims_as_given(dims):
    check_error(lambda T: T.rot90(T.zeros(2, 3), 1, dims), RuntimeError,
                f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}")


# ---- isin: a Scalar's own type is checked ---------------------------------------------------------
@pytest.mark.parametrize("call, name", [
    (lambda T: T.isin(T.tensor([1, 2]), True), "Bool"),
    (lambda T: T.isin(T.tensor([1, 2]), 1j), "ComplexDouble"),
    (lambda T: T.isin(True, T.tensor([1, 2])), "Bool"),
    (lambda T: T.isin(1j, T.tensor([1, 2])), "ComplexDouble"),
])
def test_isin_refuses_bool_and_complex_scalars(call, name):
    check_error(call, RuntimeError, f"Unsupported input type encountered for isin(): {name}")


# ---- row_stack -----------------------------------------------------------------------------------
def test_row_stack_is_vstack():
    for T in _libs():
        r = T.row_stack([T.tensor([1, 2]), T.tensor([3., 4.])])
        assert r.dtype == T.float32 and r.tolist() == [[1.0, 2.0], [3.0, 4.0]]
        out = T.empty(0, dtype=T.long)
        assert T.row_stack((T.tensor([1]), T.tensor([2])), out=out) is out and out.tolist() == [[1], [2]]
    check_error(lambda T: T.row_stack([]), RuntimeError, "vstack expects a non-empty TensorList")


# ---- the argument parser -------------------------------------------------------------------------
def test_numpy_keyword_names():
    for T in _libs():
        a = T.arange(6.).reshape(2, 3)
        assert T.sum(a, axis=0).tolist() == [3.0, 5.0, 7.0]
        assert a.sum(axis=1, keepdims=True).shape == (2, 1)
        assert T.cat([a, a], axis=1).shape == (2, 6)
        assert T.concatenate([a, a], axis=1).shape == (2, 6)
        assert T.stack([a, a], axis=2).shape == (2, 3, 2)
        assert T.mean(a, 1, keepdims=True).tolist() == [[1.0], [4.0]]
        assert T.add(x1=a, x2=a).tolist() == (a * 2).tolist()
        assert T.gather(a, axis=1, index=T.zeros(2, 1, dtype=T.long)).tolist() == [[0.0], [3.0]]
        with pytest.raises(TypeError):  # dim given by its own name: axis is left over
            T.sum(a, dim=0, axis=1)


def test_numpy_bool_and_complex64_scalars_are_doubles():
    """PythonArgParser unpacks a NumPy scalar that is neither a Python bool nor a Python complex
    (np.bool_, np.complex64) as a double."""
    for T in _libs():
        i = T.tensor([1, 2])
        for r in (i + np.bool_(True), np.bool_(True) + i, T.full((2,), np.bool_(True)),
                  T.clamp(i, min=np.bool_(True)), T.tensor([True]) * np.bool_(True)):
            assert r.dtype == T.float32
        assert (i + np.bool_(True)).tolist() == [2.0, 3.0]
        assert (i + np.int64(1)).dtype == T.int64 and (i + np.float64(1)).dtype == T.float32
        with pytest.warns(Warning, match="discards the imaginary part"):
            r = i + np.complex64(1 + 2j)
        assert r.dtype == T.float32 and r.tolist() == [2.0, 3.0]
        assert (i + np.complex128(1j)).dtype == T.complex64  # a Python complex
        assert T.tensor([True, False]).masked_fill(T.tensor([False, True]), np.bool_(True)).tolist() == [True, True]
    check_error(lambda T: T.tensor([True]) & np.bool_(True), NotImplementedError,
                "\"bitwise_and_cpu\" not implemented for 'Float'")


@pytest.mark.parametrize("call, text", [
    (lambda T: T.cat([T.ones(2), 1]), "expected Tensor as element 1 in argument 0, but got int"),
    (lambda T: T.cat(tensors=[T.ones(2), 1.5]), "expected Tensor as element 1 in argument 0, but got float"),
    (lambda T: T.cat((T.ones(2), np.zeros(2))), "expected Tensor as element 1 in argument 0, but got numpy.ndarray"),
    (lambda T: T.stack([T.ones(2), [1, 2]]), "expected Tensor as element 1 in argument 0, but got list"),
    (lambda T: T.broadcast_tensors([T.ones(2, 1), T.zeros(3)]), "expected Tensor as element 0 in argument 0, but got list"),
    (lambda T: T.block_diag(T.ones(2), 3), "expected Tensor as element 1 in argument 0, but got int"),
    (lambda T: T.hstack([T.ones(2), None]), "expected Tensor as element 1 in argument 0, but got NoneType"),
])
def test_tensor_list_element_error(call, text):
    check_error(call, TypeError, text)
