"""Storages of CUDA tensors: typed and untyped views of the device memory (read and written through
the host copies), set_ and resize_ on the device, get_device, is_shared (CUDA memory is shared, as in
torch), pin_memory for host tensors once an accelerator exists, and the legacy type names."""
from __future__ import annotations

import numpy as np
import pytest

import jtorch


def test_storage_of_a_cuda_tensor(cuda):
    t = jtorch.arange(4, dtype=jtorch.float32, device="cuda")
    s = t[1:].storage()
    assert s.device == t.device and s.size() == 4 and s.tolist() == [0.0, 1.0, 2.0, 3.0]
    s[2] = 20.0
    assert t.cpu().tolist() == [0.0, 1.0, 20.0, 3.0]
    u = t.untyped_storage()
    assert u is t[2:].untyped_storage() and u.nbytes() == 16
    assert u.tolist()[:8] == list(np.arange(2, dtype=np.float32).view(np.uint8))
    assert t.is_shared() and u.is_shared() and t.get_device() == 0 == jtorch.get_device(t)
    assert str(s).endswith("[jtorch.storage.TypedStorage(dtype=jtorch.float32, device=cuda:0) of size 4]")


def test_set_and_resize_on_the_device(cuda):
    src = jtorch.arange(6, dtype=jtorch.float32, device="cuda")
    a = jtorch.empty(0, device="cuda").set_(src.untyped_storage(), 1, (2, 2), (1, 2))
    assert a.is_cuda and a.cpu().tolist() == [[1.0, 3.0], [2.0, 4.0]]
    with pytest.raises(RuntimeError, match='^Attempted to set the storage of a tensor on device "cpu" to a storage on '
                                           'different device "cuda:0"'):
        jtorch.empty(0).set_(src.untyped_storage())
    src.resize_(8)
    assert src.shape == (8,) and src[:6].cpu().tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert src.type() == "jtorch.cuda.FloatTensor" and not isinstance(src, jtorch.FloatTensor)


def test_pin_memory_with_an_accelerator(cuda):
    t = jtorch.arange(6.0).reshape(2, 3).t()
    p = t.pin_memory()
    assert p.is_pinned() and not t.is_pinned() and p.tolist() == t.tolist() and p.data_ptr() != t.data_ptr()
    assert p.pin_memory() is p
    assert p.to("cuda", non_blocking=True).cpu().tolist() == t.tolist()
