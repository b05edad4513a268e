"""A monotonic clock readable inside jitted code: how parallel loops time their own chunks.

``now_ns()`` returns ``clock_gettime(CLOCK_MONOTONIC)`` in nanoseconds (a vDSO call on Linux, tens
of ns). A parallel entry point times each chunk and the whole prange with it, so every launch
tells :mod:`threads` how long its chunks worked (the serial estimate) against how long the
region took; see ``threads.note_parallel``. The symbol is resolved by name when the kernel is
loaded, so kernels using it stay cacheable. Where Python has no ``time.CLOCK_MONOTONIC``
(Windows) the clock reads 0 and launches are never judged late.
"""
from __future__ import annotations

import time

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

_CLOCK_ID = getattr(time, "CLOCK_MONOTONIC", None)


@intrinsic
def now_ns(typingctx):  # type: ignore[no-untyped-def]  # a Numba intrinsic: its arguments are Numba's typing objects
    """Monotonic time in ns as int64 (0 where clock_gettime is unavailable)."""
    # the ignore on the next line: a Numba intrinsic's LLVM code generator
    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        i64 = ir.IntType(64)
        if _CLOCK_ID is None:
            return ir.Constant(i64, 0)
        # struct timespec { time_t tv_sec; long tv_nsec; }: two 64-bit words on 64-bit POSIX
        ts_type = ir.LiteralStructType([i64, i64])
        fnty = ir.FunctionType(ir.IntType(32), [ir.IntType(32), ts_type.as_pointer()])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "clock_gettime")
        ts = cgutils.alloca_once(builder, ts_type)
        builder.call(fn, [ir.Constant(ir.IntType(32), _CLOCK_ID), ts])
        zero = ir.Constant(ir.IntType(32), 0)
        sec = builder.load(builder.gep(ts, [zero, zero]))
        nsec = builder.load(builder.gep(ts, [zero, ir.Constant(ir.IntType(32), 1)]))
        return builder.add(builder.mul(sec, ir.Constant(i64, 1_000_000_000)), nsec)
    return types.int64(), codegen
