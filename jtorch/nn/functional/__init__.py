"""`jtorch.nn.functional` (torch.nn.functional), split by family into private modules."""
from ._activation import *  # noqa: F401,F403
from ._conv import *  # noqa: F401,F403
from ._linear import *  # noqa: F401,F403
from ._loss import *  # noqa: F401,F403
from ._loss_more import *  # noqa: F401,F403
from ._norm import *  # noqa: F401,F403
