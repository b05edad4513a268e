"""The autograd front end and engine against torch 2.13, case by case (node names, hooks
and what they may return, capture in autograd.grad, .grad/.data, in-place bookkeeping, custom
Functions, grad modes, gradcheck, the profiler's backward events). Each case runs the same program
on jtorch and checks it against the outcome recorded from torch 2.13, and against torch itself
where it is installed."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import jtorch

try:
    import torch
except ImportError:  # pragma: no cover - CI installs torch
    torch = None

A = [1.0, 2.0, 3.0]


def _norm(v):
    """Observations made comparable across the two libraries."""
    if isinstance(v, (jtorch.Tensor,) + ((torch.Tensor,) if torch is not None else ())):
        return np.round(v.detach().numpy().astype(np.float64), 6).tolist()
    if isinstance(v, (list, tuple)):
        return [_norm(x) for x in v]
    if isinstance(v, str):
        return v.replace("jtorch", "torch")
    return v


def outcome(T, case):
    """(True, observations) or (False, exception type, message), torch's module names throughout."""
    try:
        return True, _norm(case(T))
    except Exception as e:  # noqa: BLE001 - the exception is the observation
        return False, type(e).__name__, str(e).replace("jtorch", "torch")


def check(case, expected):
    got = outcome(jtorch, case)
    assert got == expected
    if torch is not None:
        assert outcome(torch, case) == expected


def leaf(T, values=A):
    return T.tensor(values, dtype=T.float64, requires_grad=True)


# ---- nodes ------------------------------------------------------------------------------------
def test_cpp_nodes_print_their_qualified_names():
    def case(T):
        x = leaf(T)
        acc = (x * 2).grad_fn.next_functions[0][0]
        return [acc.name(), type(acc).__name__]
    check(case, (True, ["torch::autograd::AccumulateGrad", "AccumulateGrad"]))


def test_once_differentiable_results_get_an_error_node():
    def case(T):
        class F(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            @T.autograd.function.once_differentiable
            def backward(ctx, g):
                return g * 2
        x = leaf(T)
        g, = T.autograd.grad(F.apply(x), x, T.ones(3, dtype=T.float64, requires_grad=True), create_graph=True)
        return [g, g.grad_fn.name(), type(g.grad_fn).__name__]
    check(case, (True, [[2.0, 2.0, 2.0], "torch::autograd::Error", "Error"]))


def test_custom_function_node_repr_and_not_callable():
    def case(T):
        class F(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g
        y = F.apply(leaf(T))
        r = repr(y.grad_fn).split(" object at ")[0]
        y.grad_fn(T.ones(3))
        return r
    check(case, (False, "TypeError", "'FBackward' object is not callable"))
    y = _exp_function(jtorch).apply(leaf(jtorch))
    assert repr(y.grad_fn).startswith("<jtorch.autograd.function.ExpBackward object at 0x")


def _exp_function(T):
    class Exp(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.exp()

        @staticmethod
        def backward(ctx, g):
            return g
    return Exp


# ---- backward / grad arguments -------------------------------------------------------------------
def test_grad_outputs_extra_are_ignored_and_missing_ones_counted():
    def extra(T):
        x = leaf(T)
        return T.autograd.grad(x * x, x, [T.ones(3, dtype=T.float64), T.ones(3, dtype=T.float64)])
    check(extra, (True, [[2.0, 4.0, 6.0]]))

    def missing(T):
        x = leaf(T)
        y = x * x
        return T.autograd.grad([y, y * 2], x, [T.ones(3, dtype=T.float64)])
    check(missing, (False, "RuntimeError", "got 2 tensors and 1 gradients"))


def test_empty_inputs_are_refused():
    def bwd(T):
        (leaf(T) * 2).sum().backward(inputs=[])
    check(bwd, (False, "RuntimeError", "`inputs` argument to `backward()` cannot be empty."))

    def grad(T):
        T.autograd.grad((leaf(T) * 2).sum(), [])
    check(grad, (False, "RuntimeError", "`inputs` argument to `grad()` cannot be empty."))


def test_implicit_grad_of_a_complex_scalar_is_refused():
    def case(T):
        (T.tensor([1 + 1j], requires_grad=True) * 2).sum().backward()
    check(case, (False, "RuntimeError",
                 "grad can be implicitly created only for real scalar outputs but got torch.complex64"))


def test_deprecated_arguments_warn_as_torch():
    for lib in (jtorch,) + ((torch,) if torch is not None else ()):
        x = leaf(lib)
        with pytest.warns(FutureWarning, match="only_inputs argument is deprecated and is ignored now"):
            lib.autograd.grad((x * 2).sum(), x, only_inputs=False)
        with pytest.warns(FutureWarning, match="`grad_variables` is deprecated. Use `grad_tensors` instead."):
            lib.autograd.backward(x * 2, grad_variables=lib.ones(3, dtype=lib.float64))
        assert x.grad.tolist() == [2.0, 2.0, 2.0]
        with pytest.raises(RuntimeError, match="arguments both passed to `backward\\(\\)`. Please only use"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                lib.autograd.backward(x * 2, lib.ones(3, dtype=lib.float64), grad_variables=lib.ones(3))


def test_backward_with_create_graph_warns_once_and_records_the_copy():
    from jtorch.autograd import api

    api._warned_cycle = False  # TORCH_WARN_ONCE: once per process
    x = leaf(jtorch)
    with pytest.warns(UserWarning, match="Using backward\\(\\) with create_graph=True will create a reference cycle"):
        (x ** 3).sum().backward(create_graph=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (x ** 3).sum().backward(create_graph=True)
    # torch's AccumulateGrad clones the first gradient with a copy (torch's hand-written CopyBackwards)
    x = leaf(jtorch)
    (x ** 3).sum().backward(create_graph=True)
    assert x.grad.grad_fn.name() == "torch::autograd::CopyBackwards"
    g = x.grad
    x.grad = None
    g.sum().backward()
    assert x.grad.tolist() == [6.0, 12.0, 18.0]


# ---- hooks --------------------------------------------------------------------------------------
def test_tensor_hook_may_not_change_size_dtype_or_return_a_non_tensor():
    def size(T):
        x = leaf(T)
        y = x * 2
        y.register_hook(lambda g: g.sum())
        y.sum().backward()
    check(size, (False, "RuntimeError", "hook '<lambda>' has changed the size of value"))

    def dtype(T):
        def to_float(g):
            return g.float()
        x = leaf(T)
        x.register_hook(to_float)
        (x * 2).sum().backward()
    check(dtype, (False, "RuntimeError",
                  "hook 'to_float' has changed the type of value (was torch.DoubleTensor got torch.FloatTensor)"))

    def scalar(T):
        x = leaf(T)
        y = x * 2
        y.register_hook(lambda g: 1.0)
        y.sum().backward()
    check(scalar, (False, "TypeError", "expected Variable, but hook returned 'float'"))


def test_node_hooks_must_return_a_tuple_of_the_same_length():
    def post_list(T):
        y = leaf(T) * 2
        y.grad_fn.register_hook(lambda gi, go: [gi[0]])
        y.sum().backward()
    check(post_list, (False, "TypeError", "expected tuple, but hook returned 'list'"))

    def pre_count(T):
        y = leaf(T) * 2
        y.grad_fn.register_prehook(lambda go: (go[0], go[0]))
        y.sum().backward()
    check(pre_count, (False, "RuntimeError",
                      "hook '<lambda>' has returned an incorrect number of values (got 2, but expected 1)"))


def test_tensor_hooks_see_none_when_their_output_got_no_gradient():
    def case(T):
        seen = []
        a, b = (leaf(T, [1.0, 2.0, 3.0, 4.0]) * 2).split(2)
        b.register_hook(lambda g: seen.append(g))
        a.sum().backward()
        return seen
    check(case, (True, [None]))


def test_grad_captures_before_the_hooks_of_a_node_that_runs():
    """autograd.grad: an input whose node is not run gets its tensor hooks (not its node's pre-hooks)
    before the capture; one whose node runs on is captured as it arrived."""
    def leaf_prehook(T):
        x = leaf(T)
        x.register_hook(lambda g: g * 10)
        y = (x * 2).sum()
        acc = y.grad_fn.next_functions[0][0].next_functions[0][0]
        acc.register_prehook(lambda go: (go[0] * 100,))
        return T.autograd.grad(y, x)
    check(leaf_prehook, (True, [[20.0, 20.0, 20.0]]))

    def runs_on(T):
        x = leaf(T)
        m = x * 2
        m.register_hook(lambda g: g * 10)
        return T.autograd.grad((m * 3).sum(), [m, x])
    check(runs_on, (True, [[3.0, 3.0, 3.0], [60.0, 60.0, 60.0]]))


def test_retain_grad_under_create_graph_keeps_history():
    def case(T):
        x = leaf(T)
        y = x * x
        y.retain_grad()
        (y * y).sum().backward(create_graph=True)
        return [y.grad, y.grad.requires_grad, y.grad.grad_fn.name()]
    check(case, (True, [[2.0, 8.0, 18.0], True, "CloneBackward0"]))


def test_retain_grad_follows_an_in_place_write():
    def case(T):
        x = leaf(T)
        y = x * 2
        y.retain_grad()
        y.mul_(3)
        y.sum().backward()
        return [y.retains_grad, y.grad, x.grad]
    check(case, (True, [True, [1.0, 1.0, 1.0], [6.0, 6.0, 6.0]]))

    def view(T):
        x = leaf(T)
        y = x * 2
        v = y[1:]
        v.retain_grad()
        y.mul_(2)  # v's history is regenerated when next used: its retained grad moves along
        (v * T.tensor([2.0, 3.0], dtype=T.float64)).sum().backward()
        return [v.grad, x.grad]
    check(view, (True, [[2.0, 3.0], [0.0, 8.0, 12.0]]))


def test_post_accumulate_grad_hook():
    def case(T):
        seen = []
        x = leaf(T)
        h = x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.clone()))
        (x * 2).sum().backward()
        h.remove()
        (x * 2).sum().backward()
        return [seen, x.grad]
    check(case, (True, [[[2.0, 2.0, 2.0]], [4.0, 4.0, 4.0]]))

    def non_leaf(T):
        (leaf(T) * 2).register_post_accumulate_grad_hook(lambda t: None)
    check(non_leaf, (False, "RuntimeError", "post accumulate grad hooks cannot be registered on non-leaf tensors"))

    def no_grad(T):
        T.tensor(A).register_post_accumulate_grad_hook(lambda t: None)
    check(no_grad, (False, "RuntimeError", "cannot register a hook on a tensor that doesn't require gradient"))


# ---- .grad, .data, saved tensors ----------------------------------------------------------------------
def test_non_leaf_grad_warns_only_while_undefined():
    def case(T):
        x = leaf(T)
        m = x * 2
        (m * m).sum().backward(inputs=[m])
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            return [m.grad, x.grad]
    check(case, (True, [[4.0, 8.0, 12.0], None]))


def test_assigning_a_wrong_grad_uses_torch_texts():
    def size(T):
        leaf(T).grad = T.ones(3, 1, dtype=T.float64)
    check(size, (False, "RuntimeError", "attempting to assign a gradient of size '[3, 1]' to a tensor of size '[3]'. "
                                        "Please ensure that the gradient and the tensor are the same size"))

    def dtype(T):
        leaf(T).grad = T.ones(3, dtype=T.int64)
    check(dtype, (False, "RuntimeError",
                  "attempting to assign a gradient with dtype 'long int' to a tensor with grad_dtype 'Double'. The "
                  "gradient must match the tensor's grad_dtype (defaults to the tensor's dtype). You can set the "
                  "tensor's grad_dtype attribute with a specific dtype, or None to allow any dtype. Set grad_dtype "
                  "with caution. Diverging the dtypes of a tensor and its gradient may break downstream systems that "
                  "assume they match."))

    def device(T):
        leaf(T).grad = T.ones(3, dtype=T.float64, device="meta")
    check(device, (False, "RuntimeError", "attempting to assign a gradient with device type 'meta' to a tensor with "
                                          "device type 'cpu'. Please ensure that the gradient and the tensor are on "
                                          "the same device"))


def test_data_has_its_own_version_counter_and_setter_checks():
    def case(T):
        x = leaf(T)
        d = x.data
        d.add_(1)
        return [x._version, d._version, d.requires_grad, x]
    check(case, (True, [0, 1, False, [2.0, 3.0, 4.0]]))

    def not_tensor(T):
        leaf(T).data = [1.0]
    check(not_tensor, (False, "TypeError", "Variable data has to be a tensor, but got list"))

    def integer(T):
        leaf(T).data = T.ones(3, dtype=T.int64)
    check(integer, (False, "RuntimeError",
                    "data set to a tensor that requires gradients must be floating point or complex dtype"))


def test_modified_saved_leaf_names_no_producer():
    def case(T):
        x = leaf(T)
        w = T.tensor(A, dtype=T.float64)
        z = x * w
        w.add_(1)
        z.sum().backward()
    check(case, (False, "RuntimeError",
                 "one of the variables needed for gradient computation has been modified by an inplace operation: "
                 "[torch.DoubleTensor [3]] is at version 1; expected version 0 instead. Hint: enable anomaly "
                 "detection to find the operation that failed to compute its gradient, with "
                 "torch.autograd.set_detect_anomaly(True, check_nan=False)."))


def test_output_nr_and_is_view():
    def case(T):
        a, b = (leaf(T) * 1).unbind()[:2]
        return [b.output_nr, b._is_view(), leaf(T).output_nr, leaf(T)._is_view()]
    check(case, (True, [1, True, 0, False]))


# ---- custom Functions ----------------------------------------------------------------------------------
def test_needs_input_grad_ignores_grad_mode():
    def case(T):
        seen = []

        class F(T.autograd.Function):
            @staticmethod
            def forward(ctx, x, k, w):
                seen.append(ctx.needs_input_grad)
                return x * k * w

            @staticmethod
            def backward(ctx, g):
                return g, None, None
        with T.no_grad():
            F.apply(leaf(T), 2, T.tensor(A))
        return seen
    check(case, (True, [[True, False, False]]))


def test_saved_output_is_unpacked_with_its_history():
    def case(T):
        seen = []

        class F(T.autograd.Function):
            @staticmethod
            def forward(x):
                return x * 3

            @staticmethod
            def setup_context(ctx, inputs, output):
                ctx.save_for_backward(output)

            @staticmethod
            def backward(ctx, g):
                out, = ctx.saved_tensors
                seen.append([out.requires_grad, out.grad_fn is not None and out.grad_fn.name()])
                return g * 3
        x = leaf(T)
        F.apply(x).sum().backward()
        return [seen, x.grad]
    check(case, (True, [[[True, "FBackward"]], [3.0, 3.0, 3.0]]))


# ---- grad modes ------------------------------------------------------------------------------------
def test_no_grad_and_enable_grad_decorate_without_parentheses():
    def case(T):
        @T.no_grad
        def f(x):
            return x * 2

        @T.enable_grad
        def g(x):
            return x * 2
        x = leaf(T)
        with T.no_grad():
            inner = g(x).requires_grad
        return [f(x).requires_grad, inner, f.__name__]
    check(case, (True, [False, True, "f"]))


def test_inference_mode_false_turns_grad_mode_on_and_inference_tensors_refuse_grad():
    def case(T):
        with T.no_grad():
            with T.inference_mode(False):
                on = T.is_grad_enabled()
            with T.inference_mode():
                with T.inference_mode(False):
                    on_inside = T.is_grad_enabled()
        return [on, on_inside, T.is_grad_enabled()]
    check(case, (True, [True, True, True]))

    def requires(T):
        with T.inference_mode():
            a = T.ones(2)
        a.requires_grad_()
    check(requires, (False, "RuntimeError",
                     "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."))


def test_detect_anomaly_checks_nan():
    def case(T):
        x = T.tensor([1.0, float("nan")], requires_grad=True)
        with T.autograd.set_detect_anomaly(True):
            on = T.is_anomaly_enabled()
            try:
                (x.log() * 0).sum().backward()
            except RuntimeError as e:
                return [on, str(e), T.is_anomaly_enabled()]
    check(case, (True, [True, "Function 'LogBackward0' returned nan values in its 0th output.", True]))
    assert not jtorch.is_anomaly_enabled()
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        with jtorch.autograd.detect_anomaly(check_nan=False):
            assert jtorch.is_anomaly_enabled() and not jtorch.is_anomaly_check_nan_enabled()
    assert not jtorch.is_anomaly_enabled() and jtorch.is_anomaly_check_nan_enabled()


# ---- gradcheck -------------------------------------------------------------------------------------
def _times(T, k):
    class Bad(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * k
    return Bad


def test_gradcheck_message_prints_the_jacobians_as_tensors():
    def case(T):
        x = T.tensor([[1.0, 2.0], [0.5, -1.0]], dtype=T.float64, requires_grad=True)
        T.autograd.gradcheck(lambda k, a: (a.detach(), _times(T, 3).apply(a)), (2.0, x))
    check(case, (False, "GradcheckError",
                 "Jacobian mismatch for output 0 with respect to input 0,\n"
                 "numerical:tensor([[2.0000, 0.0000, 0.0000, 0.0000],\n"
                 "        [0.0000, 2.0000, 0.0000, 0.0000],\n"
                 "        [0.0000, 0.0000, 2.0000, 0.0000],\n"
                 "        [0.0000, 0.0000, 0.0000, 2.0000]], dtype=torch.float64)\n"
                 "analytical:tensor([[3., 0., 0., 0.],\n"
                 "        [0., 3., 0., 0.],\n"
                 "        [0., 0., 3., 0.],\n"
                 "        [0., 0., 0., 3.]], dtype=torch.float64)\n"))


def test_gradcheck_without_differentiable_outputs_and_inputs():
    def outputs(T):
        return T.autograd.gradcheck(lambda a: a.detach() * 2, (leaf(T),))
    check(outputs, (False, "GradcheckError", "Numerical gradient for function expected to be zero"))

    def constant(T):
        return T.autograd.gradcheck(lambda a: T.ones(2, dtype=T.float64), (leaf(T),))
    check(constant, (True, True))

    def inputs(T):
        T.autograd.gradcheck(lambda a: a.exp(), (T.tensor(A, dtype=T.float64),))
    check(inputs, (False, "ValueError", "gradcheck expects at least one input tensor to require gradient, but none "
                                        "of them have requires_grad=True."))


def _drifting(T):
    """A Function whose backward adds a little more at each call: not reentrant."""
    calls = []

    class Nd(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            calls.append(1)
            return g * 2 + len(calls) * 1e-3
    return Nd


def test_gradcheck_reports_a_backward_that_is_not_reentrant():
    def case(T):
        Nd = _drifting(T)
        assert T.autograd.gradcheck(Nd.apply, (leaf(T),), raise_exception=False) is False  # not reentrant
        T.autograd.gradcheck(Nd.apply, (leaf(T),), nondet_tol=1.0, atol=1.0)  # then its grad at zero grad_output
    check(case, (False, "GradcheckError", "backward not multiplied by grad_output"))
    with pytest.raises(RuntimeError, match="^Backward is not reentrant, i.e., running backward with same input "
                                           "and grad_output multiple times gives different values, although "
                                           "analytical gradient matches numerical gradient.The tolerance for "
                                           "nondeterminism was 0.0.\n\nNOTE: If your op relies on"):
        jtorch.autograd.gradcheck(_drifting(jtorch).apply, (leaf(jtorch),))


# ---- profiler ---------------------------------------------------------------------------------------
def test_profiler_records_backward_nodes_as_torch_engine_does():
    def case(T):
        x = T.tensor(np.ones((4, 4)), requires_grad=True)
        with T.autograd.profiler.profile(record_shapes=True) as prof:
            (x * 2).sum().backward()
        events = {e.name: e for e in prof.function_events}
        names = sorted(n for n in events if "Backward" in n or "AccumulateGrad" in n)
        mul = events["MulBackward0"]
        return [names, mul.cpu_parent.name, mul.input_shapes, "aten::mul" in [c.name for c in mul.cpu_children]]
    check(case, (True, [["MulBackward0", "SumBackward0", "autograd::engine::evaluate_function: MulBackward0",
                         "autograd::engine::evaluate_function: SumBackward0",
                         "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad",
                         "torch::autograd::AccumulateGrad"],
                        "autograd::engine::evaluate_function: MulBackward0", [[4, 4]], True]))
    from jtorch.autograd import engine

    assert engine.node_observers == []  # nothing left observing once the profile stopped
