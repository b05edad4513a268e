"""`jtorch.nn`: modules, parameters, functional and init, as `torch.nn` presents them.

Everything here is Python on top of jtorch's operators (device-generic: the same module runs on
CPU, meta and CUDA tensors); the heavy lifting (convolution, pooling) is in operators with
kernels of their own, declared in jtorch/native/.
"""
from . import functional, init, utils
from .modules import *
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter
