"""uint16, uint32, uint64 on CUDA: the kernels refuse them under the CUDA kernels' AT_DISPATCH names where
torch's CUDA kernels have no case for them (texts from aten/src/ATen/native/cuda; no CUDA torch oracle
here), and compute where torch's CUDA kernels do although its CPU ones refuse. Tiny sizes: the simulator is slow."""
from __future__ import annotations

import pytest

import jtorch

NAMES = ("uint16", "uint32", "uint64")


def text(fn):
    with pytest.raises(NotImplementedError) as e:
        fn()
    return str(e.value)


@pytest.mark.parametrize("name", NAMES)
def test_cuda_kernels_refuse_under_their_cuda_names(cuda, name):
    d = getattr(jtorch, name)
    a = jtorch.tensor([[1, 5], [3, 2]], dtype=d)
    g = a.to(cuda)
    tname = {"uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64"}[name]
    for fn, cuda_kernel, cpu_kernel in ((lambda t: t.argmax(), "argmax_cuda", "argmax_cpu"),
                                        (lambda t: t.argmin(1), "argmin_cuda", "argmin_cpu"),
                                        (lambda t: jtorch.mm(t, t), "addmm_cuda", "addmm_impl_cpu_"),
                                        (lambda t: t.nonzero(), "nonzero_cuda", "nonzero_count_cpu"),
                                        (lambda t: jtorch.arange(3, dtype=t.dtype, device=t.device), "arange_cuda",
                                         "arange_cpu")):
        assert text(lambda: fn(g)) == f'"{cuda_kernel}" not implemented for \'{tname}\''
        assert text(lambda: fn(a)) == f'"{cpu_kernel}" not implemented for \'{tname}\''


@pytest.mark.parametrize("name", NAMES)
def test_cuda_computes_where_torch_cuda_dispatches_them(cuda, name):
    # torch's CUDA max/min kernels have the barebones unsigned types (its CPU ones refuse): values as int64's
    a = jtorch.tensor([[1, 5], [3, 2]], dtype=getattr(jtorch, name))
    g, ref = a.to(cuda), a.long()
    assert g.max().item() == ref.max().item() and g.min().item() == ref.min().item()
    assert g.amax(0).cpu().tolist() == ref.amax(0).tolist()
    assert g.sum().item() == ref.sum().item()
