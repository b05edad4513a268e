"""`jtorch.optim`: optimizers (SGD, Adam, AdamW, RMSprop, Adagrad) and learning-rate schedulers."""
from . import lr_scheduler  # noqa: F401
from .adagrad import *  # noqa: F401,F403
from .adam import *  # noqa: F401,F403
from .adamw import *  # noqa: F401,F403
from .optimizer import *  # noqa: F401,F403
from .rmsprop import *  # noqa: F401,F403
from .sgd import *  # noqa: F401,F403

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "lr_scheduler"]
