"""Operands on two devices: the operator families refuse a CUDA and a CPU tensor together with
torch's RuntimeError "Expected all tensors to be on the same device, but found at least two
devices, A and B!" (A the first operand's device, in argument order), and take what torch takes: a
0-dim CPU tensor as a scalar in elementwise operators, copies between devices, a CPU index tensor
in advanced indexing.

torch without CUDA cannot be asked: the expected text is torch's documented one
(../shared/reference/pytorch-facts.md, "Type errors"), the one the matmul family and cat give in
torch 2.13 per the issue that reported them; the results of the allowed mixes are checked
against the same computation on the CPU.
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


CUDA_CPU, CPU_CUDA = ("cuda:0", "cpu"), ("cpu", "cuda:0")
REFUSED: dict[str, tuple[Callable[[], Any], tuple[str, str]]] = {
    # the matmul family
    "mm": (lambda: jtorch.mm(_c(), _p()), CUDA_CPU),
    "mm_cpu_first": (lambda: jtorch.mm(_p(), _c()), CPU_CUDA),
    "matmul": (lambda: _c() @ _p(), CUDA_CPU),
    "matmul_cpu_first": (lambda: _p() @ _c(), CPU_CUDA),
    "matmul_mat_vec": (lambda: jtorch.matmul(_c(), _v()), CUDA_CPU),
    "mv": (lambda: jtorch.mv(_c(), _v()), CUDA_CPU),
    "bmm": (lambda: jtorch.bmm(_c()[None], _p()[None]), CUDA_CPU),
    "dot": (lambda: jtorch.dot(_v("cuda"), _v()), CUDA_CPU),
    "addmm_self": (lambda: jtorch.addmm(_p(), _c(), _c()), CPU_CUDA),
    "addmm_mat2": (lambda: jtorch.addmm(_c(), _c(), _p()), CUDA_CPU),
    "baddbmm": (lambda: jtorch.baddbmm(_c()[None], _c()[None], _p()[None]), CUDA_CPU),
    "linear": (lambda: jtorch.nn.functional.linear(_c(), _p()), CUDA_CPU),
    "einsum": (lambda: jtorch.einsum("ij,jk->ik", _c(), _p()), CUDA_CPU),
    # joining
    "cat": (lambda: jtorch.cat([_c(), _p()]), CUDA_CPU),
    "cat_cpu_first": (lambda: jtorch.cat([_p(), _c()]), CPU_CUDA),
    "stack": (lambda: jtorch.stack([_c(), _p()]), CUDA_CPU),
    "hstack": (lambda: jtorch.hstack([_c(), _p()]), CUDA_CPU),
    # elementwise (TensorIterator) with a non-scalar CPU operand
    "add": (lambda: _c() + _p(), CUDA_CPU),
    "add_cpu_first": (lambda: _p() + _c(), CPU_CUDA),
    "cpu_plus_cuda_0dim": (lambda: _p() + jtorch.tensor(1.0, device="cuda"), CPU_CUDA),
    "mul_": (lambda: _c().mul_(_p()), CUDA_CPU),
    "eq": (lambda: _c() == _p(), CUDA_CPU),
    "maximum": (lambda: jtorch.maximum(_c(), _p()), CUDA_CPU),
    "where": (lambda: jtorch.where(_c() > 0, _c(), _p()), CUDA_CPU),
    "lerp": (lambda: jtorch.lerp(_c(), _p(), 0.5), CUDA_CPU),
    "addcmul": (lambda: jtorch.addcmul(_c(), _p(), _c()), CUDA_CPU),
    "clamp_tensor": (lambda: _c().clamp(_p()), CUDA_CPU),
    "masked_fill_cpu_mask": (lambda: _c().masked_fill(_p() > 0, 0.0), CUDA_CPU),
    "add_out_cpu": (lambda: jtorch.add(_c(), _c(), out=jtorch.empty(2, 2)), CPU_CUDA),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_two_devices_refused_with_torchs_text(name: str) -> None:
    call, (a, b) = REFUSED[name]
    with pytest.raises(RuntimeError) as e:
        call()
    want = f"Expected all tensors to be on the same device, but found at least two devices, {a} and {b}!"
    assert str(e.value) == want


ALLOWED: dict[str, Callable[[str], Any]] = {
    "add_0dim_cpu_scalar": lambda dev: jtorch.ones(2, 2, device=dev) + jtorch.tensor(2.0),
    "mul_0dim_cpu_scalar": lambda dev: jtorch.ones(2, 2, device=dev) * jtorch.tensor(3),
    "where_0dim_cpu": lambda dev: jtorch.where(jtorch.ones(2, device=dev) > 0, jtorch.ones(2, device=dev),
                                                jtorch.tensor(0.0)),
    "copy_from_cpu": lambda dev: jtorch.zeros(2, 2, device=dev).copy_(jtorch.full((2, 2), 4.0)),
    "getitem_cpu_index": lambda dev: jtorch.arange(4.0, device=dev)[jtorch.tensor([3, 1])],
    "setitem_cpu_value": lambda dev: _set(jtorch.zeros(3, device=dev)),
}


def _set(t: Any) -> Any:
    t[1] = jtorch.tensor(5.0)
    return t


@pytest.mark.parametrize("name", list(ALLOWED))
def test_mixes_torch_allows_compute_as_on_the_cpu(name: str) -> None:
    got = ALLOWED[name]("cuda")
    assert got.device.type == "cuda"
    np.testing.assert_array_equal(got.cpu().numpy(), ALLOWED[name]("cpu").numpy())
