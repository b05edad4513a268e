"""Formula helpers for the reductions, scans, softmax and matrix-product entries (PyTorch's
FunctionsManual.cpp). Tensor methods only, so that every helper is itself differentiable; where
torch picks a cheaper path that is not (prod and cumprod with zeros), the choice is made on grad
mode as torch makes it.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ..geometry import wrap_dim
from .formulas import _dims, conj, grad_dtype, maybe_multiply, sum_backward, sum_to, unsqueeze_multiple
from .grad_mode import is_grad_enabled


# ---- helpers shared by several formulas ------------------------------------------------------------
def restore_reduced_dims(output: Any, dims: Any, keepdim: bool, ndim: int) -> Any:
    """The reduced output with its reduced dims back as size 1 (so that it broadcasts against self)."""
    if keepdim or ndim == 0:
        return output
    return unsqueeze_multiple(output, _dims(dims, ndim), ndim)


def scale_grad_by_count(grad: Any, mask: Any, dims: Any) -> Any:
    """The gradient split evenly among the elements the mask selects (ties of amax/amin)."""
    return (grad / mask.sum(_dims(dims, mask.dim()), keepdim=True)) * mask


def amax_amin_backward(grad: Any, self: Any, result: Any, dim: Any, keepdim: bool) -> Any:
    n = self.dim()
    return scale_grad_by_count(restore_reduced_dims(grad, dim, keepdim, n),
                               restore_reduced_dims(result, dim, keepdim, n) == self, dim)


def evenly_distribute_backward(grad: Any, self: Any, value: Any) -> Any:
    """max()/min()/median(): the gradient split evenly among the elements equal to the result
    (NaN counts as equal to a NaN result)."""
    mask = (self == value).logical_or(self.isnan().logical_and(value.isnan()))
    return mask * (grad / mask.sum())


def value_selecting_reduction_backward(grad: Any, dim: int, indices: Any, sizes: Sequence[int], keepdim: bool) -> Any:
    """max.dim/min.dim/median.dim/kthvalue/mode: the gradient goes to the selected index."""
    grad_in = grad.new_zeros(tuple(sizes))
    if keepdim or len(sizes) == 0:
        return grad_in.scatter(dim, indices, grad)
    return grad_in.scatter(dim, indices.unsqueeze(dim), grad.unsqueeze(dim))


def _where_zero(mask: Any, t: Any) -> Any:
    """t with the masked elements set to 0 (where, not masked_fill_: it stays differentiable)."""
    return t.new_zeros(()).where(mask, t)


def as_dtype_of(grad: Any, like: Any) -> Any:
    """grad_dtype, passing an undefined (None) gradient through."""
    return None if grad is None else grad_dtype(grad, like)


# ---- sums and means ---------------------------------------------------------------------------------
def nansum_backward(grad: Any, self: Any, dim: Any, keepdim: bool) -> Any:
    return sum_backward(grad, self.shape, dim, keepdim) * self.isnan().logical_not()


def nanmean_backward(grad: Any, self: Any, dim: Any, keepdim: bool) -> Any:
    """nanmean = nansum / (number of non-NaN elements), the count a constant."""
    notnan = self.isnan().logical_not()
    count = notnan.sum(_dims(dim, self.dim()), keepdim=True)
    return sum_backward(grad, self.shape, dim, keepdim) * notnan / count


# ---- prod ---------------------------------------------------------------------------------------------
def _positions(like: Any, dim: int | None) -> Any:
    """0, 1, ... along `dim` of `like` (over all its elements when dim is None), shaped to broadcast
    against it: a constant, so the reshape records nothing."""
    n = like.numel() if dim is None else like.shape[dim]
    pos = like.new_ones((n,)).cumsum(0) - 1
    if dim is None:
        return pos.reshape(tuple(like.shape))
    shape = [1] * like.dim()
    shape[dim] = n
    return pos.reshape(shape)


def _prod(t: Any, dim: int | None) -> Any:
    return t.prod() if dim is None else t.prod(dim, keepdim=True)


def _prod_safe_zeros_backward(grad: Any, inp: Any, dim: int | None) -> Any:
    """grad * the product of the other elements of each slice (of all elements when dim is None),
    when the input has zeros.

    Without grad mode: O(n) (no zero in the slice: result / input; one zero: the product of the
    others at it, 0 elsewhere; two or more: zeros). With grad mode (double backward) the product
    with each element in turn replaced by one, O(n^2), whose derivative is the second derivative of
    prod (torch's exclusive cumprods there have the same property)."""
    is_zero = inp == 0
    ones = inp.new_ones(())
    if not is_grad_enabled():
        zeros = is_zero.sum() if dim is None else is_zero.sum(dim, keepdim=True)
        others = _prod(ones.where(is_zero, inp), dim)  # the product of the nonzero elements
        no_zero = (others * grad) / ones.where(is_zero, inp)
        one_zero = _where_zero(is_zero.logical_not(), (others * grad).expand(inp.shape))
        return _where_zero(zeros != 0, no_zero) + _where_zero(zeros != 1, one_zero)
    pos = _positions(inp, dim)
    out = None
    for k in range(inp.numel() if dim is None else inp.shape[dim]):
        at_k = pos == k
        g = (grad * _prod(ones.where(at_k, inp), dim)) * at_k
        out = g if out is None else out + g
    return out


def prod_backward(grad: Any, self: Any, result: Any) -> Any:
    self = grad_dtype(self, grad)
    if self.dim() == 0:
        return grad
    if not bool((self == 0).any().item()):
        return grad * conj(result / self)
    return _prod_safe_zeros_backward(grad, self, None)


def prod_dim_backward(grad: Any, self: Any, result: Any, dim: int, keepdim: bool) -> Any:
    self = grad_dtype(self, grad)
    if self.dim() == 0:
        return grad
    dim = wrap_dim(dim, self.dim())
    if not keepdim:
        grad, result = grad.unsqueeze(dim), result.unsqueeze(dim)
    if not bool((self == 0).any().item()):
        return grad * conj(result / self)
    return _prod_safe_zeros_backward(grad, self, dim)


# ---- var, std -------------------------------------------------------------------------------------------
def _correction(correction: Any, unbiased: Any = None) -> float:
    if unbiased is not None:
        return 1.0 if unbiased else 0.0
    return 1.0 if correction is None else float(correction)


def var_backward(grad: Any, self: Any, dim: Any, correction: Any, keepdim: bool, unbiased: Any = None) -> Any:
    c = _correction(correction, unbiased)
    if self.dim() == 0 or dim is None:
        dof = self.numel() - c
        if dof <= 0:  # 2 / 0: NaN where self equals its mean, infinity elsewhere
            at_mean = self == self.mean()
            return grad * self.new_full((), math.inf).where(at_mean.logical_not(), self.new_full((), math.nan))
        return (2.0 / dof) * grad * (self - self.mean())
    dims = _dims(dim, self.dim())
    if not keepdim and self.dim() > 1:
        grad = unsqueeze_multiple(grad, dims, self.dim())
    rnumel = 1
    for d in dims:
        rnumel *= self.shape[d]
    dof = rnumel - c
    factor = 2.0 / dof if dof != 0 else math.inf
    return factor * grad * (self - self.mean(dims, keepdim=True))


def std_backward(result: Any, grad: Any, self: Any, dim: Any, correction: Any, keepdim: bool,
                 unbiased: Any = None) -> Any:
    grad_var = _where_zero(result == 0, grad / (result * 2))
    return var_backward(grad_var, self, dim, correction, keepdim, unbiased)


def _mean_part(gmean: Any, self: Any, dim: Any, keepdim: bool) -> Any:
    dims = None if self.dim() == 0 or dim is None else dim
    n = self.numel() if dims is None or len(dims) == 0 else math.prod(self.shape[d] for d in _dims(dims, self.dim()))
    return sum_backward(gmean, self.shape, dims, keepdim) / n


def var_mean_backward(gvar: Any, gmean: Any, self: Any, dim: Any, correction: Any, keepdim: bool,
                      unbiased: Any = None) -> Any:
    return var_backward(gvar, self, dim, correction, keepdim, unbiased) + _mean_part(gmean, self, dim, keepdim)


def std_mean_backward(gstd: Any, gmean: Any, self: Any, std: Any, dim: Any, correction: Any, keepdim: bool,
                      unbiased: Any = None) -> Any:
    return std_backward(std, gstd, self, dim, correction, keepdim, unbiased) + _mean_part(gmean, self, dim, keepdim)


# ---- norms, logsumexp ----------------------------------------------------------------------------------
def sgn(t: Any) -> Any:
    """x / |x| (0 at 0): sign for real tensors."""
    if not t.is_complex():
        return t.sign()
    a = t.abs()
    return _where_zero(a == 0, t / a)


def norm_backward(grad: Any, self: Any, p: Any, norm: Any, dim: Any, keepdim: bool) -> Any:
    p = 2.0 if p is None else float(p)
    ndim = self.dim()
    dims = [] if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    if not keepdim and ndim != 0:
        grad = unsqueeze_multiple(grad, dims, ndim) if dims else grad
        norm = unsqueeze_multiple(norm, dims, ndim) if dims else norm
    if p == 0.0:
        return None
    if p == 1.0:
        return sgn(self) * grad
    if p == 2.0:
        return grad * _where_zero(norm == 0, self / norm)
    if math.isinf(p):
        self_abs = self.abs()
        mask = self_abs.eq(norm).logical_or(self_abs.isnan())
        return sgn(self) * ((grad / mask.sum(_dims(dims, ndim), keepdim=True)) * mask)
    if p < 1.0:
        self_scaled = sgn(self) * _where_zero(self == 0, self.abs().pow(p - 1))
        return self_scaled * grad * norm.pow(1 - p)
    if p < 2.0:
        self_scaled = sgn(self) * self.abs().pow(p - 1)
    else:
        self_scaled = self * self.abs().pow(p - 2)
    return self_scaled * _where_zero(norm == 0, grad / norm.pow(p - 1))


def logsumexp_backward(grad: Any, self: Any, result: Any, dim: Any, keepdim: bool) -> Any:
    if not keepdim and self.dim() != 0:
        grad = unsqueeze_multiple(grad, _dims(dim, self.dim()), self.dim())
        result = unsqueeze_multiple(result, _dims(dim, self.dim()), self.dim())
    return grad * conj((self - result).exp())


def aminmax_backward(gmin: Any, gmax: Any, self: Any, rmin: Any, rmax: Any, dim: Any, keepdim: bool) -> Any:
    dims = None if dim is None else [dim]
    return amax_amin_backward(gmin, self, rmin, dims, keepdim) + amax_amin_backward(gmax, self, rmax, dims, keepdim)


# ---- scans ---------------------------------------------------------------------------------------------
def reversed_cumsum(w: Any, dim: int) -> Any:
    """w.flip(dim).cumsum(dim).flip(dim), written as total - cumsum + w (as torch once wrote it),
    which needs no flip and so is differentiable with the reduction entries alone."""
    return w.sum(dim, keepdim=True) - w.cumsum(dim) + w


def cumsum_backward(grad: Any, dim: int) -> Any:
    if grad.numel() <= 1 or grad.shape[wrap_dim(dim, grad.dim())] == 1:
        return grad
    return reversed_cumsum(grad, dim)


def cumprod_backward(grad: Any, self: Any, dim: int, result: Any) -> Any:
    if self.numel() <= 1:
        return grad
    dim = wrap_dim(dim, self.dim())
    n = self.shape[dim]
    if n == 1:
        return grad
    w = conj(result) * grad
    is_zero = self == 0
    if not bool(is_zero.any().item()):
        return reversed_cumsum(w, dim) / conj(self)
    ones = self.new_ones(())
    if not is_grad_enabled():
        # before the first zero z1: sum_{j>=k, j<z1} g_j y_j / x_k; at z1: sum_{j>=z1} g_j * the
        # cumprod with x_z1 replaced by 1; after z1: 0 (torch's O(n) mask path)
        zeros_seen = is_zero.cumsum(dim)
        before = zeros_seen == 0
        first = is_zero.logical_and(zeros_seen == 1)
        part_before = (reversed_cumsum(_where_zero(before.logical_not(), w), dim)
                       / ones.where(before.logical_not(), self))
        y1 = ones.where(first, self).cumprod(dim)
        part_first = reversed_cumsum(_where_zero(zeros_seen == 0, conj(y1) * grad), dim)
        return _where_zero(before.logical_not(), part_before) + _where_zero(first.logical_not(), part_first)
    # grad mode (double backward): d y_j / d x_k = cumprod with x_k replaced by 1, for j >= k; O(n^2)
    pos = _positions(self, dim)
    out = None
    for k in range(n):
        at_k = pos == k
        omitted = conj(ones.where(at_k, self).cumprod(dim))
        g = (grad * omitted * (pos >= k)).sum(dim, keepdim=True) * at_k
        out = g if out is None else out + g
    return out


_LOWEST = {"float64": -1.7976931348623157e308, "float32": -3.4028234663852886e38, "float16": -65504.0,
           "bfloat16": -3.3895313892515355e38}


def _reverse_logcumsumexp(x: Any, dim: int) -> Any:
    return x.flip([dim]).logcumsumexp(dim).flip([dim])


def logcumsumexp_backward(grad: Any, self: Any, result: Any, dim: int) -> Any:
    """sum_{j>=k} g_j exp(x_k - r_j), in log space for the positive and negative parts of grad
    (torch's formula, after TensorFlow's); the lowest float, not -inf, so that -inf inputs give 0."""
    if grad.dim() == 0 or grad.numel() == 0:
        return grad
    lowest = grad.new_full((), _LOWEST[str(grad.dtype).rpartition(".")[2]])
    log_abs_grad = grad.where(grad > 0, -grad).log()  # |grad| by where: no abs in the double backward
    pos = log_abs_grad.where(grad > 0, lowest)
    neg = log_abs_grad.where(grad < 0, lowest)
    out_pos = (_reverse_logcumsumexp(pos - result, dim) + self).exp()
    out_neg = (_reverse_logcumsumexp(neg - result, dim) + self).exp()
    return out_pos - out_neg


def cummaxmin_backward(grad: Any, self: Any, indices: Any, dim: int) -> Any:
    if self.numel() == 0:
        return self
    return self.new_zeros(self.shape).scatter_add(dim, indices, grad)


# ---- softmax -------------------------------------------------------------------------------------------
def softmax_double_backward(grad: Any, grad_output: Any, dim: int, output: Any) -> Any:
    """torch's softmax_double_backward: the gradient of _softmax_backward_data by its output."""
    return (grad_output * grad - (output * grad_output).sum(dim, True) * grad
            - grad_output * (output * grad).sum(dim, True))


# ---- matrix products -------------------------------------------------------------------------------------
def _mT(t: Any) -> Any:
    return t.mH if t.is_complex() else t.transpose(-2, -1)


def addmm_self_backward(grad: Any, self: Any, beta: Any) -> Any:
    return sum_to(maybe_multiply(grad, beta), self.shape)


def _column_major(t: Any) -> bool:
    """A 2-d input laid out column-major (a transposed weight, as Linear passes it)."""
    size, stride = t.shape, t.stride()
    return len(size) == 2 and stride[0] == 1 and stride[1] == size[0]


def mm_mat1_scaled(grad: Any, mat2: Any, mat1: Any, alpha: Any = 1) -> Any:
    # torch's mm_mat1_backward: a column-major mat1 gets its gradient column-major too
    if _column_major(mat1):
        return grad_dtype(maybe_multiply(conj(mat2).mm(grad.t()).t(), alpha), mat1)
    return grad_dtype(maybe_multiply(grad.mm(_mT(mat2)), alpha), mat1)


def mm_mat2_scaled(grad: Any, mat1: Any, mat2: Any, alpha: Any = 1) -> Any:
    # torch's mm_mat2_backward: for Linear's weight.t() the product is computed as (grad^T mat1)^T,
    # so that the weight's gradient comes out contiguous and AccumulateGrad need not copy it
    if _column_major(mat2):
        return grad_dtype(maybe_multiply(grad.t().mm(conj(mat1)).t(), alpha), mat2)
    return grad_dtype(maybe_multiply(_mT(mat1).mm(grad), alpha), mat2)


def bmm_batch1(grad: Any, batch2: Any, alpha: Any = 1) -> Any:
    return maybe_multiply(grad.bmm(_mT(batch2)), alpha)


def bmm_batch2(grad: Any, batch1: Any, alpha: Any = 1) -> Any:
    return maybe_multiply(_mT(batch1).bmm(grad), alpha)


def mv_self(grad: Any, vec: Any, alpha: Any = 1) -> Any:
    return maybe_multiply(grad.ger(conj(vec)), alpha)


def mv_vec(grad: Any, mat: Any, alpha: Any = 1) -> Any:
    return maybe_multiply(_mT(mat).mv(grad), alpha)


def addr_vec1(grad: Any, vec2: Any, alpha: Any) -> Any:
    return maybe_multiply(grad.mv(conj(vec2)), alpha)


def addr_vec2(grad: Any, vec1: Any, alpha: Any) -> Any:
    return maybe_multiply(grad.t().mv(conj(vec1)), alpha)


def _addbmm_grad(grad: Any, batch1: Any, batch2: Any) -> Any:
    return grad.unsqueeze(0).expand((batch1.shape[0], batch1.shape[1], batch2.shape[2]))


def addbmm_batch1(grad: Any, batch1: Any, batch2: Any, alpha: Any) -> Any:
    return maybe_multiply(_addbmm_grad(grad, batch1, batch2).bmm(conj(batch2.transpose(1, 2))), alpha)


def addbmm_batch2(grad: Any, batch1: Any, batch2: Any, alpha: Any) -> Any:
    return maybe_multiply(conj(batch1.transpose(1, 2)).bmm(_addbmm_grad(grad, batch1, batch2)), alpha)


def renorm_backward(grad: Any, self: Any, p: Any, dim: int, maxnorm: Any) -> Any:
    """FunctionsManual's renorm_backward: the scaled slices' gradient, through their norms."""
    ndim = self.dim()
    d = wrap_dim(dim, ndim)
    reduce = [i for i in range(ndim) if i != d]
    norm = self.norm(p, reduce, keepdim=True)
    grad_output = (conj(self) * grad).sum(reduce, keepdim=True)
    nb = norm_backward(grad_output, self, p, norm, reduce, True)
    invnorm = (norm + 1e-7).reciprocal()
    factor = invnorm * maxnorm
    return (factor * grad - (factor * invnorm) * nb).where(norm > maxnorm, grad)


def dist_backward(grad: Any, self: Any, other: Any, p: Any, result: Any, of_other: bool) -> Any:
    """norm_backward of self - other (negated for other), summed to the input's broadcast shape."""
    from .formulas_elementwise import fit

    g = norm_backward(grad, self - other, p, result, None, False)
    if g is None:  # p == 0: no gradient
        return None
    like = other if of_other else self
    return fit(-g if of_other else g, like.shape, like.dtype)


def pdist_backward(grad: Any, self: Any, p: float, result: Any) -> Any:
    """_pdist_backward: each pair's gradient added to its first row and taken from its second."""
    n = self.shape[0]
    if n <= 1 or p == 0 or self.numel() == 0:
        return self.new_zeros(self.shape)
    pairs = self.new_ones((n, n)).triu(1).nonzero().t()
    i, j = pairs[0], pairs[1]
    diff = self.index_select(0, i) - self.index_select(0, j)
    g, dist = grad.unsqueeze(1), result.unsqueeze(1)
    if p == 1:
        c = diff.sign() * g
    elif math.isinf(p):
        c = diff.sign() * (diff.abs() == dist) * g
    elif p < 2:
        c = (diff.sign() * diff.abs().pow(p - 1) * g / dist.pow(p - 1)).where(dist != 0, 0.0)
    elif p == 2:
        c = (diff * g / dist).where(dist != 0, 0.0)
    else:
        c = (diff * diff.abs().pow(p - 2) * g / dist.pow(p - 1)).where(dist != 0, 0.0)
    return self.new_zeros(self.shape).index_add(0, i, c).index_add(0, j, -c)
