"""The CPU resampling stub: one dim of a padding or upsampling operator (resample_loops.py has the
loops and the (A, n, B) view they take)."""
from __future__ import annotations

from typing import Any

import numpy as np

from . import resample_loops as _loops
from .host import numpy_view
from .threads import parallel_for

_F16 = np.dtype(np.float16)


def resample(src: Any, outer: int, inner: int, idx: Any, weights: Any, out: Any, backward: bool) -> None:
    o = numpy_view(out)
    if o.size == 0:
        return
    s3 = numpy_view(src).reshape(outer, -1, inner)
    o3 = o.reshape(outer, -1, inner)
    if s3.dtype == _F16:  # no float16 arithmetic in Numba: computed in float32 (torch's opmath), rounded once
        wide = np.empty(o3.shape, np.float32)
        _run(s3.astype(np.float32), outer, idx, weights, wide, backward)
        o3[...] = wide
        return
    _run(s3, outer, idx, weights, o3, backward)


def _run(s3: Any, outer: int, idx: Any, weights: Any, o3: Any, backward: bool) -> None:
    w = np.ones((1, idx.shape[1]), s3.dtype) if weights is None else weights.astype(s3.dtype, copy=False)
    if backward:
        kind, work = "scatter", s3.size * idx.shape[0]
    elif weights is None:
        kind, work = "copy", o3.size
    else:
        kind, work = "gather", o3.size * idx.shape[0]
    if s3.shape[2] == 1:  # the last dim: 2-d views
        kind += "_rows"
        s3, o3 = s3.reshape(outer, -1), o3.reshape(outer, -1)
    parallel_for(getattr(_loops, kind), getattr(_loops, kind + "_parallel"), outer, s3, idx, w, o3, work=work)
