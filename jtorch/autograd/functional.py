"""`jtorch.autograd.functional` (torch/autograd/functional.py): vjp, jvp, jacobian, hessian, vhp, hvp.

Built on `autograd.grad` as torch builds them: jvp and hvp by the double-backward trick, jacobian
one reverse pass per output element, hessian the jacobian of the jacobian. Results, their nesting
(tuples for tuple inputs/outputs) and error texts are torch's. `vectorize=True` gives the same
values by the same per-element loop (there is no vmap/batched grad here); the forward-mode
strategy needs forward AD, which jtorch does not have. A front-end module (layer 0): it uses
the generated `jtorch.stack`/`jtorch.zeros_like` bindings.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..tensor import Tensor
from .api import grad as _grad
from .grad_mode import enable_grad, is_grad_enabled, set_grad_enabled

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _torch() -> Any:
    import jtorch

    return jtorch


def _as_tuple(inp: Any, arg_name: str, fn_name: str) -> tuple:
    is_tuple = isinstance(inp, tuple)
    if not is_tuple:
        inp = (inp,)
    for i, el in enumerate(inp):
        if not isinstance(el, Tensor):
            where = f"value at index {i}" if is_tuple else f"given {arg_name}"
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but the "
                            f"{where} has type {type(el)}.")
    return is_tuple, inp


def _tuple_postprocess(res: Any, to_unpack: Any) -> Any:
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _grad_preprocess(inputs: tuple, create_graph: bool, need_graph: bool) -> tuple:
    """Fresh leaves (or, with create_graph, aliases keeping the inputs' history)."""
    return tuple(inp.view_as(inp) if create_graph and inp.requires_grad else inp.detach().requires_grad_(need_graph)
                 for inp in inputs)


def _grad_postprocess(inputs: tuple, create_graph: bool) -> tuple:
    if isinstance(inputs[0], Tensor):
        return inputs if create_graph else tuple(inp.detach() for inp in inputs)
    return tuple(_grad_postprocess(inp, create_graph) for inp in inputs)


def _validate_v(v: tuple, other: tuple, is_other_tuple: bool) -> None:
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise RuntimeError(f"{prepend}v has invalid size: should be {el_other.size()} but got {el_v.size()}.")


_INDEPENDENT = {
    "hessian": "The hessian of the user-provided function with respect to input {i} is independent of the input. This "
               "is not allowed in strict mode. You should ensure that your function is thrice differentiable and that "
               "the hessian depends on the inputs.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided function with respect to "
                "input {i} is independent of the input. This is not allowed in strict mode. You should ensure that "
                "your function is twice differentiable and that the jacobian depends on the inputs (this would be "
                "violated by a linear function for example).",
    "grad_inputs": "The gradient with respect to input {i} is independent of the inputs of the user-provided function. "
                   "This is not allowed in strict mode.",
    "outputs": "Output {i} of the user-provided function does not require gradients. The outputs must be computed in a "
               "differentiable manner from the input when running in strict mode.",
}


def _check_requires_grad(inputs: tuple, input_type: str, strict: bool) -> None:
    if not strict:
        return
    for i, inp in enumerate(inputs):
        if inp is None:
            raise RuntimeError(f"The output of the user-provided function is independent of input {i}. This is not "
                               "allowed in strict mode.")
        if not inp.requires_grad:
            raise RuntimeError(_INDEPENDENT[input_type].format(i=i))


def _autograd_grad(outputs: tuple, inputs: tuple, grad_outputs: tuple | None = None, create_graph: bool = False,
                   retain_graph: bool | None = None) -> tuple:
    """autograd.grad over the outputs that require grad; all None when none does."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return _grad(tuple(o for o, _ in pairs), inputs, tuple(g for _, g in pairs), allow_unused=True,
                 create_graph=create_graph, retain_graph=retain_graph)


_ZERO_MSG = {
    "back": "The output of the user-provided function is independent of input {i}. This is not allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the grad_outputs when using "
                  "the double backward trick to compute forward mode gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This is not allowed in "
                   "strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} in the grad_jacobian. "
                         "This is not allowed in strict mode as it prevents from using the double backward trick to "
                         "replace forward mode AD.",
}


def _fill_in_zeros(grads: tuple, refs: tuple, strict: bool, create_graph: bool, stage: str) -> tuple:
    res = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_ZERO_MSG[stage].format(i=i))
            g = _torch().zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of input {i}. This is not "
                               "allowed in strict mode when create_graph=True.")
        res.append(g)
    return tuple(res)


def _last_backward(outputs: tuple, inputs: tuple, v: tuple | None, refs: tuple, strict: bool, create_graph: bool,
                   stage: str) -> tuple:
    """The backward that gives vjp's, jvp's, vhp's and hvp's result: in the caller's grad mode (on for
    create_graph), zeros like `refs` where the result is independent of `v`."""
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        return _fill_in_zeros(_autograd_grad(outputs, inputs, v, create_graph=create_graph), refs, strict,
                              create_graph, stage)


def _double_back_trick(outputs: tuple, inputs: tuple, like: tuple) -> tuple[tuple, tuple]:
    """(u, J^T u) for a dummy u of zeros like `like` that requires grad: the graph of J^T u is kept, so that
    its gradient with respect to u against v is J v (forward mode by two reverse passes)."""
    u = tuple(_torch().zeros_like(t, requires_grad=True) for t in like)
    return u, _autograd_grad(outputs, inputs, u, create_graph=True)


def _prepare_v(v: Any, other: tuple, is_other_tuple: bool, create_graph: bool, fn: str) -> tuple:
    _, v = _as_tuple(v, "v", fn)
    v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
    _validate_v(v, other, is_other_tuple)
    return v


def vjp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> tuple:
    """(func(inputs), v^T J): the vector-Jacobian product at `inputs`."""
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        if v is not None:
            v = _prepare_v(v, outputs, is_outputs_tuple, create_graph, "vjp")
        elif len(outputs) != 1 or outputs[0].nelement() != 1:
            raise RuntimeError("The vector v can only be None if the user-provided function returns a single Tensor "
                               "with a single element.")
    res = _last_backward(outputs, inputs, v, inputs, strict, create_graph, "back")
    return (_tuple_postprocess(_grad_postprocess(outputs, create_graph), is_outputs_tuple),
            _tuple_postprocess(_grad_postprocess(res, create_graph), is_inputs_tuple))


def jvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> tuple:
    """(func(inputs), J v), by the double-backward trick: J v is the gradient of (u -> J^T u) . v."""
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        if v is not None:
            v = _prepare_v(v, inputs, is_inputs_tuple, create_graph, "jvp")
        elif len(inputs) != 1 or inputs[0].nelement() != 1:
            raise RuntimeError("The vector v can only be None if the input to the user-provided function is a single "
                               "Tensor with a single element.")
        is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jvp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        grad_outputs, grad_inputs = _double_back_trick(outputs, inputs, outputs)
        _check_requires_grad(grad_inputs, "grad_inputs", strict=strict)
    res = _last_backward(grad_inputs, grad_outputs, v, outputs, strict, create_graph, "back_trick")
    return (_tuple_postprocess(_grad_postprocess(outputs, create_graph), is_outputs_tuple),
            _tuple_postprocess(_grad_postprocess(res, create_graph), is_outputs_tuple))


def jacobian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
             strategy: str = "reverse-mode") -> Any:
    """The Jacobian of func at inputs: for output i and input j a tensor of shape out_i.shape + in_j.shape,
    nested as tuples when func's inputs/outputs are tuples."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your function '
                             'has more outputs than inputs, "forward-mode" tends to be more performant. Otherwise, '
                             'prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError('torch.autograd.functional.jacobian: `create_graph=True` and '
                                      '`strategy="forward-mode"` are not supported together (yet). Please either set '
                                      '`create_graph=False` or `strategy="reverse-mode"`.')
        if strict:
            raise RuntimeError('torch.autograd.functional.jacobian: `strict=True` and '
                               '`strategy="forward-mode"` are not supported together (yet). Please either set '
                               '`strict=False` or '
                               '`strategy="reverse-mode"`.')
        if not vectorize:
            raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian isonly "
                                      "implemented for `vectorize=True`.")
        raise NotImplementedError("jtorch has no forward-mode AD: use strategy=\"reverse-mode\"")
    torch = _torch()
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict=strict)
        if vectorize and strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
                               "supported together. Please either set `strict=False` or `vectorize=False`.")
        jac: list = []
        for i, out in enumerate(outputs):
            rows: tuple = tuple([] for _ in inputs)
            flat = out.reshape(-1)
            for j in range(out.nelement()):
                vj = _autograd_grad((flat[j],), inputs, retain_graph=True, create_graph=create_graph)
                for k, (row, g, inp) in enumerate(zip(rows, vj, inputs)):
                    if g is not None:
                        if strict and create_graph and not g.requires_grad:
                            raise RuntimeError(f"The jacobian of the user-provided function is independent of input "
                                               f"{i}. This is not allowed in strict mode when create_graph=True.")
                        row.append(g)
                    else:
                        if strict:
                            raise RuntimeError(f"Output {i} of the user-provided function is independent of input "
                                               f"{k}. This is not allowed in strict mode.")
                        row.append(torch.zeros_like(inp))
            jac.append(tuple(_stack(torch, row, inputs[k]).view(out.size() + inputs[k].size())
                             for k, row in enumerate(rows)))
        jac = _grad_postprocess(tuple(jac), create_graph)  # type: ignore[assignment]  # a tuple from here on
        return _tuple_postprocess(jac, (is_outputs_tuple, is_inputs_tuple))


def _stack(torch: Any, rows: list, like: Tensor) -> Tensor:
    # cat of unsqueezed rows, not torch.stack: jtorch's stack composite builds its unsqueezed inputs
    # without autograd (joining.py), so it would drop the graph create_graph=True needs.
    return torch.cat([r.unsqueeze(0) for r in rows], 0) if rows else like.new_zeros((0,) + tuple(like.shape))


def hessian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
            outer_jacobian_strategy: str = "reverse-mode") -> Any:
    """The Hessian of a scalar func: for inputs i, j a tensor of shape in_i.shape + in_j.shape."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def ensure_single_output_function(*inp: Tensor) -> Tensor:
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict=strict)
        if is_out_tuple or not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a single element")
        return out.squeeze()

    def jac_func(*inp: Tensor) -> Any:
        jac = jacobian(ensure_single_output_function, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                   strategy=outer_jacobian_strategy)
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


def _scalar_output(outputs: tuple, is_outputs_tuple: bool, fn: str) -> None:
    if is_outputs_tuple or not isinstance(outputs[0], Tensor):
        raise RuntimeError(f"The function given to {fn} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn} should contain a single element")


def _scalar_jacobian(func: Callable, inputs: Any, v: Any, create_graph: bool, strict: bool, name: str) -> tuple:
    """vhp's and hvp's first half (under enable_grad): checked inputs and v, the scalar output and
    its gradient with a graph, as (is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac)."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", name)
    inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
    if v is not None:
        v = _prepare_v(v, inputs, is_inputs_tuple, create_graph, name)
    elif len(inputs) != 1 or inputs[0].nelement() != 1:
        raise RuntimeError("The vector v can only be None if the input to the user-provided function is a single "
                           "Tensor with a single element.")
    is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", name)
    _check_requires_grad(outputs, "outputs", strict=strict)
    _scalar_output(outputs, is_outputs_tuple, name)
    jac = _autograd_grad(outputs, inputs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict=strict)
    return is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac


def vhp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> tuple:
    """(func(inputs), v^T H) for a scalar func."""
    with enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac = _scalar_jacobian(
            func, inputs, v, create_graph, strict, "vhp")
    res = _last_backward(jac, inputs, v, inputs, strict, create_graph, "double_back")
    return (_tuple_postprocess(_grad_postprocess(outputs, create_graph), is_outputs_tuple),
            _tuple_postprocess(_grad_postprocess(res, create_graph), is_inputs_tuple))


def hvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> tuple:
    """(func(inputs), H v) for a scalar func, by the double-backward trick."""
    with enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac = _scalar_jacobian(
            func, inputs, v, create_graph, strict, "hvp")
        grad_jac, double_back = _double_back_trick(jac, inputs, inputs)
        _check_requires_grad(jac, "hessian", strict=strict)
    res = _last_backward(double_back, grad_jac, v, inputs, strict, create_graph, "double_back_trick")
    return (_tuple_postprocess(_grad_postprocess(outputs, create_graph), is_outputs_tuple),
            _tuple_postprocess(_grad_postprocess(res, create_graph), is_inputs_tuple))
