"""jtorch.utils.data: datasets, samplers, default_collate and DataLoader against torch's behaviour."""
from __future__ import annotations

import collections
import math

import numpy as np
import pytest

import jtorch
from _torch_oracle import oracle_torch
from jtorch.utils.data import (
    BatchSampler, ConcatDataset, DataLoader, Dataset, IterableDataset, RandomSampler, SequentialSampler,
    Subset, SubsetRandomSampler, TensorDataset, default_collate, random_split,
)

Point = collections.namedtuple("Point", "x y")


def _ds(n=10):
    x = jtorch.arange(n * 3, dtype=jtorch.float32).reshape(n, 3)
    y = jtorch.arange(n)
    return TensorDataset(x, y), x, y


def test_tensor_dataset_and_sequential_loader():
    ds, x, y = _ds()
    assert len(ds) == 10
    xi, yi = ds[2]
    assert xi.tolist() == [6.0, 7.0, 8.0] and yi.item() == 2
    dl = DataLoader(ds, batch_size=4)
    assert len(dl) == 3
    batches = list(dl)
    assert [type(b) for b in batches] == [list] * 3  # tuple samples collate into a list, as torch
    assert [b[1].tolist() for b in batches] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    np.testing.assert_array_equal(batches[1][0].numpy(), x.numpy()[4:8])
    assert batches[0][0].dtype == jtorch.float32 and batches[0][1].dtype == jtorch.int64
    dl = DataLoader(ds, batch_size=4, drop_last=True)
    assert len(dl) == 2 and [b[1].tolist() for b in dl] == [[0, 1, 2, 3], [4, 5, 6, 7]]
    with pytest.raises(AssertionError, match="^Size mismatch between tensors$"):
        TensorDataset(jtorch.zeros(3), jtorch.zeros(4))


def test_shuffle_is_a_seeded_permutation():
    ds, _, _ = _ds(23)
    g = jtorch.Generator().manual_seed(7)
    order = [i for b in DataLoader(ds, batch_size=5, shuffle=True, generator=g) for i in b[1].tolist()]
    assert sorted(order) == list(range(23)) and order != list(range(23))
    g2 = jtorch.Generator().manual_seed(7)
    again = [i for b in DataLoader(ds, batch_size=5, shuffle=True, generator=g2) for i in b[1].tolist()]
    assert again == order
    # without a generator, jtorch.manual_seed fixes the order (one seed drawn per epoch, as torch)
    jtorch.manual_seed(3)
    a = [i for b in DataLoader(ds, batch_size=5, shuffle=True) for i in b[1].tolist()]
    jtorch.manual_seed(3)
    b_ = [i for b in DataLoader(ds, batch_size=5, shuffle=True) for i in b[1].tolist()]
    assert a == b_ and sorted(a) == list(range(23))
    dl = DataLoader(ds, batch_size=5, shuffle=True)
    assert [i for b in dl for i in b[1].tolist()] != [i for b in dl for i in b[1].tolist()]


def test_custom_collate_sees_per_sample_tuples():
    ds, _, _ = _ds(6)
    seen = []

    def collate(batch):
        seen.append([(s[0].tolist(), s[1].item()) for s in batch])
        return len(batch)

    assert list(DataLoader(ds, batch_size=4, collate_fn=collate)) == [4, 2]
    assert seen[1] == [([12.0, 13.0, 14.0], 4), ([15.0, 16.0, 17.0], 5)]


class _Dicts(Dataset):
    def __len__(self):
        return 5

    def __getitem__(self, i):
        return {"a": float(i), "b": i, "name": f"s{i}", "arr": np.full(2, i, np.int32), "p": Point(i, [i, -i])}


def test_default_collate_containers_against_torch():
    batch = [_Dicts()[i] for i in range(3)]
    out = default_collate(batch)
    assert out["a"].dtype == jtorch.float64 and out["a"].tolist() == [0.0, 1.0, 2.0]
    assert out["b"].dtype == jtorch.int64 and out["b"].tolist() == [0, 1, 2]
    assert out["name"] == ["s0", "s1", "s2"]
    assert out["arr"].dtype == jtorch.int32 and out["arr"].shape == (3, 2)
    assert type(out["p"]) is Point and out["p"].x.tolist() == [0, 1, 2]
    assert [t.tolist() for t in out["p"].y] == [[0, 1, 2], [0, -1, -2]]
    assert default_collate([True, False]).dtype == jtorch.bool
    assert default_collate([np.float32(1), np.float32(2)]).dtype == jtorch.float32
    assert default_collate([(1, 2.0), (3, 4.0)])[1].tolist() == [2.0, 4.0]
    tc = oracle_torch().utils.data.default_collate

    want = tc(batch)
    for k in ("a", "b", "arr"):
        assert str(out[k].dtype).split(".")[-1] == str(want[k].dtype).split(".")[-1]
        assert out[k].tolist() == want[k].tolist()


def test_default_collate_errors():
    with pytest.raises(RuntimeError, match="^each element in list of batch should be of equal size$"):
        default_collate([[1, 2], [3]])
    with pytest.raises(TypeError, match="^default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found <class 'object'>$"):
        default_collate([object()])
    with pytest.raises(TypeError, match="found <U1"):
        default_collate([np.array(["a"]), np.array(["b"])])


def test_dict_dataset_loader_and_no_batching():
    dl = DataLoader(_Dicts(), batch_size=2)
    b = next(iter(dl))
    assert b["b"].tolist() == [0, 1] and b["name"] == ["s0", "s1"]
    unbatched = list(DataLoader(_Dicts(), batch_size=None))
    assert len(unbatched) == 5 and isinstance(unbatched[3]["arr"], jtorch.Tensor) and unbatched[3]["b"] == 3


class _Count(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        return self.n


def test_iterable_dataset():
    assert [b.tolist() for b in DataLoader(_Count(7), batch_size=3)] == [[0, 1, 2], [3, 4, 5], [6]]
    assert [b.tolist() for b in DataLoader(_Count(7), batch_size=3, drop_last=True)] == [[0, 1, 2], [3, 4, 5]]
    assert len(DataLoader(_Count(7), batch_size=3)) == 3
    with pytest.raises(ValueError, match="^DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle=True$"):
        DataLoader(_Count(3), shuffle=True)


def test_loader_errors():
    ds, _, _ = _ds()
    with pytest.raises(ValueError, match="^sampler option is mutually exclusive with shuffle$"):
        DataLoader(ds, sampler=SequentialSampler(ds), shuffle=True)
    with pytest.raises(ValueError, match="^batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last$"):
        DataLoader(ds, batch_size=2, batch_sampler=BatchSampler(SequentialSampler(ds), 2, False))
    with pytest.raises(ValueError, match="^batch_size=None option disables auto-batching and is mutually exclusive with drop_last$"):
        DataLoader(ds, batch_size=None, drop_last=True)
    with pytest.raises(NotImplementedError, match="num_workers=0"):
        DataLoader(ds, num_workers=2)
    with pytest.raises(ValueError, match="^num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.$"):
        DataLoader(ds, num_workers=-1)
    dl = DataLoader(ds)
    with pytest.raises(ValueError, match="^batch_size attribute should not be set after DataLoader is initialized$"):
        dl.batch_size = 3


def test_samplers():
    ds, _, _ = _ds(10)
    assert list(SequentialSampler(ds)) == list(range(10))
    assert list(BatchSampler(range(7), 3, False)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert len(BatchSampler(range(7), 3, True)) == 2 and len(BatchSampler(range(7), 3, False)) == 3
    r = list(RandomSampler(ds, generator=jtorch.Generator().manual_seed(1)))
    assert sorted(r) == list(range(10))
    rr = list(RandomSampler(ds, replacement=True, num_samples=70, generator=jtorch.Generator().manual_seed(1)))
    assert len(rr) == 70 and all(0 <= i < 10 for i in rr) and len(set(rr)) > 5
    assert len(list(RandomSampler(ds, num_samples=25))) == 25
    assert sorted(SubsetRandomSampler([3, 5, 9])) == [3, 5, 9]
    with pytest.raises(ValueError, match="^batch_size should be a positive integer value, but got batch_size=0$"):
        BatchSampler(range(3), 0, False)
    with pytest.raises(ValueError, match="^drop_last should be a boolean value, but got drop_last=1$"):
        BatchSampler(range(3), 2, 1)
    with pytest.raises(ValueError, match="^num_samples should be a positive integer value, but got num_samples=0$"):
        RandomSampler(ds, num_samples=0)
    with pytest.raises(TypeError, match="^replacement should be a boolean value, but got replacement=1$"):
        RandomSampler(ds, replacement=1)
    custom = DataLoader(ds, batch_sampler=[[9, 0], [5]])
    assert [b[1].tolist() for b in custom] == [[9, 0], [5]]


def test_random_split_and_subset():
    ds, _, _ = _ds(10)
    a, b = random_split(ds, [7, 3], generator=jtorch.Generator().manual_seed(0))
    assert isinstance(a, Subset) and len(a) == 7 and len(b) == 3
    assert sorted(list(a.indices) + list(b.indices)) == list(range(10))
    assert a[0][1].item() == a.indices[0]
    parts = random_split(ds, [0.5, 0.3, 0.2])
    assert [len(p) for p in parts] == [5, 3, 2]
    parts = random_split(range(11), [0.5, 0.5])
    assert [len(p) for p in parts] == [6, 5]
    with pytest.raises(ValueError, match="^Sum of input lengths does not equal the length of the input dataset!$"):
        random_split(ds, [4, 4])
    with pytest.warns(UserWarning, match="^Length of split at index 1 is 0. This might result in an empty dataset.$"):
        random_split(range(3), [1.0, 0.0])
    # a Subset of a TensorDataset batches through the gathered path
    batches = list(DataLoader(b, batch_size=2))
    assert [t.tolist() for bt in batches for t in bt[1:]] == [[b.indices[0], b.indices[1]], [b.indices[2]]]
    assert math.isclose(sum(len(p) for p in random_split(range(20), [0.25, 0.75])), 20)


def test_concat_dataset():
    ds, _, _ = _ds(4)
    cat = ConcatDataset([ds, ds])
    assert len(cat) == 8 and cat[5][1].item() == 1 and cat[-1][1].item() == 3
    assert len(ds + ds) == 8
    with pytest.raises(ValueError, match="^absolute value of index should not exceed dataset length$"):
        cat[-9]
