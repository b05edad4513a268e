"""The CPU backend: NumPy-buffer storage and the stubs that run jtorch's generated Numba loops.

`register()` hands these to jtorch.backends (jtorch/__init__.py calls it first thing). This is the
only place where a built TensorIterator meets CPU buffers; the structured layer above never looks
inside a storage. A user's backend (tests/test_backend_registration.py registers a toy
PrivateUse1 one) provides the same stubs for its own storage.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...backends import register_backend
from ...storage import CPUStorage
from .matmul import matmul  # NumPy only: Numba loads with the first integer product


def _storage(numel: int, dtype: Any, device: Any) -> CPUStorage:
    return CPUStorage.allocate(numel, dtype)


def elementwise(it: Any, scalar_fn: Callable, extras: tuple) -> None:
    """Run `scalar_fn` over a built TensorIterator (cpu_kernel_vec's role)."""
    from .loops import ArrayOperand, launch

    operands = []
    for o in it.operands:
        if o.scalar is not None:
            operands.append(o.scalar)
        else:
            t = o.tensor
            operands.append(ArrayOperand(t._storage.data, t._offset, tuple(o.strides)))
    launch(scalar_fn, it.shape, operands, extras)


def elementwise_contiguous(scalar_fn: Callable, pattern: tuple, nextra: int) -> Callable:
    """TensorIterator's fast set-up: every array operand contiguous, of one shape. Returns
    run(out, tensors, compute_dtype, extras, numel) for inputs laid out as `pattern` (True =
    array, False = a CPU scalar read as a value)."""
    from .loops import arrays_runner

    return arrays_runner(scalar_fn, len(pattern), nextra, None if all(pattern) else pattern)


def scan(plan: Any, decl: Any, extras: tuple) -> None:
    """Run a scan or row-normaliser declaration along one dimension (jtorch/kernels/cpu/scan.py;
    imported on first use, and then installed as the stub itself)."""
    from . import scan as module

    register_backend("cpu", "CPU", scan=module.scan)
    module.scan(plan, decl, extras)


def reduce(it: Any, reduction: Any, extras: tuple) -> None:
    """Run a declared Reduction over a reduce-mode TensorIterator (jtorch/kernels/cpu/reduce.py)."""
    from .reduce import reduce as run

    run(it, reduction, extras)


def reduce_contiguous(reduction: Any, x: Any, results: list, extras: tuple, mask: Any = None) -> bool:
    """A small contiguous input reduced over some or all dims without an iterator (False where
    it does not apply)."""
    global reduce_contiguous
    from .reduce import reduce_contiguous as run

    reduce_contiguous = run  # the kernel module is imported now: later calls go straight to it
    register_backend("cpu", "CPU", reduce_contiguous=run)
    return run(reduction, x, results, extras, mask)


def sort(kind: str, *args: Any) -> Any:
    """Sorting, selection and search kernels (jtorch/kernels/cpu/sort.py; imported on first use,
    and then installed as the stub itself)."""
    from . import sort as module

    register_backend("cpu", "CPU", sort=module.sort)
    return module.sort(kind, *args)


def im2col(kind: str, *args: Any) -> None:
    """im2col / col2im (jtorch/kernels/cpu/im2col.py; imported on first use, then installed)."""
    from . import im2col as module

    register_backend("cpu", "CPU", im2col=module.im2col)
    module.im2col(kind, *args)


def pool(kind: str, *args: Any) -> None:
    """Pooling kernels (jtorch/kernels/cpu/pool.py; imported on first use, then installed)."""
    from . import pool as module

    register_backend("cpu", "CPU", pool=module.pool)
    module.pool(kind, *args)


def loss(kind: str, *args: Any) -> Any:
    """Loss kernels (jtorch/kernels/cpu/loss.py; imported on first use, then installed)."""
    from . import loss as module

    register_backend("cpu", "CPU", loss=module.loss)
    return module.loss(kind, *args)


def softmax_backward(*args: Any) -> None:
    """softmax / log_softmax gradients (jtorch/kernels/cpu/softmax_backward.py; installed on first use)."""
    from . import softmax_backward as module

    register_backend("cpu", "CPU", softmax_backward=module.softmax_backward)
    module.softmax_backward(*args)


def register() -> None:
    from . import cat, copy, fill, host, index, random, remap  # NumPy only: Numba loads on first use

    register_backend("cpu", "CPU", storage=_storage, elementwise=elementwise,
                     elementwise_contiguous=elementwise_contiguous, scan=scan, reduce=reduce,
                     reduce_contiguous=reduce_contiguous,
                     fill=fill.fill, copy=copy.copy, random=random.random, index=index.index,
                     read_scalar=host.read_scalar, matmul=matmul, remap=remap.remap, cat=cat.cat,
                     sort=sort, im2col=im2col, pool=pool, loss=loss,
                     softmax_backward=softmax_backward)
