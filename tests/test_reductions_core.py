"""The machinery under the reductions: TensorIterator's reduce mode (make_reduction's views with
stride 0 on reduced dims, reduced dims first, coalescing, float16 temporaries), the Reduction
declaration's checks, the generated kernel modules (one per reduction, shared by amax / argmax /
max.dim; few compiled signatures), the named-tuple return types and the bindings' out= tuples.
"""
from __future__ import annotations

import numpy as np
import pytest

import jtorch
from jtorch.kernels import scalar_reduce as R
from jtorch.kernels.cpu import reduce as cpu_reduce
from jtorch.kernels.cpu import reduce_codegen
from jtorch.kernels.reduction import Reduction
from jtorch.structured.meta import allocate
from jtorch.structured.reduce import make_reduction, review_reduce_result


def built(shape: tuple, dims: object, keepdim: bool = False, dtype: jtorch.dtype = jtorch.float32,
          transpose: bool = False) -> "jtorch.structured.tensor_iterator.TensorIterator":
    x = jtorch.ones(shape, dtype=dtype)
    if transpose:
        x = x.t()
    from jtorch.structured.reduce import reduction_shape
    out = allocate(reduction_shape(x, dims, keepdim), None, dtype, x.device)
    return make_reduction("sum", [out], x, dims, keepdim, dtype, [dtype])


def test_reduce_mode_puts_reduced_dims_first_and_coalesces() -> None:
    it = built((2, 3, 4), 1)
    assert it.shape == (3, 4, 2) and it.num_reduce_dims() == 1
    assert it.operands[0].strides == [0, 1, 4] and it.operands[1].strides == [4, 1, 12]
    it = built((2, 3, 4), (0, 2))
    assert it.num_reduce_dims() == 2 and it.operands[0].strides[:2] == [0, 0]
    it = built((5, 6), None)  # an all-reduce of a contiguous tensor: one dim
    assert it.shape == (30,) and it.operands[0].strides == [0] and it.operands[1].strides == [1]
    it = built((5, 6), None, transpose=True)  # a transposed input too: memory order
    assert it.shape == (30,)
    it = built((5, 6), 0)  # sum(0) of a C-contiguous matrix: the reduced rows are dim 0 (stride 6)
    assert it.shape == (5, 6) and it.operands[1].strides == [6, 1] and it.operands[0].strides == [0, 1]
    assert built((3,), 0).reduced_numel == 3 and built((), 0).shape == ()


def test_review_reduce_result_and_temporaries() -> None:
    out = jtorch.empty(2, 4)
    v = review_reduce_result(out, 3, [False, True, False], keepdim=False)
    assert v.shape == (2, 1, 4) and v.stride() == (4, 0, 1)
    it = built((4, 5), 1, dtype=jtorch.float16)
    assert it.operands[0].tensor.dtype == jtorch.float32 and it.operands[0].original.dtype == jtorch.float16
    assert it.operands[1].tensor.dtype == jtorch.float32  # float16 input read through float32


def test_make_reduction_dtype_check() -> None:
    x = jtorch.ones(3)
    with pytest.raises(RuntimeError, match="^sum: provided dtype must match dtype of result. Got Long and Float.$"):
        make_reduction("sum", [jtorch.empty((), dtype=jtorch.int64)], x, None, False, jtorch.float32, [jtorch.float32])


def test_reduction_declarations_are_checked() -> None:
    with pytest.raises(ValueError, match="exactly one of combine and better"):
        Reduction("bad", 0)
    with pytest.raises(ValueError, match="indices need a selecting reduction"):
        Reduction("bad", 0, combine=R.add, outputs=("indices",))
    with pytest.raises(ValueError, match="acc must be"):
        Reduction("bad", 0, combine=R.add, acc="float")
    assert R.ARGMAX.kernel_key() == R.MAX.kernel_key() == R.MAX_DIM.kernel_key()
    assert R.ARGMAX.indexed and not R.MAX.indexed and R.MAX.selecting and not R.SUM.selecting


def test_generated_modules() -> None:
    stem, src = reduce_codegen.module_source(R.SUM)
    assert stem.startswith("reduce_sum_") and reduce_codegen.module_source(R.SUM) == (stem, src)
    assert "fastmath={'reassoc'}" in src and "def accumulate(" in src and "def finish(" in src
    assert "prange" in src and "def small(" in src
    assert cpu_reduce.kernels(R.ARGMAX) is cpu_reduce.kernels(R.MAX) is cpu_reduce.kernels(R.MAX_DIM)
    assert cpu_reduce.kernels(R.SUM) is not cpu_reduce.kernels(R.MEAN)
    _, sel = reduce_codegen.module_source(R.MIN)
    assert "_jt_better" in sel and "fastmath" not in sel  # selecting reductions: no reassociation


def test_few_compiled_signatures() -> None:
    """Integer and bool inputs of max/min/argmax are read as int64: one kernel serves them all."""
    mod = cpu_reduce.kernels(R.MAX)
    for dt in (jtorch.int8, jtorch.int16, jtorch.int32, jtorch.uint8, jtorch.int64, jtorch.bool):
        x = jtorch.tensor([[3, 1, 2], [0, 5, 4]]).to(dt)
        assert x.amax(1).tolist() == ([3, 5] if dt is not jtorch.bool else [True, True])
        assert x.max(0).indices.tolist() == [0, 1, 1] if dt is not jtorch.bool else True
    sigs = {tuple(str(a) for a in s) for s in mod.accumulate.signatures}
    assert len({s[2] for s in sigs if "int" in s[2]}) == 1, sigs  # the input buffer's type


def test_return_types_module() -> None:
    rt = jtorch.return_types
    assert rt.make("max", ("values", "indices")) is rt.max
    with pytest.raises(ValueError):
        rt.make("max", ("a", "b"))
    with pytest.raises(TypeError):
        rt.max((1, 2, 3))
    r = rt.max((1, 2))
    assert r.values == 1 and r.indices == 2 and r == (1, 2)
    assert repr(r) == "torch.return_types.max(\nvalues=1,\nindices=2)"


def test_binding_out_tuples() -> None:
    x = jtorch.tensor([[1.0, 9.0], [7.0, 3.0]])
    v, i = jtorch.empty(2), jtorch.empty(2, dtype=jtorch.int64)
    r = jtorch.min(x, 1, out=(v, i))
    assert r[0] is v and r[1] is i and v.tolist() == [1.0, 3.0] and i.tolist() == [0, 1]
    mn, mx = jtorch.empty(0), jtorch.empty(0)
    r = jtorch.aminmax(x, dim=0, out=(mn, mx))
    assert type(r).__name__ == "aminmax_out" and mn.tolist() == [1.0, 3.0] and mx.tolist() == [7.0, 9.0]
    for bad in ((v,), [v, i, v], (v, 1)):
        with pytest.raises(TypeError):
            jtorch.max(x, 1, out=bad)


def test_ops_and_meta() -> None:
    x = jtorch.ones(2, 3, device="meta")
    v, i = jtorch.ops.aten.max.dim(x, 1, True)
    assert v.shape == (2, 1) and v.is_meta and i.dtype == jtorch.int64
    assert jtorch.ops.aten.sum.dim_IntList(x, [0]).shape == (3,)
    assert jtorch.ops.aten.var.correction(x, [1]).shape == (2,)
    assert jtorch.ops.aten.median.default(x).shape == () and x.logsumexp(1).shape == (2,)
    assert jtorch.ops.aten.norm.Scalar(jtorch.ones(3)).item() == pytest.approx(3 ** 0.5)
    np.testing.assert_array_equal(jtorch.ops.aten.count_nonzero.default(jtorch.eye(3)).numpy(), 3)


def test_sum_dtype_bool_and_empty_out() -> None:
    assert jtorch.sum(jtorch.tensor([0.5, 0.0]).half(), dtype=jtorch.bool).item() is True
    assert jtorch.sum(jtorch.tensor([False, False]), dtype=jtorch.bool).item() is False
    out = jtorch.empty(0)
    assert jtorch.sum(jtorch.ones(2, 3), 1, out=out).tolist() == [3.0, 3.0] and out.shape == (2,)
