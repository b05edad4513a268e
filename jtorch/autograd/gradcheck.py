"""gradcheck and gradgradcheck (torch/autograd/gradcheck.py, the slow mode).

The numerical Jacobian comes from central differences in the inputs' own dtype (use float64);
the analytical one from one `autograd.grad` per output element, computed twice (a backward that
differs the second time is not reentrant). A mismatch raises GradcheckError with torch's message:
which output and input (numbered among the differentiable ones), then both Jacobians as tensors.
Then, as torch, zero grad_outputs must give zero gradients.
"""
from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

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
    flat = x.data  # writes go into x's memory, restored after each probe; as torch's `.data`, not
    # seen by x's version counter, so the graph of outputs made before stays usable
    n = x.numel()
    cols: list[list[np.ndarray]] = []
    with no_grad():
        for k in range(n):
            idx = np.unravel_index(k, tuple(x.shape)) if x.dim() else ()
            orig = float(flat[idx].item()) if x.dim() else float(flat.item())

            def at(v: float) -> list[np.ndarray]:
                if x.dim():
                    flat[idx] = v  # noqa: B023  (called within this iteration only)
                else:
                    flat.fill_(v)
                outs = _outputs(func, inputs)
                return [o.detach().numpy(force=True).astype(np.float64).reshape(-1).copy() for o in outs]

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


def _analytical(output: Tensor, inputs: tuple, diff: list[int]) -> tuple[list[np.ndarray], bool, bool]:
    """The Jacobian of `output` with respect to every differentiable input, a row (one grad call) per
    output element, as torch's _compute_analytical_jacobian_rows; also whether every gradient had its
    input's dtype and size."""
    xs = [inputs[i] for i in diff]
    res = [np.zeros((x.numel(), output.numel())) for x in xs]
    types_ok = sizes_ok = True
    for k in range(output.numel()):
        g = output.new_zeros(output.shape)
        g.reshape(-1)[k] = 1
        for m, x, gx in zip(res, xs, _grad(output, xs, g, retain_graph=True, allow_unused=True)):
            if gx is None:
                continue
            if gx.shape != x.shape:
                sizes_ok = False
                continue
            if gx.dtype != x.dtype:
                types_ok = False
            m[:, k] = gx.detach().numpy(force=True).astype(np.float64).reshape(-1)
    return res, types_ok, sizes_ok


FAILED_NONDET_MSG = """\n
NOTE: If your op relies on non-deterministic operations i.e., it is listed here:
https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html
this failure might be expected.

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `nondet_tol=<tol>` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_nondet_tol=<tol>`.
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_nondet_tol=<tol>`
"""


def _check_analytical(output: Tensor, inputs: tuple, diff: list[int], nondet_tol: float,
                      check_grad_dtypes: bool) -> list[np.ndarray]:
    """_check_analytical_jacobian_attributes: everything computed twice (a backward that gives
    different values the second time is "not reentrant"), then the dtype and size checks."""
    first, types_ok, sizes_ok = _analytical(output, inputs, diff)
    second = _analytical(output, inputs, diff)[0]
    reentrant = all(a.size == 0 or np.abs(a - b).max() <= nondet_tol for a, b in zip(first, second))
    if not types_ok and check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    if not sizes_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    if not reentrant:
        raise GradcheckError("Backward is not reentrant, i.e., running backward with same input and grad_output "
                             "multiple times gives different values, although analytical gradient matches numerical "
                             f"gradient.The tolerance for nondeterminism was {nondet_tol}." + FAILED_NONDET_MSG)
    return first


def gradcheck(func: Callable, inputs: Any, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
              check_grad_dtypes: bool = False, check_batched_grad: bool = False,
              check_batched_forward_grad: bool = False, check_forward_ad: bool = False,
              check_backward_ad: bool = True, fast_mode: bool = False, masked: bool | None = None) -> bool:
    """Check the gradients of `func` at `inputs` against finite differences (float64 inputs)."""
    if not raise_exception:  # torch's wrapper: any GradcheckError becomes False
        try:
            return _gradcheck(func, inputs, eps, atol, rtol, nondet_tol, check_grad_dtypes)
        except GradcheckError:
            return False
    return _gradcheck(func, inputs, eps, atol, rtol, nondet_tol, check_grad_dtypes)


def _gradcheck(func: Callable, inputs: Any, eps: float, atol: float, rtol: float, nondet_tol: float,
               check_grad_dtypes: bool) -> bool:
    """torch's _slow_gradcheck. Outputs and inputs are numbered among the differentiable ones, as
    torch's messages number them."""
    inputs = _as_tuple(inputs)
    diff = _diff_inputs(inputs)
    if not diff:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of them "
                         "have requires_grad=True.")
    for i in diff:
        if inputs[i].dtype.name not in ("float64", "complex128"):
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating point or complex. "
                          "This check will likely fail if all the inputs are not of double precision floating point "
                          "or complex. ", UserWarning, stacklevel=3)
    with enable_grad():
        func_out = _outputs(func, inputs)
    numerical = [_numerical(func, inputs, i, eps) for i in diff]  # [input][output]
    if not any(o.requires_grad for o in func_out):  # _check_no_differentiable_outputs
        if any(np.any(n != 0) for per_input in numerical for n in per_input):
            raise GradcheckError("Numerical gradient for function expected to be zero")
        return True
    outputs = [(o, [per_input[j] for per_input in numerical]) for j, o in enumerate(func_out) if o.requires_grad]
    for i, (o, numerical_o) in enumerate(outputs):
        analytical = _check_analytical(o, inputs, diff, nondet_tol, check_grad_dtypes)
        for j, (a, n) in enumerate(zip(analytical, numerical_o)):
            if a.shape != n.shape or not np.allclose(a, n, rtol=rtol, atol=atol):
                x = inputs[diff[j]]
                raise GradcheckError(f"Jacobian mismatch for output {i} with respect to input {j},\n"
                                     f"numerical:{_as_tensor(n, o)}\nanalytical:{_as_tensor(a, x)}\n")
    _test_backward_mul_by_grad_output([o for o, _ in outputs], [inputs[i] for i in diff])
    return True


def _test_backward_mul_by_grad_output(outputs: list, xs: list) -> None:
    """Zero grad_outputs must give zero gradients (a backward that ignores its grad_output fails)."""
    with enable_grad():
        grads = _grad(outputs, xs, [o.new_zeros(o.shape) for o in outputs], allow_unused=True)
    for gi, x in zip(grads, xs):
        if gi is None:
            continue
        if not bool((gi == 0).all()):
            raise GradcheckError("backward not multiplied by grad_output")
        if gi.dtype != x.dtype:
            raise GradcheckError("grad is incorrect type")
        if gi.device != x.device:
            raise GradcheckError("grad is incorrect device")
        if gi.shape != x.shape:
            raise GradcheckError("grad is incorrect size")


def _as_tensor(m: np.ndarray, like: Tensor) -> Tensor:
    """A Jacobian as torch's message prints it: a tensor of `like`'s dtype (the numerical one has
    the output's, the analytical one the input's)."""
    return like.new_tensor(m, dtype=like.dtype)


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
