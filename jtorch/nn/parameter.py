"""(placeholder: filled by the nn issue)."""
from ..tensor import Tensor


class Parameter(Tensor):
    pass
