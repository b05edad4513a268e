"""`jtorch.utils`: data loading (jtorch.utils.data), the deterministic-mode switch (jtorch.utils.deterministic)."""
from . import data, deterministic
