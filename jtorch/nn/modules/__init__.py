"""The module classes, one file per family (as torch/nn/modules/)."""
from .activation import *
from .attention import *
from .container import *
from .conv import *
from .dropout import *
from .flatten import *
from .linear import *
from .loss import *
from .module import Module
from .normalization import *
from .pooling import *
from .sparse import *
from .transformer import *
