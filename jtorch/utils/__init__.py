"""`jtorch.utils`: data loading (jtorch.utils.data)."""
from . import data
