"""Operator declarations and their kernels, one file per family. Importing this package declares
every aten operator jtorch implements (and sets the Python-level Tensor methods they back);
jtorch/__init__.py then generates the bindings."""
from . import (  # noqa: F401  # noqa: F401  # noqa: F401  # noqa: F401  # noqa: F401  # noqa: F401  # noqa: F401  # noqa: F401
    binary,
    blas,
    comparing,  # noqa: F401
    conversion,
    convolution,  # noqa: F401
    copy,
    einsum,
    factories,
    fused_optim,  # noqa: F401
    grids,
    index_ops,
    indexing,
    joining,
    loss,  # noqa: F401
    masks,
    matmul,
    pooling,  # noqa: F401
    python_indexing,
    python_methods,
    random,
    random_factories,
    range_factories,
    rearrange,
    reductions,
    reductions_stats,
    registry,  # noqa: F401
    scans,  # noqa: F401
    scatter_gather,
    search,
    sorting,
    tensor_new,
    unary,
    views,
)
