"""`jtorch.testing`: torch.testing's user-facing helpers (assert_close, make_tensor), and, in
`jtorch.testing.strategies` (which needs hypothesis), strategies for property tests."""
from ._comparison import assert_close, default_tolerances
from ._creation import make_tensor

__all__ = ["assert_close", "make_tensor"]
