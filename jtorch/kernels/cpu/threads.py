"""The process's one thread policy for CPU kernels: how many chunks a parallel loop gets.

Every parallel CPU loop (elementwise, reduce, scan, matmul) asks `num_chunks(numel)` how many
chunks to split `numel` elements into; 1 means run serially on the calling thread. PyTorch's rule:
serial below GRAIN_SIZE (32768) elements, otherwise one chunk per thread, each at least a grain.
"""
from __future__ import annotations

GRAIN_SIZE = 32768


def num_chunks(numel: int, grain: int = GRAIN_SIZE) -> int:
    """Chunks for a parallel loop over `numel` elements (1: serial)."""
    if numel < grain:
        return 1
    import numba

    return max(1, min(numba.get_num_threads(), -(-numel // grain)))
