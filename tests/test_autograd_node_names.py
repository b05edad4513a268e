"""The autograd graph a program records equals torch's: every node's name() and next_functions,
recursively, for a broad set of small programs over every operator family jtorch has (elementwise
operators with tensor and Python-number operands and the reflected dunders, in-place operators on
views, reductions, views, indexing, joins, the matmul family, nn.functional activations, norms,
losses, convolution and pooling, copies and conversions).

Node names follow torch's rule (one derivatives.yaml entry per overload, CamelCase + "Backward" +
a counter per op name: `1 - x` is rsub.Scalar, RsubBackward1), the edges which inputs the node
differentiates (a Python number's wrapped tensor has an edge of its own, (None, 0), where torch's
binding wraps it; a Scalar overload has none). The programs torch records as one native node and
jtorch decomposes are listed in DECOMPOSED (expected to fail, with what torch records).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _torch_oracle import oracle_torch

import jtorch

P: dict[str, Callable[[Any], Any]] = {}


def x(T: Any, shape: tuple = (2, 3), seed: int = 0) -> Any:
    """A float64 leaf that requires grad, the same values in both libraries."""
    a = np.random.default_rng(seed).standard_normal(shape)
    return T.tensor(a, dtype=T.float64, requires_grad=True)


def F(T: Any) -> Any:
    return T.nn.functional


def tgt(T: Any) -> Any:
    return T.tensor([0, 2])


# ---- elementwise: tensor and Python-number operands, reflected operators -----------------------
P.update({
    "add": lambda T: x(T) + x(T, seed=1), "add_s": lambda T: x(T) + 2, "radd": lambda T: 2 + x(T),
    "add_alpha": lambda T: T.add(x(T), x(T, seed=1), alpha=2), "add_st": lambda T: T.add(x(T), 2),
    "sub": lambda T: x(T) - x(T, seed=1), "sub_s": lambda T: x(T) - 2, "rsub": lambda T: 1 - x(T),
    "rsub_fn": lambda T: T.rsub(x(T), x(T, seed=1)), "rsub_fn_s": lambda T: T.rsub(x(T), 2),
    "mul": lambda T: x(T) * x(T, seed=1), "mul_s": lambda T: x(T) * 2, "rmul": lambda T: 2 * x(T),
    "div": lambda T: x(T) / x(T, seed=1), "div_s": lambda T: x(T) / 2, "rdiv": lambda T: 2 / x(T),
    "div_mode": lambda T: T.div(x(T), x(T, seed=1), rounding_mode="floor"),
    "div_mode_s": lambda T: T.div(x(T), 2, rounding_mode="trunc"),
    "floordiv": lambda T: x(T) // 2, "rfloordiv": lambda T: 2 // x(T),
    "pow_s": lambda T: x(T) ** 2, "pow_t": lambda T: x(T).abs() ** x(T, seed=1), "rpow": lambda T: 2 ** x(T),
    "pow_fn_s": lambda T: T.pow(2, x(T)),
    "neg": lambda T: -x(T), "abs": lambda T: abs(x(T)), "mod": lambda T: x(T) % 2, "rmod": lambda T: 2 % x(T),
    "fmod": lambda T: T.fmod(x(T), 1.5), "fmod_t": lambda T: T.fmod(x(T), x(T, seed=1)),
    "remainder_t": lambda T: T.remainder(x(T), x(T, seed=1)),
    "atan2": lambda T: T.atan2(x(T), x(T, seed=1)), "maximum": lambda T: T.maximum(x(T), x(T, seed=1)),
    "minimum": lambda T: T.minimum(x(T), x(T, seed=1)), "fmax": lambda T: T.fmax(x(T), x(T, seed=1)),
    "hypot": lambda T: T.hypot(x(T), x(T, seed=1)), "lerp_s": lambda T: T.lerp(x(T), x(T, seed=1), 0.3),
    "lerp_t": lambda T: T.lerp(x(T), x(T, seed=1), x(T, seed=2)),
    "addcmul": lambda T: T.addcmul(x(T), x(T, seed=1), x(T, seed=2), value=2),
    "addcdiv": lambda T: T.addcdiv(x(T), x(T, seed=1), x(T, seed=2)),
    "clamp": lambda T: x(T).clamp(-0.5, 0.5), "clamp_t": lambda T: x(T).clamp(x(T, seed=1), x(T, seed=2)),
    "clamp_min": lambda T: x(T).clamp_min(0.1), "clamp_max": lambda T: x(T).clamp(max=0.1),
    "clip": lambda T: x(T).clip(-1, 1),
    "where": lambda T: T.where(x(T, seed=3) > 0, x(T), x(T, seed=1)),
    "where_s": lambda T: T.where(x(T, seed=3) > 0, x(T), 0.0),
    "masked_fill": lambda T: x(T).masked_fill(x(T, seed=3) > 0, 1.0),
    "sigmoid": lambda T: x(T).sigmoid(), "tanh": lambda T: x(T).tanh(),
    "exp": lambda T: x(T).exp(), "log": lambda T: x(T).abs().log(), "sqrt": lambda T: x(T).abs().sqrt(),
    "rsqrt": lambda T: x(T).abs().rsqrt(), "sin": lambda T: x(T).sin(), "relu": lambda T: x(T).relu(),
    "erf": lambda T: x(T).erf(), "sign": lambda T: x(T).sign(), "round": lambda T: x(T).round(),
    "round_d": lambda T: x(T).round(decimals=1), "trunc": lambda T: x(T).trunc(),
    "frac": lambda T: x(T).frac(), "reciprocal": lambda T: x(T).reciprocal(), "log1p": lambda T: x(T).abs().log1p(),
    "logit": lambda T: x(T).sigmoid().logit(), "nan_to_num": lambda T: x(T).nan_to_num(),
    "true_divide": lambda T: T.true_divide(x(T), 2),
})



# ---- in-place operators, on a non-leaf and on its views (CopySlices) -----------------------------
def _ip(T: Any, f: Callable[[Any], Any]) -> Any:
    y = x(T) * 1
    f(y)
    return y


P.update({
    "iadd": lambda T: _ip(T, lambda y: y.add_(1)), "isub_t": lambda T: _ip(T, lambda y: y.sub_(x(T, seed=1))),
    "imul": lambda T: _ip(T, lambda y: y.mul_(2)), "idiv": lambda T: _ip(T, lambda y: y.div_(x(T, seed=1))),
    "ipow": lambda T: _ip(T, lambda y: y.pow_(2)), "iclamp": lambda T: _ip(T, lambda y: y.clamp_(0, 1)),
    "icopy": lambda T: _ip(T, lambda y: y.copy_(x(T, seed=1))),
    "ifill": lambda T: _ip(T, lambda y: y.fill_(2)),
    "izero": lambda T: _ip(T, lambda y: y.zero_()),
    "iview_mul": lambda T: _ip(T, lambda y: y[0].mul_(2)),
    "iview_add_t": lambda T: _ip(T, lambda y: y[:, 1].add_(x(T, (2,), seed=1))),
    "setitem": lambda T: _ip(T, lambda y: y.__setitem__((0, 1), 5.0)),
    "setitem_t": lambda T: _ip(T, lambda y: y.__setitem__(1, x(T, (3,), seed=1))),
    "setitem_idx": lambda T: _ip(T, lambda y: y.__setitem__(T.tensor([0, 1]), x(T, (2, 3), seed=1))),
    "imasked_fill": lambda T: _ip(T, lambda y: y.masked_fill_(y > 0, 0.0)),
    "iindex_put": lambda T: _ip(T, lambda y: y.index_put_((T.tensor([0]),), x(T, (1, 3), seed=1))),
    "irelu": lambda T: _ip(T, lambda y: y.relu_()),
    "isigmoid": lambda T: _ip(T, lambda y: y.sigmoid_()),
    "iexp_view": lambda T: _ip(T, lambda y: y.t().exp_()),
    "iscatter": lambda T: _ip(T, lambda y: y.scatter_(1, T.tensor([[0], [1]]), x(T, (2, 1), seed=1))),
    "iindex_add": lambda T: _ip(T, lambda y: y.index_add_(0, T.tensor([1]), x(T, (1, 3), seed=1))),
})

# ---- reductions, scans, sorting ------------------------------------------------------------------
P.update({
    "sum": lambda T: x(T).sum(), "sum_d": lambda T: x(T).sum(1), "sum_dk": lambda T: x(T).sum((0, 1), keepdim=True),
    "sum_dtype": lambda T: x(T).sum(dtype=T.float32),
    "mean": lambda T: x(T).mean(), "mean_d": lambda T: x(T).mean(0), "prod": lambda T: x(T).prod(),
    "prod_d": lambda T: x(T).prod(1), "nansum": lambda T: x(T).nansum(), "nansum_d": lambda T: x(T).nansum(0),
    "nanmean": lambda T: x(T).nanmean(),
    "amax": lambda T: x(T).amax(1), "amin": lambda T: x(T).amin(), "max": lambda T: x(T).max(),
    "max_d": lambda T: x(T).max(1)[0], "min_d": lambda T: x(T).min(0).values, "min": lambda T: x(T).min(),
    "max_b": lambda T: T.max(x(T), x(T, seed=1)),
    "median": lambda T: x(T).median(), "median_d": lambda T: x(T).median(1)[0],
    "mode": lambda T: x(T).mode(1)[0],
    "kthvalue": lambda T: x(T).kthvalue(2, 1)[0],
    "var": lambda T: x(T).var(), "var_d": lambda T: x(T).var(1), "var_c": lambda T: x(T).var(1, correction=0),
    "std": lambda T: x(T).std(), "std_d": lambda T: x(T).std(0, unbiased=False),
    "var_mean": lambda T: T.var_mean(x(T), 1), "std_mean": lambda T: T.std_mean(x(T)),
    "norm": lambda T: x(T).norm(), "norm_p": lambda T: x(T).norm(1), "norm_d": lambda T: x(T).norm(2, 1),
    "norm_fro": lambda T: x(T).norm("fro"), "norm_inf": lambda T: x(T).norm(float("inf")),
    "logsumexp": lambda T: x(T).logsumexp(1), "cumsum": lambda T: x(T).cumsum(1),
    "cumprod": lambda T: x(T).cumprod(1), "cummax": lambda T: x(T).cummax(1)[0],
    "cummin": lambda T: x(T).cummin(0)[0], "logcumsumexp": lambda T: x(T).logcumsumexp(1),
    "softmax": lambda T: x(T).softmax(1), "log_softmax": lambda T: x(T).log_softmax(1),
    "aminmax": lambda T: T.aminmax(x(T))[0],
    "trace": lambda T: x(T, (3, 3)).trace(), "sort": lambda T: x(T).sort(1)[0], "topk": lambda T: x(T).topk(2)[0],
    "msort": lambda T: T.msort(x(T)),
    "vector_norm": lambda T: T.linalg.vector_norm(x(T)),
})

# ---- views and shape operators ------------------------------------------------------------------
P.update({
    "view": lambda T: x(T).view(6),
    "reshape": lambda T: x(T).reshape(3, 2),
    "reshape_nc": lambda T: x(T).t().reshape(6),
    "t": lambda T: x(T).t(),
    "T": lambda T: x(T).T, "mT": lambda T: x(T).mT, "transpose": lambda T: x(T).transpose(0, 1),
    "permute": lambda T: x(T).permute(1, 0),
    "unsqueeze": lambda T: x(T).unsqueeze(0),
    "squeeze": lambda T: x(T, (1, 3)).squeeze(),
    "squeeze_d": lambda T: x(T, (1, 3)).squeeze(0), "squeeze_dd": lambda T: x(T, (1, 3)).squeeze((0, 1)),
    "expand": lambda T: x(T, (1, 3)).expand(2, 3), "expand_as": lambda T: x(T, (1, 3)).expand_as(x(T)),
    "flatten": lambda T: x(T).flatten(), "unflatten": lambda T: x(T).unflatten(1, (3, 1)),
    "narrow": lambda T: x(T).narrow(1, 0, 2), "select": lambda T: x(T)[1], "slice": lambda T: x(T)[:, 1:],
    "slice_step": lambda T: x(T)[:, ::2], "getitem_none": lambda T: x(T)[None], "getitem_ell": lambda T: x(T)[..., 0],
    "getitem_idx": lambda T: x(T)[T.tensor([0, 1, 1])], "getitem_mask": lambda T: x(T)[x(T, seed=4) > 0],
    "getitem_list": lambda T: x(T)[[0, 1]], "getitem_mix": lambda T: x(T)[1, [0, 2]],
    "diagonal": lambda T: x(T).diagonal(), "diag": lambda T: x(T, (3,)).diag(), "diag2": lambda T: x(T, (3, 3)).diag(),
    "movedim": lambda T: x(T).movedim(0, 1),
    "as_strided": lambda T: x(T).as_strided((2, 2), (1, 2)), "view_as": lambda T: x(T).view_as(x(T, seed=1)),
    "contiguous": lambda T: x(T).t().contiguous(), "alias": lambda T: x(T).view_as(x(T)),
    "split": lambda T: x(T).split(1, 1), "chunk": lambda T: x(T).chunk(2), "unbind": lambda T: x(T).unbind(1),
    "split_sizes": lambda T: x(T).split([1, 2], 1), "tensor_split": lambda T: x(T).tensor_split(2, 1),
    "hsplit": lambda T: T.hsplit(x(T), 3), "flip": lambda T: x(T).flip(0), "roll": lambda T: x(T).roll(1),
    "roll_d": lambda T: x(T).roll(1, 1), "rot90": lambda T: x(T).rot90(), "repeat": lambda T: x(T).repeat(2, 1),
    "tile": lambda T: x(T).tile(2), "repeat_interleave": lambda T: x(T).repeat_interleave(2),
    "tril": lambda T: x(T).tril(), "triu": lambda T: x(T).triu(1),
    "swapaxes": lambda T: x(T).swapaxes(0, 1),
    "detach_view": lambda T: x(T).detach().requires_grad_()[0],
})

# ---- indexing, gather/scatter, masks --------------------------------------------------------------
P.update({
    "gather": lambda T: x(T).gather(1, T.tensor([[0, 1], [2, 0]])),
    "scatter": lambda T: x(T).scatter(1, T.tensor([[0], [1]]), x(T, (2, 1), seed=1)),
    "scatter_s": lambda T: x(T).scatter(1, T.tensor([[0], [1]]), 2.0),
    "scatter_add": lambda T: x(T).scatter_add(1, T.tensor([[0], [1]]), x(T, (2, 1), seed=1)),
    "scatter_reduce": lambda T: x(T).scatter_reduce(1, T.tensor([[0], [1]]), x(T, (2, 1), seed=1), "sum"),
    "index_select": lambda T: x(T).index_select(1, T.tensor([0, 2])),
    "index_add": lambda T: x(T).index_add(0, T.tensor([1]), x(T, (1, 3), seed=1)),
    "index_copy": lambda T: x(T).index_copy(0, T.tensor([1]), x(T, (1, 3), seed=1)),
    "index_fill": lambda T: x(T).index_fill(0, T.tensor([1]), 2.0),
    "index_put": lambda T: x(T).index_put((T.tensor([1]),), x(T, (1, 3), seed=1)),
    "masked_select": lambda T: x(T).masked_select(x(T, seed=4) > 0),
    "masked_scatter": lambda T: x(T).masked_scatter(x(T, seed=4) > 0, x(T, seed=1)),
    "take": lambda T: x(T).take(T.tensor([0, 5])),
    "take_along_dim": lambda T: T.take_along_dim(x(T), T.tensor([[0], [1]]), 1),
    "index_reduce": lambda T: x(T).index_reduce(0, T.tensor([1]), x(T, (1, 3), seed=1), "prod"),
    "put": lambda T: x(T).put(T.tensor([1]), x(T, (1,), seed=1)),
    "nonzero_idx": lambda T: x(T)[T.nonzero(x(T, seed=4) > 0, as_tuple=True)],
})

# ---- joining, grids, contractions --------------------------------------------------------------
P.update({
    "cat": lambda T: T.cat([x(T), x(T, seed=1)]), "cat1": lambda T: T.cat([x(T), x(T, seed=1)], 1),
    "stack": lambda T: T.stack([x(T), x(T, seed=1)]), "hstack": lambda T: T.hstack([x(T), x(T, seed=1)]),
    "vstack": lambda T: T.vstack([x(T), x(T, seed=1)]), "dstack": lambda T: T.dstack([x(T), x(T, seed=1)]),
    "column_stack": lambda T: T.column_stack([x(T), x(T, seed=1)]),
    "block_diag": lambda T: T.block_diag(x(T), x(T, seed=1)), "concat": lambda T: T.concat([x(T), x(T, seed=1)]),
    "cartesian_prod": lambda T: T.cartesian_prod(x(T, (2,)), x(T, (3,), seed=1)),
    "meshgrid": lambda T: T.meshgrid(x(T, (2,)), x(T, (3,), seed=1), indexing="ij"),
    "broadcast_tensors": lambda T: T.broadcast_tensors(x(T, (2, 1)), x(T, (3,), seed=1)),
    "broadcast_to": lambda T: T.broadcast_to(x(T, (3,)), (2, 3)),
    "einsum": lambda T: T.einsum("ij,kj->ik", x(T), x(T, seed=1)),
    "tensordot": lambda T: T.tensordot(x(T), x(T, seed=1), ([1], [1])),
    "outer": lambda T: T.outer(x(T, (2,)), x(T, (3,), seed=1)),
})

# ---- the matmul family ----------------------------------------------------------------------------
P.update({
    "mm": lambda T: T.mm(x(T), x(T, (3, 2), seed=1)), "matmul": lambda T: x(T) @ x(T, (3, 2), seed=1),
    "matmul_v": lambda T: x(T) @ x(T, (3,), seed=1), "matmul_vv": lambda T: x(T, (3,)) @ x(T, (3,), seed=1),
    "matmul_vm": lambda T: x(T, (2,)) @ x(T, (2, 3), seed=1),
    "matmul_b": lambda T: x(T, (2, 2, 3)) @ x(T, (3, 2), seed=1),
    "matmul_bb": lambda T: x(T, (2, 2, 3)) @ x(T, (2, 3, 2), seed=1),
    "bmm": lambda T: T.bmm(x(T, (2, 2, 3)), x(T, (2, 3, 2), seed=1)),
    "mv": lambda T: T.mv(x(T), x(T, (3,), seed=1)), "dot": lambda T: T.dot(x(T, (3,)), x(T, (3,), seed=1)),
    "vdot": lambda T: T.vdot(x(T, (3,)), x(T, (3,), seed=1)),
    "addmm": lambda T: T.addmm(x(T, (2, 2)), x(T), x(T, (3, 2), seed=1)),
    "addmm_ab": lambda T: T.addmm(x(T, (2, 2)), x(T), x(T, (3, 2), seed=1), beta=0.5, alpha=2),
    "addmv": lambda T: T.addmv(x(T, (2,)), x(T), x(T, (3,), seed=1)),
    "baddbmm": lambda T: T.baddbmm(x(T, (2, 2, 2)), x(T, (2, 2, 3)), x(T, (2, 3, 2), seed=1)),
    "linear": lambda T: T.nn.functional.linear(x(T), x(T, (4, 3), seed=1), x(T, (4,), seed=2)),
    "linear_nb": lambda T: T.nn.functional.linear(x(T), x(T, (4, 3), seed=1)),
    "linear_3d": lambda T: T.nn.functional.linear(x(T, (2, 2, 3)), x(T, (4, 3), seed=1), x(T, (4,), seed=2)),
    "bilinear": lambda T: T.nn.functional.bilinear(x(T), x(T, seed=1), x(T, (4, 3, 3), seed=2)),
})


# ---- nn.functional: activations, normalization, embedding, padding, resampling -------------------
P.update({
    "F_relu": lambda T: F(T).relu(x(T)),
    "F_gelu": lambda T: F(T).gelu(x(T)),
    "F_gelu_t": lambda T: F(T).gelu(x(T), approximate="tanh"),
    "F_silu": lambda T: F(T).silu(x(T)), "F_elu": lambda T: F(T).elu(x(T)), "F_selu": lambda T: F(T).selu(x(T)),
    "F_celu": lambda T: F(T).celu(x(T)), "F_leaky": lambda T: F(T).leaky_relu(x(T), 0.1),
    "F_hardtanh": lambda T: F(T).hardtanh(x(T)), "F_relu6": lambda T: F(T).relu6(x(T)),
    "F_softplus": lambda T: F(T).softplus(x(T)), "F_mish": lambda T: F(T).mish(x(T)),
    "F_hardswish": lambda T: F(T).hardswish(x(T)), "F_hardsigmoid": lambda T: F(T).hardsigmoid(x(T)),
    "F_logsigmoid": lambda T: F(T).logsigmoid(x(T)), "F_softsign": lambda T: F(T).softsign(x(T)),
    "F_tanhshrink": lambda T: F(T).tanhshrink(x(T)), "F_threshold": lambda T: F(T).threshold(x(T), 0.1, 2.0),
    "F_prelu": lambda T: F(T).prelu(x(T), x(T, (1,), seed=1)), "F_glu": lambda T: F(T).glu(x(T, (2, 4))),
    "F_softmax": lambda T: F(T).softmax(x(T), 1), "F_log_softmax": lambda T: F(T).log_softmax(x(T), 1),
    "F_softmin": lambda T: F(T).softmin(x(T), 1), "F_hardshrink": lambda T: F(T).hardshrink(x(T)),
    "F_softshrink": lambda T: F(T).softshrink(x(T)), "F_rrelu_eval": lambda T: F(T).rrelu(x(T), training=False),
    "F_dropout_eval": lambda T: F(T).dropout(x(T), training=False),
    "F_normalize": lambda T: F(T).normalize(x(T)),
    "F_layer_norm": lambda T: F(T).layer_norm(x(T), (3,), x(T, (3,), seed=1), x(T, (3,), seed=2)),
    "F_layer_norm_nw": lambda T: F(T).layer_norm(x(T), (3,)),
    "F_group_norm": lambda T: F(T).group_norm(x(T, (2, 4, 3)), 2, x(T, (4,), seed=1), x(T, (4,), seed=2)),
    "F_batch_norm": lambda T: (
        F(T).batch_norm(x(T, (4, 3)), None, None, x(T, (3,), seed=1), x(T, (3,), seed=2), training=True)),
    "F_batch_norm_eval": lambda T: (
        F(T).batch_norm(x(T, (4, 3)), T.zeros(3, dtype=T.float64), T.ones(3, dtype=T.float64),
                        x(T, (3,), seed=1), x(T, (3,), seed=2))),
    "F_instance_norm": lambda T: F(T).instance_norm(x(T, (2, 3, 4))),
    "F_instance_norm_rs": lambda T: F(T).instance_norm(
        x(T, (2, 3, 4)), T.zeros(3, dtype=T.float64), T.ones(3, dtype=T.float64), x(T, (3,), seed=1),
        x(T, (3,), seed=2), use_input_stats=True),
    "F_batch_norm_3d": lambda T: F(T).batch_norm(x(T, (2, 3, 4)), None, None, training=True),
    "F_group_norm_nw": lambda T: F(T).group_norm(x(T, (2, 4, 3)), 2),
    "F_rms_norm": lambda T: F(T).rms_norm(x(T), (3,), x(T, (3,), seed=1)),
    "F_embedding": lambda T: F(T).embedding(T.tensor([0, 2]), x(T, (3, 2))),
    "F_one_hot_mul": lambda T: F(T).one_hot(T.tensor([0, 2]), 3) * x(T),
    "F_pad": lambda T: F(T).pad(x(T), (1, 1)),
    "F_pad_refl": lambda T: F(T).pad(x(T, (1, 2, 3)), (1, 1), mode="reflect"),
    "F_pad_repl": lambda T: F(T).pad(x(T, (1, 2, 3)), (1, 1), mode="replicate"),
    "F_pad_circ": lambda T: F(T).pad(x(T, (1, 2, 3)), (1, 1), mode="circular"),
    "F_cosine_sim": lambda T: F(T).cosine_similarity(x(T), x(T, seed=1)),
    "F_pairwise": lambda T: F(T).pairwise_distance(x(T), x(T, seed=1)),
    "F_interp": lambda T: F(T).interpolate(x(T, (1, 2, 3)), scale_factor=2),
    "F_interp_lin": lambda T: F(T).interpolate(x(T, (1, 2, 3)), scale_factor=2, mode="linear"),
    "F_interp_bil": lambda T: F(T).interpolate(x(T, (1, 1, 2, 3)), scale_factor=2, mode="bilinear"),
    "F_unfold": lambda T: F(T).unfold(x(T, (1, 1, 3, 3)), 2),
    "F_fold": lambda T: F(T).fold(x(T, (1, 4, 4)), (3, 3), 2),
})


# ---- losses ------------------------------------------------------------------------------------
P.update({
    "mse": lambda T: F(T).mse_loss(x(T), x(T, seed=1)),
    "mse_none": lambda T: F(T).mse_loss(x(T), x(T, seed=1), reduction="none"),
    "l1": lambda T: F(T).l1_loss(x(T), x(T, seed=1)), "smooth_l1": lambda T: F(T).smooth_l1_loss(x(T), x(T, seed=1)),
    "huber": lambda T: F(T).huber_loss(x(T), x(T, seed=1)),
    "ce": lambda T: F(T).cross_entropy(x(T), tgt(T)),
    "ce_prob": lambda T: F(T).cross_entropy(x(T), x(T, seed=1).softmax(1)),
    "ce_ls": lambda T: F(T).cross_entropy(x(T), tgt(T), label_smoothing=0.1),
    "nll": lambda T: F(T).nll_loss(x(T), tgt(T)),
    "nll2d": lambda T: F(T).nll_loss(x(T, (2, 3, 2, 2)), T.zeros(2, 2, 2, dtype=T.long)),
    "bce": lambda T: F(T).binary_cross_entropy(x(T).sigmoid(), x(T, seed=1).sigmoid()),
    "bce_logits": lambda T: F(T).binary_cross_entropy_with_logits(x(T), x(T, seed=1).sigmoid()),
    "bce_logits_pw": lambda T: (
        F(T).binary_cross_entropy_with_logits(x(T), x(T, seed=1).sigmoid(), pos_weight=x(T, (3,), seed=2).detach())),
    "kl_div": lambda T: F(T).kl_div(x(T).log_softmax(1), x(T, seed=1).softmax(1), reduction="batchmean"),
    "soft_margin": lambda T: F(T).soft_margin_loss(x(T), x(T, seed=1).detach().sign()),
    "margin_ranking": lambda T: F(T).margin_ranking_loss(x(T), x(T, seed=1), x(T, seed=2).sign()),
    "hinge_emb": lambda T: F(T).hinge_embedding_loss(x(T), x(T, seed=2).sign()),
    "poisson_nll": lambda T: F(T).poisson_nll_loss(x(T), x(T, seed=1).abs()),
    "gaussian_nll": lambda T: F(T).gaussian_nll_loss(x(T), x(T, seed=1), x(T, seed=2).abs()),
    "multilabel_soft": lambda T: F(T).multilabel_soft_margin_loss(x(T), (x(T, seed=1) > 0).double()),
})

# ---- convolution and pooling ----------------------------------------------------------------------
P.update({
    "conv1d": lambda T: F(T).conv1d(x(T, (1, 2, 5)), x(T, (3, 2, 2), seed=1), x(T, (3,), seed=2)),
    "conv2d": lambda T: F(T).conv2d(x(T, (1, 2, 4, 4)), x(T, (3, 2, 2, 2), seed=1)),
    "conv2d_b": lambda T: (
        F(T).conv2d(x(T, (1, 2, 4, 4)), x(T, (3, 2, 2, 2), seed=1), x(T, (3,), seed=2), padding=1, stride=2)),
    "conv2d_unb": lambda T: F(T).conv2d(x(T, (2, 4, 4)), x(T, (3, 2, 2, 2), seed=1)),
    "conv_t1d": lambda T: F(T).conv_transpose1d(x(T, (1, 2, 5)), x(T, (2, 3, 2), seed=1)),
    "conv_t2d": lambda T: F(T).conv_transpose2d(x(T, (1, 2, 3, 3)), x(T, (2, 3, 2, 2), seed=1), x(T, (3,), seed=2)),
    "conv2d_groups": lambda T: F(T).conv2d(x(T, (1, 2, 4, 4)), x(T, (2, 1, 2, 2), seed=1), groups=2),
    "max_pool1d": lambda T: F(T).max_pool1d(x(T, (1, 2, 4)), 2),
    "max_pool2d": lambda T: F(T).max_pool2d(x(T, (1, 1, 4, 4)), 2),
    "max_pool2d_idx": lambda T: F(T).max_pool2d(x(T, (1, 1, 4, 4)), 2, return_indices=True)[0],
    "avg_pool1d": lambda T: F(T).avg_pool1d(x(T, (1, 2, 4)), 2),
    "avg_pool2d": lambda T: F(T).avg_pool2d(x(T, (1, 1, 4, 4)), 2),
    "adaptive_avg2d": lambda T: F(T).adaptive_avg_pool2d(x(T, (1, 1, 4, 4)), 2),
    "adaptive_avg2d_1": lambda T: F(T).adaptive_avg_pool2d(x(T, (1, 1, 4, 4)), 1),
    "adaptive_avg1d": lambda T: F(T).adaptive_avg_pool1d(x(T, (1, 1, 4)), 2),
    "adaptive_max2d": lambda T: F(T).adaptive_max_pool2d(x(T, (1, 1, 4, 4)), 2),
})

# ---- copies, conversions, mixed operands -----------------------------------------------------------
P.update({
    "clone": lambda T: x(T).clone(), "to_f32": lambda T: x(T).to(T.float32), "float": lambda T: x(T).float(),
    "double_noop": lambda T: x(T).double(), "type": lambda T: x(T).type(T.float32), "to_cpu": lambda T: x(T).to("cpu"),
    "cpu": lambda T: x(T).cpu(), "half": lambda T: x(T).half(),
    "to_copy": lambda T: x(T).to(T.float64, copy=True), "detach_mul": lambda T: x(T).detach() * x(T),
    "std_unbiased": lambda T: x(T).std(1, keepdim=True), "where_sc": lambda T: T.where(x(T) > 0, 1.0, x(T)),
    "sum_backward_chain": lambda T: ((x(T) * 2).sum(1) - 1).exp().mean(),
    "mul_0d": lambda T: x(T) * T.tensor(2.0, dtype=T.float64), "mul_0d_rg": lambda T: x(T) * x(T, ()),
    "zero_dim_add": lambda T: x(T, ()) + 1, "item_chain": lambda T: (x(T) + x(T)).sum(),
    "requires_grad_mixed": lambda T: x(T) + T.ones(2, 3, dtype=T.float64),
})


# torch records these as one native node (its own kernel and derivatives.yaml entry); jtorch
# decomposes them into smaller operators, so the graphs differ
DECOMPOSED: dict[str, str] = {}


def graph(node: Any, depth: int = 0) -> Any:
    """[name, [[graph of each next function, input_nr], ...]], None for no node."""
    if node is None:
        return None
    assert depth < 40, "graph too deep"
    return [node.name(), [[graph(n, depth + 1), i] for n, i in node.next_functions]]


def graphs(out: Any) -> list:
    outs = out if isinstance(out, (tuple, list)) else [out]
    return [graph(o.grad_fn) for o in outs]


def _params() -> list:
    return [pytest.param(name, marks=pytest.mark.xfail(reason=f"torch records {DECOMPOSED[name]}", strict=False))
            if name in DECOMPOSED else name for name in P]


@pytest.mark.parametrize("name", _params())
def test_recorded_graph_equals_torch(name: str) -> None:
    torch = oracle_torch()
    program = P[name]
    assert graphs(program(jtorch)) == graphs(program(torch))


def test_the_sweep_covers_every_family() -> None:
    """The programs above reach each family (a guard against the list shrinking unnoticed)."""
    prefixes = ("F_", "conv", "max_pool", "avg_pool", "adaptive", "i", "setitem", "matmul", "mm", "cat", "stack",
                "sum", "index", "scatter", "view", "split", "mse", "ce", "to_", "clone", "r")
    for p in prefixes:
        assert any(n.startswith(p) for n in P), p
    assert len(P) > 300
