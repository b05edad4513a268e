"""`jtorch.nn.utils.rnn`: packed sequences (torch/nn/utils/rnn.py and ATen's PackedSequence.cpp).

A PackedSequence holds the time-major rows of a batch of sequences sorted by decreasing length:
`data` (sum of lengths, *), `batch_sizes` (int64, always on the CPU: how many sequences are still running
at each step), and the permutation that sorted them (`sorted_indices`) with its inverse. Packing and
unpacking are index_select of rows, so gradients flow through them.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

import jtorch

from ...tensor import Tensor

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


def bind(optional: Any, fn: Any) -> Any:
    return None if optional is None else fn(optional)


class PackedSequence(PackedSequence_):
    """Holds the data and list of `batch_sizes` of a packed sequence; every recurrent module accepts one."""

    def __new__(cls, data: Tensor, batch_sizes: Tensor | None = None, sorted_indices: Tensor | None = None,
                unsorted_indices: Tensor | None = None) -> PackedSequence:
        return super().__new__(cls, *_packed_sequence_init_args(data, batch_sizes, sorted_indices,
                                                                 unsorted_indices))

    def pin_memory(self) -> PackedSequence:
        return type(self)(self.data.pin_memory(), self.batch_sizes, bind(self.sorted_indices, lambda t: t.pin_memory()),
                          bind(self.unsorted_indices, lambda t: t.pin_memory()))

    def to(self, *args: Any, **kwargs: Any) -> PackedSequence:
        """Converts `data` as Tensor.to does (batch_sizes stays on the CPU); `self` when nothing changes."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        non_blocking = bool(kwargs.get("non_blocking", False))

        def call_to(t: Tensor) -> Tensor:
            return t.to(data.device, non_blocking=non_blocking)

        return type(self)(data, self.batch_sizes, bind(self.sorted_indices, call_to),
                          bind(self.unsorted_indices, call_to))

    def cuda(self, *args: Any, **kwargs: Any) -> PackedSequence:
        ex = jtorch.tensor((), dtype=self.data.dtype, device=self.data.device).to(*args, **kwargs)
        if ex.is_cuda:
            return self.to(*args, **kwargs)
        kwargs["device"] = "cuda"
        return self.to(*args, **kwargs)

    def cpu(self, *args: Any, **kwargs: Any) -> PackedSequence:
        ex = jtorch.tensor((), dtype=self.data.dtype, device=self.data.device).to(*args, **kwargs)
        if ex.device.type == "cpu":
            return self.to(*args, **kwargs)
        kwargs["device"] = "cpu"
        return self.to(*args, **kwargs)

    def double(self) -> PackedSequence:
        return self.to(dtype=jtorch.double)

    def float(self) -> PackedSequence:
        return self.to(dtype=jtorch.float)

    def half(self) -> PackedSequence:
        return self.to(dtype=jtorch.half)

    def long(self) -> PackedSequence:
        return self.to(dtype=jtorch.long)

    def int(self) -> PackedSequence:
        return self.to(dtype=jtorch.int)

    def short(self) -> PackedSequence:
        return self.to(dtype=jtorch.short)

    def char(self) -> PackedSequence:
        return self.to(dtype=jtorch.int8)

    def byte(self) -> PackedSequence:
        return self.to(dtype=jtorch.uint8)

    @property
    def is_cuda(self) -> bool:
        """Whether `data` is on a GPU."""
        return self.data.is_cuda

    def is_pinned(self) -> bool:
        return self.data.is_pinned()


def _packed_sequence_init_args(data: Any, batch_sizes: Tensor | None = None, sorted_indices: Tensor | None = None,
                               unsorted_indices: Tensor | None = None) -> tuple:
    if unsorted_indices is None:
        unsorted_indices = invert_permutation(sorted_indices)
    if batch_sizes is not None:
        if batch_sizes.device.type != "cpu":
            raise ValueError("batch_sizes should always be on CPU. Instances of PackedSequence should never be created "
                             "manually. They should be instantiated by functions like pack_sequence and "
                             "pack_padded_sequences in nn.utils.rnn. "
                             "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
        return data, batch_sizes, sorted_indices, unsorted_indices
    if not (isinstance(data, (list, tuple)) and len(data) == 2):
        raise AssertionError("Expected data to be a list or tuple of length 2")
    return data[0], data[1], sorted_indices, unsorted_indices


def _packed_sequence_init(data: Tensor, batch_sizes: Tensor | None = None, sorted_indices: Tensor | None = None,
                          unsorted_indices: Tensor | None = None) -> PackedSequence:
    return PackedSequence(*_packed_sequence_init_args(data, batch_sizes, sorted_indices, unsorted_indices))


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The inverse permutation (None for None)."""
    if permutation is None:
        return None
    output = jtorch.empty_like(permutation)
    output.scatter_(0, permutation, jtorch.arange(0, permutation.numel(), device=permutation.device))
    return output


def _pack_padded(input: Tensor, lengths: list[int], batch_first: bool) -> tuple[Tensor, Tensor]:
    """ATen's _pack_padded_sequence: (data, batch_sizes) from a padded (L, N, *) input."""
    if batch_first:
        input = input.transpose(0, 1)
    if input.numel() <= 0:
        raise RuntimeError("Cannot pack empty tensors.")
    L, N = input.shape[0], input.shape[1]
    if len(lengths) != N:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(lengths)} "
                           f"(batch_size={N})")
    if lengths[N - 1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' that "
                           "is <= 0")
    for i in range(N - 1):
        if lengths[N - 1 - i] > lengths[N - 2 - i]:
            raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You "
                               "can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                               "sidestep this requirement if you do not need ONNX exportability.")
    if lengths[0] > L:
        raise RuntimeError(f"Expected sequence length to be at most {L}, but got {lengths[0]}")  # index check
    batch_sizes = [sum(1 for n in lengths if n > t) for t in range(lengths[0])]
    rows = [t * N + j for t, bs in enumerate(batch_sizes) for j in range(bs)]
    flat = input.reshape((L * N,) + tuple(input.shape[2:]))
    data = flat.index_select(0, jtorch.tensor(rows, dtype=jtorch.int64, device=input.device))
    return data, jtorch.tensor(batch_sizes, dtype=jtorch.int64)


def pack_padded_sequence(input: Tensor, lengths: Tensor | list[int], batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """Packs a Tensor of padded sequences of variable length (lengths sorted decreasing unless
    enforce_sorted=False, which sorts them and records the permutation)."""
    if not isinstance(lengths, Tensor):
        lengths = jtorch.as_tensor(lengths, dtype=jtorch.int64, device="cpu")
    else:
        lengths = lengths.to(dtype=jtorch.int64)
    sorted_indices = None
    if not enforce_sorted:
        lengths, sorted_indices = jtorch.sort(lengths, descending=True)
        sorted_indices = sorted_indices.to(input.device)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    data, batch_sizes = _pack_padded(input, [int(n) for n in lengths.tolist()], batch_first)
    return _packed_sequence_init(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0,
                        total_length: int | None = None) -> tuple[Tensor, Tensor]:
    """Pads a packed batch of variable length sequences: (padded, lengths), in the original order."""
    max_seq_length = sequence.batch_sizes.size(0)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, "
                             f"but got total_length={total_length} and max sequence length being {max_seq_length}")
        max_seq_length = total_length
    data = sequence.data
    bsz = [int(b) for b in sequence.batch_sizes.tolist()]
    N = bsz[0]
    T = data.shape[0]
    rows: list[int] = []
    off = 0
    for t in range(max_seq_length):
        bs = bsz[t] if t < len(bsz) else 0
        rows += [off + j if j < bs else T for j in range(N)]
        off += bs
    pad = jtorch.full((1,) + tuple(data.shape[1:]), padding_value, dtype=data.dtype, device=data.device)
    ext = jtorch.cat([data, pad])
    padded = ext.index_select(0, jtorch.tensor(rows, dtype=jtorch.int64, device=data.device))
    padded = padded.view((max_seq_length, N) + tuple(data.shape[1:]))
    if batch_first:
        padded = padded.transpose(0, 1)
    lengths = jtorch.tensor([sum(1 for b in bsz if b > j) for j in range(N)], dtype=jtorch.int64)
    unsorted_indices = sequence.unsorted_indices
    if unsorted_indices is not None:
        return padded.index_select(0 if batch_first else 1, unsorted_indices), lengths[unsorted_indices.cpu()]
    return padded, lengths


def pad_sequence(sequences: Tensor | list[Tensor], batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Pads a list of variable length Tensors with `padding_value` to (L, B, *) ((B, L, *) with batch_first)."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    seqs = tuple(sequences)
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if not seqs:
        raise RuntimeError("received an empty list of sequences")
    max_len = max(s.size(0) for s in seqs)
    trailing = tuple(seqs[0].shape[1:])
    parts = []
    for s in seqs:
        n = max_len - s.size(0)
        if n:
            fill = jtorch.full((n,) + trailing, padding_value, dtype=s.dtype, device=s.device)
            s = jtorch.cat([s, fill] if padding_side == "right" else [fill, s])
        parts.append(s)
    return jtorch.stack(parts, 0 if batch_first else 1)


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor, batch_first: bool = False) -> list[Tensor]:
    """The list of sequences of a padded batch, each cut to its length."""
    if not batch_first:
        padded_sequences.transpose_(0, 1)
    max_length = padded_sequences.shape[1]
    idx = jtorch.arange(max_length, device=lengths.device)
    return [seq[idx < length] for seq, length in zip(padded_sequences, lengths, strict=True)]


def pack_sequence(sequences: list[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Packs a list of variable length Tensors (pad_sequence then pack_padded_sequence)."""
    lengths = jtorch.as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """The list of sequences of a PackedSequence."""
    padded_sequences, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded_sequences, lengths, batch_first=True)
