"""Adam's update as scalar functions, for the fused optimizer step (`_fused_adam_`).

Each one is composed of the very scalar functions that the single-tensor step's operators run
(lerp_, mul_, addcmul_, sqrt, div_, add_, addcdiv_, maximum), applied in the same order to values
of the same dtype, so a fused step rounds exactly as the op-by-op one does: only the passes over
memory and the per-operator calls are saved. Flags arrive as numbers of the compute dtype.
"""
from .scalar_binary import add, addcdiv, addcmul, div, lerp, mul
from .scalar_unary import neg, sqrt


def adam_grad(grad, param, weight_decay, maximize):
    # `grad = -p.grad if maximize`, then L2 decay `grad.add(p, alpha=weight_decay)`
    g = neg(grad) if maximize != 0 else grad
    if weight_decay != 0:
        g = add(g, param, weight_decay)
    return g


def adam_exp_avg(exp_avg, grad, param, weight, weight_decay, maximize):
    # exp_avg.lerp_(grad, 1 - beta1)
    return lerp(exp_avg, adam_grad(grad, param, weight_decay, maximize), weight)


def adam_exp_avg_sq(exp_avg_sq, grad, param, beta2, weight, weight_decay, maximize):
    # exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    g = adam_grad(grad, param, weight_decay, maximize)
    return addcmul(mul(exp_avg_sq, beta2), g, g, weight)


def adam_param(param, exp_avg, denom_source, decay, bias_correction2_sqrt, eps, neg_step_size):
    # p.mul_(1 - lr * weight_decay) (AdamW; decay is 1 otherwise, an exact no-op), then
    # p.addcdiv_(exp_avg, denom_source.sqrt() / bias_correction2_sqrt + eps, value=-step_size)
    denom = div(sqrt(denom_source), bias_correction2_sqrt) + eps
    return addcdiv(mul(param, decay), exp_avg, denom, neg_step_size)
