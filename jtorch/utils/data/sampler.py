"""Samplers: which dataset indices a DataLoader visits, and in which order (torch.utils.data.sampler)."""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import Any

import jtorch

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "BatchSampler"]


class Sampler:
    """Base class: an iterable of indices (or of lists of indices, for batch samplers)."""

    def __init__(self, data_source: Sized | None = None) -> None:
        pass

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random permutation (or, with replacement, random draws) drawn from `generator`.

    Without a generator, one seed is drawn from the default generator per epoch, as torch does,
    so `jtorch.manual_seed` fixes the shuffling.
    """

    def __init__(
        self, data_source: Sized, replacement: bool = False, num_samples: int | None = None, generator: Any = None
    ) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(
                f"num_samples should be a positive integer value, but got num_samples={self.num_samples}"
            )

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        if self.generator is None:
            seed = int(jtorch.empty((), dtype=jtorch.int64).random_().item())
            generator = jtorch.Generator()
            generator.manual_seed(seed)
        else:
            generator = self.generator
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from jtorch.randint(high=n, size=(32,), dtype=jtorch.int64, generator=generator).tolist()
            yield from jtorch.randint(
                high=n, size=(self.num_samples % 32,), dtype=jtorch.int64, generator=generator
            ).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from jtorch.randperm(n, generator=generator).tolist()
            yield from jtorch.randperm(n, generator=generator).tolist()[: self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order."""

    def __init__(self, indices: Sequence[int], generator: Any = None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for i in jtorch.randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class BatchSampler(Sampler):
    """Groups another sampler's indices into lists of `batch_size`."""

    def __init__(self, sampler: Iterable[int], batch_size: int, drop_last: bool) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        it = iter(self.sampler)
        size = self.batch_size
        while True:
            batch = [i for _, i in zip(range(size), it)]
            if len(batch) == size:
                yield batch
            else:
                if batch and not self.drop_last:
                    yield batch
                return

    def __len__(self) -> int:
        if self.drop_last:
            return len(self.sampler) // self.batch_size  # type: ignore[arg-type]  # as torch: a sampler has a len
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size  # type: ignore[arg-type]  # as above
