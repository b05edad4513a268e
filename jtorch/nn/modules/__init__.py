"""The module classes, one file per family (as torch/nn/modules/)."""
from .activation import *
from .container import *
from .conv import *
from .distance import *
from .dropout import *
from .flatten import *
from .lazy import *
from .linear import *
from .local_response_norm import *
from .loss import *
from .module import Module
from .normalization import *
from .pooling import *
from .rnn import *
from .sparse import *
