"""gradcheck and gradgradcheck (torch/autograd/gradcheck.py, the slow mode).

The numerical Jacobian comes from central differences in the inputs' own dtype (use float64);
the analytical one from one `autograd.grad` per output element. A mismatch raises GradcheckError
with torch's message: which output and input, then both Jacobians.
"""
from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np

from ..tensor import Tensor
from .api import grad as _grad
from .grad_mode import enable_grad, no_grad


class GradcheckError(RuntimeError):
    """Raised by gradcheck and gradgradcheck when the Jacobians differ."""


def _as_tuple(x: Any) -> tuple:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _diff_inputs(inputs: tuple) -> list[int]:
    return [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]


def _outputs(func: Callable, inputs: tuple) -> tuple:
    return tuple(o for o in _as_tuple(func(*inputs)) if isinstance(o, Tensor))


def _numerical(func: Callable, inputs: tuple, i: int, eps: float) -> list[np.ndarray]:
    """d outputs / d inputs[i], one (numel_in x numel_out) matrix per differentiable output."""
    x = inputs[i]
    flat = x.detach()  # writes go into x's memory (shared), restored after each probe
    n = x.numel()
    cols: list[list[np.ndarray]] = []
    with no_grad():
        for k in range(n):
            idx = np.unravel_index(k, tuple(x.shape)) if x.dim() else ()
            orig = float(flat[idx].item()) if x.dim() else float(flat.item())

            def at(v: float) -> list[np.ndarray]:
                if x.dim():
                    flat[idx] = v
                else:
                    flat.fill_(v)
                outs = _outputs(func, inputs)
                return [o.detach().numpy().astype(np.float64).reshape(-1).copy() for o in outs]

            plus, minus = at(orig + eps), at(orig - eps)
            if x.dim():
                flat[idx] = orig
            else:
                flat.fill_(orig)
            cols.append([(p - m) / (2 * eps) for p, m in zip(plus, minus)])
    if not cols:  # an empty input: a 0-row Jacobian per output
        with no_grad():
            return [np.zeros((0, o.numel())) for o in _outputs(func, inputs)]
    return [np.stack([c[j] for c in cols]) for j in range(len(cols[0]))]


def _analytical(outputs: tuple, inputs: tuple, i: int) -> list[np.ndarray]:
    x = inputs[i]
    res = []
    for o in outputs:
        m = np.zeros((x.numel(), o.numel()))
        if o.requires_grad:
            for k in range(o.numel()):
                g = o.new_zeros(o.shape)
                g.reshape(-1)[k] = 1
                (gx,) = _grad(o, x, g, retain_graph=True, allow_unused=True)
                if gx is not None:
                    m[:, k] = gx.detach().numpy().astype(np.float64).reshape(-1)
        res.append(m)
    return res


def _fail(msg: str, raise_exception: bool) -> bool:
    if raise_exception:
        raise GradcheckError(msg)
    return False


def gradcheck(func: Callable, inputs: Any, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
              check_grad_dtypes: bool = False, check_batched_grad: bool = False,
              check_batched_forward_grad: bool = False, check_forward_ad: bool = False,
              check_backward_ad: bool = True, fast_mode: bool = False, masked: bool | None = None) -> bool:
    """Check the gradients of `func` at `inputs` against finite differences (float64 inputs)."""
    inputs = _as_tuple(inputs)
    diff = _diff_inputs(inputs)
    if not diff:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of the them "
                         "have requires_grad=True.")
    for i in diff:
        if inputs[i].dtype.name not in ("float64", "complex128"):
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating point or complex. "
                          "This check will likely fail if all the inputs are not of double precision floating point "
                          "or complex. ", UserWarning, stacklevel=2)
    for i in diff:
        numerical = _numerical(func, inputs, i, eps)
        with enable_grad():  # after the probes, which write into the inputs (new versions)
            analytical = _analytical(_outputs(func, inputs), inputs, i)
        for j, (a, n) in enumerate(zip(analytical, numerical)):
            if a.shape != n.shape or not np.allclose(a, n, rtol=rtol, atol=atol):
                return _fail(f"Jacobian mismatch for output {j} with respect to input {i},\n"
                             f"numerical:{_fmt(n)}\nanalytical:{_fmt(a)}\n", raise_exception)
    return True


def _fmt(m: np.ndarray) -> str:
    return "tensor(" + np.array2string(m, separator=", ", prefix="tensor(") + ")"


def gradgradcheck(func: Callable, inputs: Any, grad_outputs: Any = None, *, eps: float = 1e-6, atol: float = 1e-5,
                  rtol: float = 1e-3, gen_non_contig_grad_outputs: bool = False, raise_exception: bool = True,
                  nondet_tol: float = 0.0, check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
                  check_batched_grad: bool = False, check_fwd_over_rev: bool = False, check_rev_over_rev: bool = True,
                  fast_mode: bool = False, masked: bool = False) -> bool:
    """gradcheck of the function that maps (inputs, grad_outputs) to the gradients of `func`."""
    inputs = _as_tuple(inputs)
    diff = _diff_inputs(inputs)
    with enable_grad():
        outputs = _outputs(func, inputs)
    if grad_outputs is None:
        grad_outputs = tuple(o.detach().clone().normal_().requires_grad_() for o in outputs
                             if o.dtype.is_floating_point)
    grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)

    def first_order(*args: Any) -> tuple:
        ins, gos = args[:n_in], args[n_in:]
        with enable_grad():  # also under the numerical probes' no_grad: the gradients are the outputs here
            outs = _outputs(func, ins)
            d = [ins[i] for i in diff]
            grads = _grad([o for o in outs if o.requires_grad], d,
                          [g for o, g in zip(outs, gos) if o.requires_grad], create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_order, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
