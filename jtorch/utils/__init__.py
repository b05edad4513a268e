"""`jtorch.utils`: data loading (jtorch.utils.data)."""
from . import data  # noqa: F401  (jtorch.utils is itself imported on first use)
