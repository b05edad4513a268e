"""`jtorch.nn.functional` (torch.nn.functional), split by family into private modules."""
from ._activation import *
from ._attention import *
from ._conv import *
from ._ctc import *
from ._dropout_variants import *
from ._embedding_bag import *
from ._gumbel_lrn import *
from ._linear import *
from ._loss import *
from ._loss_more import *
from ._loss_pairs import *
from ._margin_losses import *
from ._norm import *
from ._pooling import *
from ._resample import *
