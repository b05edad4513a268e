"""Operator declarations and their kernels, one file per family. Importing this package declares
every aten operator jtorch implements; jtorch/__init__.py then generates the bindings."""
from . import registry  # noqa: F401
from . import factories, views, indexing, copy, conversion, random  # noqa: F401
from . import binary, unary  # noqa: F401
from . import reductions, reductions_stats  # noqa: F401
