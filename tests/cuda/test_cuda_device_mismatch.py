"""Operands on two devices: the operator families refuse a CUDA and a CPU tensor together with
torch 2.13's RuntimeError, and take what torch takes: a 0-dim CPU tensor as a scalar in elementwise
operators, copies between devices, a CPU index tensor in advanced indexing.

torch without CUDA cannot be asked: the expected texts are torch's own. The operators that
native_functions.yaml leaves at device_check: ExactSame (mm, addmm, bmm, cat, index_select,
gather, ...) are refused by their generated CUDA wrapper (RegisterCUDA.cpp, read with the
installed torchgen): out= first, then the schema's tensors in order, each against the first one's
device, "... but got mat2 is on cpu, different from other tensors on cuda:0 (when checking
argument in method wrapper_CUDA_mm)" (adaption.cpp's text, as libtorch 2.13 holds it). A CPU
tensor mixed with a CUDA one dispatches to CUDA, so CPU-first calls get the CUDA wrapper's text
too; composites (matmul, linear, stack, embedding, mv, cross_entropy) get their inner operator's.
TensorIterator operators (NoCheck) give "... found at least two devices, A and B!" (A: the first
operand's device off the CPU). The operators that check devices themselves (masked_fill_'s CUDA
kernel, take_along_dim, convolution, CUDA's accumulating index_put_) give their kernels' texts.
Reductions and sorts given a CPU out= for a CUDA input give the texts listed above REDUCTION_OUT.
The results of the allowed mixes are checked against the same computation on the CPU.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import jtorch


def _c() -> Any:
    return jtorch.ones(2, 2, device="cuda")


def _p() -> Any:
    return jtorch.ones(2, 2)


def _v(dev: str = "cpu") -> Any:
    return jtorch.ones(2, device=dev)


def _got(arg: str, on: str, common: str, wrapper: str) -> str:
    """The generated wrapper's refusal: `arg` is the first checked tensor off the first one's device."""
    return (f"Expected all tensors to be on the same device, but got {arg} is on {on}, different from other tensors "
            f"on {common} (when checking argument in method {wrapper})")


CUDA_CPU, CPU_CUDA = ("cuda:0", "cpu"), ("cpu", "cuda:0")
# name -> (call, the two devices TensorIterator names, or the wrapper's whole text)
REFUSED: dict[str, tuple[Callable[[], Any], tuple[str, str] | str]] = {
    # the matmul family
    "mm": (lambda: jtorch.mm(_c(), _p()), _got("mat2", "cpu", "cuda:0", "wrapper_CUDA_mm")),
    "mm_cpu_first": (lambda: jtorch.mm(_p(), _c()), _got("mat2", "cuda:0", "cpu", "wrapper_CUDA_mm")),
    "matmul": (lambda: _c() @ _p(), _got("mat2", "cpu", "cuda:0", "wrapper_CUDA_mm")),
    "matmul_cpu_first": (lambda: _p() @ _c(), _got("mat2", "cuda:0", "cpu", "wrapper_CUDA_mm")),
    "matmul_mat_vec": (lambda: jtorch.matmul(_c(), _v()), _got("mat", "cuda:0", "cpu", "wrapper_CUDA_addmv_")),
    "mv": (lambda: jtorch.mv(_c(), _v()), _got("mat", "cuda:0", "cpu", "wrapper_CUDA_addmv_")),
    "bmm": (lambda: jtorch.bmm(_c()[None], _p()[None]), _got("mat2", "cpu", "cuda:0", "wrapper_CUDA_bmm")),
    "dot": (lambda: jtorch.dot(_v("cuda"), _v()), _got("tensor", "cpu", "cuda:0", "wrapper_CUDA__dot")),
    "addmm_self": (lambda: jtorch.addmm(_p(), _c(), _c()), _got("mat1", "cuda:0", "cpu", "wrapper_CUDA_addmm")),
    "addmm_mat2": (lambda: jtorch.addmm(_c(), _c(), _p()), _got("mat2", "cpu", "cuda:0", "wrapper_CUDA_addmm")),
    "baddbmm": (lambda: jtorch.baddbmm(_c()[None], _c()[None], _p()[None]),
                _got("batch2", "cpu", "cuda:0", "wrapper_CUDA_baddbmm")),
    "linear": (lambda: jtorch.nn.functional.linear(_c(), _p()), _got("mat2", "cpu", "cuda:0", "wrapper_CUDA_mm")),
    "einsum": (lambda: jtorch.einsum("ij,jk->ik", _c(), _p()), _got("mat2", "cpu", "cuda:0", "wrapper_CUDA_bmm")),
    # joining
    "cat": (lambda: jtorch.cat([_c(), _p()]), _got("tensors", "cpu", "cuda:0", "wrapper_CUDA_cat")),
    "cat_cpu_first": (lambda: jtorch.cat([_p(), _c()]), _got("tensors", "cuda:0", "cpu", "wrapper_CUDA_cat")),
    "stack": (lambda: jtorch.stack([_c(), _p()]), _got("tensors", "cpu", "cuda:0", "wrapper_CUDA_cat")),
    "hstack": (lambda: jtorch.hstack([_c(), _p()]), _got("tensors", "cpu", "cuda:0", "wrapper_CUDA_cat")),
    # elementwise (TensorIterator) with a non-scalar CPU operand: its common device is the first
    # operand's off the CPU, whatever the order (compute_types)
    "add": (lambda: _c() + _p(), CUDA_CPU),
    "add_cpu_first": (lambda: _p() + _c(), CUDA_CPU),
    "cpu_plus_cuda_0dim": (lambda: _p() + jtorch.tensor(1.0, device="cuda"), CUDA_CPU),
    "mul_": (lambda: _c().mul_(_p()), CUDA_CPU),
    "eq": (lambda: _c() == _p(), CUDA_CPU),
    "maximum": (lambda: jtorch.maximum(_c(), _p()), CUDA_CPU),
    "where": (lambda: jtorch.where(_c() > 0, _c(), _p()), CUDA_CPU),
    "lerp": (lambda: jtorch.lerp(_c(), _p(), 0.5), CUDA_CPU),
    "addcmul": (lambda: jtorch.addcmul(_c(), _p(), _c()), CUDA_CPU),
    "clamp_tensor": (lambda: _c().clamp(_p()), _got("min", "cpu", "cuda:0", "wrapper_CUDA_clamp_Tensor")),
    "add_out_cpu": (lambda: jtorch.add(_c(), _c(), out=jtorch.empty(2, 2)), CUDA_CPU),
    # the index-taking families: the dispatcher's check over (out=, self, index, src) in schema order
    "index_select": (lambda: jtorch.index_select(_c(), 0, _i()),
                     _got("index", "cpu", "cuda:0", "wrapper_CUDA__index_select")),
    "index_select_cpu_self": (lambda: jtorch.index_select(_p(), 0, _i("cuda")),
                              _got("index", "cuda:0", "cpu", "wrapper_CUDA__index_select")),
    "index_select_out": (lambda: jtorch.index_select(_c(), 0, _i("cuda"), out=jtorch.empty(1, 2)),
                         _got("self", "cuda:0", "cpu", "wrapper_CUDA_out_index_select_out")),
    "gather": (lambda: jtorch.gather(_c(), 0, _i2()), _got("index", "cpu", "cuda:0", "wrapper_CUDA_gather")),
    "gather_out": (lambda: jtorch.gather(_c(), 0, _i2("cuda"), out=jtorch.empty(1, 1)),
                   _got("self", "cuda:0", "cpu", "wrapper_CUDA_gather_out_out")),
    "scatter_src": (lambda: jtorch.scatter(_c(), 0, _i2("cuda"), jtorch.ones(1, 1)),
                    _got("src", "cpu", "cuda:0", "wrapper_CUDA_scatter_src")),
    "scatter_index": (lambda: jtorch.scatter(_c(), 0, _i2(), jtorch.ones(1, 1, device="cuda")),
                      _got("index", "cpu", "cuda:0", "wrapper_CUDA_scatter_src")),
    "scatter_value": (lambda: jtorch.scatter(_c(), 0, _i2(), 2.0),
                      _got("index", "cpu", "cuda:0", "wrapper_CUDA_scatter_value")),
    "scatter_value_reduce": (lambda: _c().scatter_(0, _i2(), 2.0, reduce="add"),
                             _got("index", "cpu", "cuda:0", "wrapper_CUDA_scatter__value_reduce")),
    "scatter_": (lambda: _c().scatter_(0, _i2("cuda"), jtorch.ones(1, 1)),
                 _got("src", "cpu", "cuda:0", "wrapper_CUDA_scatter__src")),
    "scatter_add": (lambda: jtorch.scatter_add(_c(), 0, _i2("cuda"), jtorch.ones(1, 1)),
                    _got("src", "cpu", "cuda:0", "wrapper_CUDA_scatter_add")),
    "scatter_reduce": (lambda: jtorch.scatter_reduce(_c(), 0, _i2(), _c()[:1, :1], "amax"),
                       _got("index", "cpu", "cuda:0", "wrapper_CUDA_scatter_reduce_two")),
    "index_add": (lambda: jtorch.index_add(_c(), 0, _i("cuda"), jtorch.ones(1, 2)),
                  _got("source", "cpu", "cuda:0", "wrapper_CUDA_index_add")),
    "index_add_index": (lambda: _c().index_add_(0, _i(), _c()[:1]),
                        _got("index", "cpu", "cuda:0", "wrapper_CUDA_index_add_")),
    "index_copy": (lambda: jtorch.index_copy(_c(), 0, _i(), _c()[:1]),
                   _got("index", "cpu", "cuda:0", "wrapper_CUDA_index_copy")),
    "index_reduce": (lambda: _c().index_reduce(0, _i("cuda"), jtorch.ones(1, 2), "prod"),
                     _got("source", "cpu", "cuda:0", "wrapper_CUDA_index_reduce")),
    "index_fill": (lambda: jtorch.index_fill(_c(), 0, _i(), 1.0), CUDA_CPU),
    "index_fill_tensor_value": (lambda: _c().index_fill_(0, _i(), jtorch.tensor(1.0)), CUDA_CPU),
    "take": (lambda: jtorch.take(_c(), _i()), _got("index", "cpu", "cuda:0", "wrapper_CUDA__take")),
    "take_cpu_self": (lambda: jtorch.take(_p(), _i("cuda")), _got("index", "cuda:0", "cpu", "wrapper_CUDA__take")),
    "put_": (lambda: _c().put_(_i(), jtorch.ones(1, device="cuda")),
             _got("index", "cpu", "cuda:0", "wrapper_CUDA__put_")),
    "put_source": (lambda: _c().put_(_i("cuda"), jtorch.ones(1)),
                   _got("source", "cpu", "cuda:0", "wrapper_CUDA__put_")),
    "put": (lambda: jtorch.put(_c(), _i("cuda"), jtorch.ones(1)),
            _got("source", "cpu", "cuda:0", "wrapper_CUDA__put_")),
    "index_put_values": (lambda: jtorch.zeros(3, device="cuda").index_put_((_i(),), jtorch.ones(1)), CUDA_CPU),
    "setitem_cpu_values": (lambda: _setitem(jtorch.zeros(3, device="cuda"), jtorch.tensor([0, 1]), jtorch.ones(2)),
                           CUDA_CPU),
    "masked_scatter_mask": (lambda: _c().masked_scatter(_p() > 0, _c()),
                            _got("mask", "cpu", "cuda:0", "wrapper_CUDA__masked_scatter_")),
    "masked_scatter_source": (lambda: _c().masked_scatter(_c() > 0, _p()),
                              _got("source", "cpu", "cuda:0", "wrapper_CUDA__masked_scatter_")),
    "masked_select": (lambda: jtorch.masked_select(_c(), _p() > 0),
                      _got("mask", "cpu", "cuda:0", "wrapper_CUDA__masked_select")),
    # where allocates its result on the first non-CPU operand's device, then iterates over it
    "where_cpu_condition": (lambda: jtorch.where(_p() > 0, _c(), _c()), CUDA_CPU),
    "searchsorted": (lambda: jtorch.searchsorted(_v("cuda"), _v()),
                     _got("self", "cpu", "cuda:0", "wrapper_CUDA_Tensor_searchsorted")),
    "searchsorted_cpu_sequence": (lambda: jtorch.searchsorted(_v(), _v("cuda")),
                                  _got("self", "cuda:0", "cpu", "wrapper_CUDA_Tensor_searchsorted")),
    "bucketize": (lambda: jtorch.bucketize(_v("cuda"), _v()),
                  _got("boundaries", "cpu", "cuda:0", "wrapper_CUDA_Tensor_bucketize")),
    "bincount_weights": (lambda: jtorch.bincount(_i("cuda"), jtorch.ones(1)),
                         _got("weights", "cpu", "cuda:0", "wrapper_CUDA__bincount")),
    # a CPU out= of the matmul family and cat: the dispatcher checks out first
    "mm_out_cpu": (lambda: jtorch.mm(_c(), _c(), out=jtorch.empty(2, 2)),
                   _got("self", "cuda:0", "cpu", "wrapper_CUDA_mm_out_out")),
    "addmm_out_cpu": (lambda: jtorch.addmm(_c(), _c(), _c(), out=jtorch.empty(2, 2)),
                      _got("self", "cuda:0", "cpu", "wrapper_CUDA_addmm_out_out")),
    "bmm_out_cpu": (lambda: jtorch.bmm(_c()[None], _c()[None], out=jtorch.empty(1, 2, 2)),
                    _got("self", "cuda:0", "cpu", "wrapper_CUDA_bmm_out_out")),
    "cat_out_cpu": (lambda: jtorch.cat([_c(), _c()], out=jtorch.empty(4, 2)),
                    _got("tensors", "cuda:0", "cpu", "wrapper_CUDA_cat_out_out")),
    # pointwise with non-scalar CPU operands
    "lerp_weight": (lambda: jtorch.lerp(_c(), _c(), _p()), CUDA_CPU),
    "addcmul_tensor2": (lambda: jtorch.addcmul(_c(), _c(), _p()), CUDA_CPU),
    "addcdiv": (lambda: jtorch.addcdiv(_c(), _p(), _c()), CUDA_CPU),
    # nn
    "embedding": (lambda: jtorch.nn.functional.embedding(_i(), _c()),
                  _got("index", "cpu", "cuda:0", "wrapper_CUDA__index_select")),
    "nll_loss_target": (lambda: jtorch.nn.functional.nll_loss(_c(), jtorch.tensor([0, 1])),
                        _got("target", "cpu", "cuda:0", "wrapper_CUDA_nll_loss_forward")),
    "cross_entropy_target": (lambda: jtorch.nn.functional.cross_entropy(_c(), jtorch.tensor([0, 1])),
                             _got("target", "cpu", "cuda:0", "wrapper_CUDA_nll_loss_forward")),
    "binary_cross_entropy": (lambda: jtorch.nn.functional.binary_cross_entropy(_c() * 0.5, _p()), CUDA_CPU),
    "layer_norm_weight": (lambda: jtorch.nn.functional.layer_norm(_c(), (2,), _v()),
                          _got("weight", "cpu", "cuda:0", "wrapper_CUDA__native_layer_norm")),
    "nll_loss_weight": (lambda: jtorch.nn.functional.nll_loss(_c(), jtorch.tensor([0, 1], device="cuda"), _v()),
                        _got("weight", "cpu", "cuda:0", "wrapper_CUDA_nll_loss_forward")),
    "huber_loss": (lambda: jtorch.nn.functional.huber_loss(_c(), _p()),
                   _got("target", "cpu", "cuda:0", "wrapper_CUDA__huber_loss")),
    # more of the matmul family, the ones jtorch composes where torch has a CUDA kernel among them
    "addmv": (lambda: jtorch.addmv(_v("cuda"), _c(), _v()), _got("vec", "cpu", "cuda:0", "wrapper_CUDA_addmv")),
    "addr": (lambda: jtorch.addr(_c(), _v("cuda"), _v()), _got("vec2", "cpu", "cuda:0", "wrapper_CUDA__addr")),
    "addbmm": (lambda: jtorch.addbmm(_c(), _c()[None], _p()[None]),
               _got("batch2", "cpu", "cuda:0", "wrapper_CUDA__addbmm")),
    "vdot": (lambda: jtorch.vdot(_v("cuda"), _v()), _got("other", "cpu", "cuda:0", "wrapper_CUDA__vdot")),
    # elementwise operators whose out= form torch checks in its wrapper, and the Tensor bounds of clamp
    "acosh_out_cpu": (lambda: jtorch.acosh(_c(), out=_p()),
                      _got("self", "cuda:0", "cpu", "wrapper_CUDA_acosh_out_out")),
    "clamp_min_tensor": (lambda: jtorch.clamp_min(_c(), _p()),
                         _got("min", "cpu", "cuda:0", "wrapper_CUDA_clamp_min_Tensor")),
    "tril_out_cpu": (lambda: jtorch.tril(_c(), out=_p()), _got("self", "cuda:0", "cpu", "wrapper_CUDA_tril_out_out")),
    "isin": (lambda: jtorch.isin(_c(), _p()), _got("test_elements", "cpu", "cuda:0",
                                                   "wrapper_CUDA_isin_Tensor_Tensor")),
    "searchsorted_out_cpu": (lambda: jtorch.searchsorted(_v("cuda"), _v("cuda"), out=_i()),
                             _got("sorted_sequence", "cuda:0", "cpu", "wrapper_CUDA_Tensor_out_searchsorted_out")),
    "prelu": (lambda: jtorch.nn.functional.prelu(_c(), jtorch.ones(1)),
              _got("weight", "cpu", "cuda:0", "wrapper_CUDA___prelu_kernel")),
}


def _i(dev: str = "cpu") -> Any:
    return jtorch.tensor([0], device=dev)


def _i2(dev: str = "cpu") -> Any:
    return jtorch.tensor([[0]], device=dev)


def _refused_with(call: Callable[[], Any], want: str) -> None:
    """call() raises RuntimeError with exactly the text `want`."""
    with pytest.raises(RuntimeError) as e:
        call()
    assert str(e.value) == want


def _setitem(t: Any, index: Any, value: Any) -> Any:
    t[index] = value
    return t


@pytest.mark.parametrize("name", list(REFUSED))
def test_two_devices_refused_with_torchs_text(name: str) -> None:
    call, spec = REFUSED[name]
    if isinstance(spec, str):
        _refused_with(call, spec)
    else:
        _refused_with(call, f"Expected all tensors to be on the same device, but found at least two devices, "
                            f"{spec[0]} and {spec[1]}!")


def test_take_along_dim_refuses_with_its_own_check() -> None:
    """take_along_dim checks its operands itself (checkDevice), against self's device."""
    with pytest.raises(RuntimeError) as e:
        jtorch.take_along_dim(_c(), jtorch.tensor([[0]]), 0)
    assert str(e.value) == ("Expected tensor to have cuda:0 Device, but got tensor with cpu Device (while checking "
                            "arguments for torch.take_along_dim():)")
    with pytest.raises(RuntimeError, match="Expected tensor to have cpu Device, but got tensor with cuda:0 Device"):
        jtorch.take_along_dim(_p(), jtorch.tensor([[0]]), 0, out=jtorch.empty(1, 2, device="cuda"))


def test_index_put_accumulate_checks_the_value_device_first() -> None:
    """CUDA's accumulating (sort-based) index_put_ checks the value's device itself."""
    with pytest.raises(RuntimeError) as e:
        jtorch.zeros(3, device="cuda").index_put_((jtorch.tensor([0, 1]),), jtorch.ones(2), accumulate=True)
    assert str(e.value) == "expected device cuda:0 but got device cpu for value tensor"


CONV_REFUSED = {
    # a CUDA input: the cuDNN path's type check
    "cuda_input_cpu_weight": (lambda: jtorch.nn.functional.conv2d(_c()[None, None], jtorch.ones(1, 1, 1, 1)),
                              "Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the "
                              "same"),
    "cuda_input_cpu_bias": (lambda: jtorch.nn.functional.conv1d(_c()[None], jtorch.ones(1, 2, 1, device="cuda"),
                                                                jtorch.ones(1)),
                            "Input type (torch.cuda.FloatTensor) and bias type (torch.FloatTensor) should be the same"),
    "cuda_double_input": (lambda: jtorch.nn.functional.conv1d(_c()[None].double(), jtorch.ones(1, 2, 1).double()),
                          "Input type (torch.cuda.DoubleTensor) and weight type (torch.DoubleTensor) should be the "
                          "same"),
    # a float CPU input: the MKLDNN path's
    "cpu_input_cuda_weight": (lambda: jtorch.nn.functional.conv2d(_p()[None, None], jtorch.ones(1, 1, 1, 1,
                                                                                               device="cuda")),
                              "Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the "
                              "same or input should be a MKLDNN tensor and weight is a dense tensor"),
    "cpu_input_cuda_bias": (lambda: jtorch.nn.functional.conv1d(_p()[None], jtorch.ones(1, 2, 1),
                                                                jtorch.ones(1, device="cuda")),
                            "Input type (torch.FloatTensor) and bias type (torch.cuda.FloatTensor) should be the same "
                            "or input should be a MKLDNN tensor and bias is a dense tensor"),
    "conv_transpose": (lambda: jtorch.nn.functional.conv_transpose2d(_c()[None, None], jtorch.ones(1, 1, 1, 1)),
                       "Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the same"),
}


@pytest.mark.parametrize("name", list(CONV_REFUSED))
def test_convolution_refuses_parameters_on_another_device(name: str) -> None:
    _refused_with(*CONV_REFUSED[name])


MASKED_FILL_REFUSED = {
    # masked_fill__cuda: the mask on self's device, whatever its dims; a CPU self with a CUDA mask or value
    "cpu_mask": (lambda: _c().masked_fill(_p() > 0, 0.0), "expected self and mask to be on the same device, but got "
                 "mask on cpu and self on cuda:0"),
    "cpu_0dim_mask": (lambda: _c().masked_fill_(jtorch.tensor(True), 0.0), "expected self and mask to be on the same "
                      "device, but got mask on cpu and self on cuda:0"),
    "cuda_mask_cpu_self": (lambda: _p().masked_fill(_c() > 0, 0.0), "expected self and mask to be on the same "
                           "device, but got mask on cuda:0 and self on cpu"),
    "cpu_mask_tensor_value": (lambda: _c().masked_fill(_p() > 0, jtorch.tensor(1.0)), "expected self and mask to be "
                              "on the same device, but got mask on cpu and self on cuda:0"),
    "cpu_self_cuda_value": (lambda: _p().masked_fill_(_p() > 0, jtorch.tensor(0.0, device="cuda")),
                            "masked_fill_: Expected inputs to be on same device"),
    "cpu_self_cuda_mask_tensor_value": (lambda: _p().masked_fill_(_c() > 0, jtorch.tensor(0.0)),
                                        "masked_fill_: Expected inputs to be on same device"),
}


@pytest.mark.parametrize("name", list(MASKED_FILL_REFUSED))
def test_masked_fill_refuses_a_mask_on_another_device(name: str) -> None:
    _refused_with(*MASKED_FILL_REFUSED[name])


ALLOWED: dict[str, Callable[[str], Any]] = {
    "add_0dim_cpu_scalar": lambda dev: jtorch.ones(2, 2, device=dev) + jtorch.tensor(2.0),
    "mul_0dim_cpu_scalar": lambda dev: jtorch.ones(2, 2, device=dev) * jtorch.tensor(3),
    "where_0dim_cpu": lambda dev: jtorch.where(jtorch.ones(2, device=dev) > 0, jtorch.ones(2, device=dev),
                                                jtorch.tensor(0.0)),
    "copy_from_cpu": lambda dev: jtorch.zeros(2, 2, device=dev).copy_(jtorch.full((2, 2), 4.0)),
    "getitem_cpu_index": lambda dev: jtorch.arange(4.0, device=dev)[jtorch.tensor([3, 1])],
    "setitem_cpu_value": lambda dev: _set(jtorch.zeros(3, device=dev)),
    # index tensors on the CPU are moved by advanced indexing and index_put_
    "index_put_cpu_index": lambda dev: jtorch.zeros(3, device=dev).index_put_(
        (jtorch.tensor([2, 0]),), jtorch.tensor([1.0, 2.0], device=dev)),
    "index_put_accumulate_cpu_index": lambda dev: jtorch.zeros(3, device=dev).index_put_(
        (jtorch.tensor([2, 2]),), jtorch.tensor([1.0, 2.0], device=dev), accumulate=True),
    # a one-element value is moved: 0-dim, or 1-sized dims stripped by setitem
    "index_put_0dim_cpu_value": lambda dev: jtorch.zeros(3, device=dev).index_put_(
        (jtorch.tensor([1, 2], device=dev),), jtorch.tensor(7.0)),
    "setitem_cpu_index_one_element_value": lambda dev: _setitem(jtorch.zeros(3, device=dev), jtorch.tensor([0, 2]),
                                                                jtorch.tensor([4.0])),
    "setitem_cpu_mask": lambda dev: _setitem(jtorch.arange(3.0, device=dev), jtorch.tensor([True, False, True]),
                                             jtorch.tensor(9.0)),
    # index_fill takes its 0-dim value tensor by item(); masked_fill a 0-dim CPU value and mask
    "index_fill_0dim_cpu_value": lambda dev: jtorch.zeros(2, 2, device=dev).index_fill_(
        0, jtorch.tensor([1], device=dev), jtorch.tensor(3.0)),
    "masked_fill_0dim_cpu_value": lambda dev: jtorch.zeros(2, device=dev).masked_fill(
        jtorch.tensor([True, False], device=dev), jtorch.tensor(3.0)),
    "lerp_0dim_cpu_weight": lambda dev: jtorch.lerp(jtorch.zeros(2, device=dev), jtorch.ones(2, device=dev),
                                                    jtorch.tensor(0.25)),
    "addcmul_0dim_cpu": lambda dev: jtorch.addcmul(jtorch.ones(2, device=dev), jtorch.ones(2, device=dev),
                                                   jtorch.tensor(3.0)),
}


def _set(t: Any) -> Any:
    t[1] = jtorch.tensor(5.0)
    return t


@pytest.mark.parametrize("name", list(ALLOWED))
def test_mixes_torch_allows_compute_as_on_the_cpu(name: str) -> None:
    got = ALLOWED[name]("cuda")
    assert got.device.type == "cuda"
    np.testing.assert_array_equal(got.cpu().numpy(), ALLOWED[name]("cpu").numpy())


# ---- reductions and sorts given a CPU out= for a CUDA input ------------------------------------------------------
# torch 2.13's text depends on how the operator reaches its kernel (native_functions.yaml, the CUDA wrappers torchgen
# generates from it, the kernels' own checks):
#   structured, device_check NoCheck: the meta function's set_output -> resize_out ("Expected out tensor ...");
#   device_check ExactSame: the generated wrapper checks out=, then the positional tensors
#   (check_and_update_common_device);
#   TensorIterator kernels outside structured (std/var, nansum_out inside nanmean): compute_types' text;
#   composites with checks of their own: max/min.unary_out, mode_out, check_scalar_type_device_layout_equal of the
#   cumulative max/min and logcumsumexp, quantile's.
def _e(*size: int, dtype: Any = None, device: str = "cpu") -> Any:
    return jtorch.empty(*size, dtype=dtype, device=device)


def _x() -> Any:
    return jtorch.arange(6.0, device="cuda").reshape(2, 3)


_L = jtorch.int64
_OUT = "Expected out tensor to have device cuda:0, but got cpu instead"
_ITER = "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"


def _self_off(method: str) -> str:
    return _got("self", "cuda:0", "cpu", method)


REDUCTION_OUT: dict[str, tuple[Callable[[], Any], str]] = {
    # structured, NoCheck
    "sum": (lambda: jtorch.sum(_x(), 1, out=_e(2)), _OUT),
    "mean": (lambda: jtorch.mean(_x(), 1, out=_e(2)), _OUT),
    "prod": (lambda: jtorch.prod(_x(), 1, out=_e(2)), _OUT),
    "all": (lambda: jtorch.all(_x(), 1, out=_e(2, dtype=jtorch.bool)), _OUT),
    "any": (lambda: jtorch.any(_x(), out=_e((), dtype=jtorch.bool)), _OUT),
    "cumsum": (lambda: jtorch.cumsum(_x(), 1, out=_e(2, 3)), _OUT),
    "cumprod": (lambda: jtorch.cumprod(_x(), 1, out=_e(2, 3)), _OUT),
    "aminmax": (lambda: jtorch.aminmax(_x(), dim=1, out=(_e(2), _e(2))), _OUT),
    "max_dim": (lambda: jtorch.max(_x(), 1, out=(_e(2), _e(2, dtype=_L))), _OUT),
    "max_dim_cpu_indices": (lambda: jtorch.max(_x(), 1, out=(_e(2, device="cuda"), _e(2, dtype=_L))), _OUT),
    "min_dim": (lambda: jtorch.min(_x(), 1, out=(_e(2), _e(2, dtype=_L))), _OUT),
    "count_nonzero": (lambda: jtorch.count_nonzero(_x(), 1, out=_e(2, dtype=_L)), _OUT),  # generated out=: copy_arg
    "logsumexp": (lambda: jtorch.logsumexp(_x(), 1, out=_e(2)), _OUT),  # its sum_out's
    # ExactSame: the generated CUDA wrapper's check
    "argmax": (lambda: jtorch.argmax(_x(), 1, out=_e(2, dtype=_L)), _self_off("wrapper_CUDA_argmax_out_out")),
    "argmin": (lambda: jtorch.argmin(_x(), 1, out=_e(2, dtype=_L)), _self_off("wrapper_CUDA_argmin_out_out")),
    "amax": (lambda: jtorch.amax(_x(), 1, out=_e(2)), _self_off("wrapper_CUDA_amax_out_out")),
    "amin": (lambda: jtorch.amin(_x(), 1, out=_e(2)), _self_off("wrapper_CUDA_amin_out_out")),
    "nansum": (lambda: jtorch.nansum(_x(), 1, out=_e(2)), _self_off("wrapper_CUDA_out_nansum_out")),
    "vector_norm": (lambda: jtorch.linalg.vector_norm(_x(), 2, 1, out=_e(2)),
                    _self_off("wrapper_CUDA_linalg_vector_norm_out_out")),
    "norm": (lambda: jtorch.norm(_x(), 2, 1, out=_e(2)), _self_off("wrapper_CUDA_linalg_vector_norm_out_out")),
    "sort": (lambda: jtorch.sort(_x(), 1, out=(_e(2, 3), _e(2, 3, dtype=_L))),
             _self_off("wrapper_CUDA_sort_out_values_stable")),
    "sort_cpu_indices": (lambda: jtorch.sort(_x(), 1, out=(_e(2, 3, device="cuda"), _e(2, 3, dtype=_L))),
                         _got("indices", "cpu", "cuda:0", "wrapper_CUDA_sort_out_values_stable")),
    "msort": (lambda: jtorch.msort(_x(), out=_e(2, 3)),  # its indices are made on the input's device
              _got("indices", "cuda:0", "cpu", "wrapper_CUDA_sort_out_values_stable")),
    "topk": (lambda: jtorch.topk(_x(), 2, out=(_e(2, 2), _e(2, 2, dtype=_L))),
             _self_off("wrapper_CUDA_topk_out_values")),
    "kthvalue": (lambda: jtorch.kthvalue(_x(), 1, 1, out=(_e(2), _e(2, dtype=_L))),
                 _self_off("wrapper_CUDA_values_kthvalue_out")),
    "median_dim": (lambda: jtorch.median(_x(), 1, out=(_e(2), _e(2, dtype=_L))),
                   _self_off("wrapper_CUDA_dim_values_median_out")),
    "nanmedian_dim": (lambda: jtorch.nanmedian(_x(), 1, out=(_e(2), _e(2, dtype=_L))),
                      _self_off("wrapper_CUDA_dim_values_nanmedian_out")),
    # TensorIterator
    "std": (lambda: jtorch.std(_x(), 1, out=_e(2)), _ITER),
    "var": (lambda: jtorch.var(_x(), 1, out=_e(2)), _ITER),
    "nanmean": (lambda: jtorch.nanmean(_x(), 1, out=_e(2)), _ITER),
    # the kernels' own checks
    "max_all": (lambda: jtorch.max(_x(), out=_e(())), "Expected self.device() == out.device() to be true, but got "
                "false.  (Could this error message be improved?  If so, please report an enhancement request to "
                "PyTorch.)"),
    "mode": (lambda: jtorch.mode(_x(), 1, out=(_e(2), _e(2, dtype=_L))),
             "expected device 'cuda:0' but got 'cpu' for values output"),
    "mode_cpu_indices": (lambda: jtorch.mode(_x(), 1, out=(_e(2, device="cuda"), _e(2, dtype=_L))),
                         "expected device 'cuda:0' but got 'cpu' for indices output"),
    "cummax": (lambda: jtorch.cummax(_x(), 1, out=(_e(2, 3), _e(2, 3, dtype=_L))),
               "expected device cuda:0 but found cpu"),
    "cummin_cpu_indices": (lambda: jtorch.cummin(_x(), 1, out=(_e(2, 3, device="cuda"), _e(2, 3, dtype=_L))),
                           "expected device cuda:0 but found cpu"),
    "logcumsumexp": (lambda: jtorch.logcumsumexp(_x(), 1, out=_e(2, 3)), "expected device cuda:0 but found cpu"),
    "quantile": (lambda: jtorch.quantile(_x(), 0.5, 1, out=_e(2)),
                 "quantile() out tensor must be on the same device as the input tensor"),
}


@pytest.mark.parametrize("name", list(REDUCTION_OUT))
def test_reduction_with_a_cpu_out_refused_with_torchs_text(name: str) -> None:
    _refused_with(*REDUCTION_OUT[name])


def test_reductions_with_a_cuda_out_compute() -> None:
    x = _x()
    for got, want in ((jtorch.msort(x.t(), out=_e(3, 2, device="cuda")), jtorch.msort(x.cpu().t())),
                      (jtorch.logsumexp(x, 1, out=_e(2, device="cuda")), jtorch.logsumexp(x.cpu(), 1)),
                      (jtorch.nanmean(x, 1, out=_e(2, device="cuda")), jtorch.nanmean(x.cpu(), 1)),
                      (jtorch.argmax(x, 1, out=_e(2, dtype=_L, device="cuda")), jtorch.argmax(x.cpu(), 1))):
        assert got.is_cuda
        np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=1e-6)
