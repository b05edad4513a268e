"""Operator declarations and their kernels, one file per family. Importing this package declares
every aten operator jtorch implements (and sets the Python-level Tensor methods they back);
jtorch/__init__.py then generates the bindings."""
from . import registry  # noqa: F401
from . import factories, views, copy, conversion, tensor_new, range_factories  # noqa: F401
from . import random, random_factories, indexing, python_methods, python_indexing  # noqa: F401
from . import binary, unary  # noqa: F401
from . import scans  # noqa: F401
from . import blas, matmul, einsum  # noqa: F401
from . import reductions, reductions_stats  # noqa: F401
from . import joining, rearrange, grids  # noqa: F401
from . import scatter_gather, index_ops, masks  # noqa: F401
from . import sorting, search  # noqa: F401
from . import comparing  # noqa: F401
from . import convolution  # noqa: F401
from . import pooling  # noqa: F401
from . import loss  # noqa: F401
from . import fused_optim  # noqa: F401
