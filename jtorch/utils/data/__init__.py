"""`jtorch.utils.data`: datasets, samplers, default_collate and the (single-process) DataLoader."""
from ._collate import default_collate, default_convert  # noqa: F401
from .dataloader import *  # noqa: F401,F403
from .dataset import *  # noqa: F401,F403
from .sampler import *  # noqa: F401,F403

__all__ = [
    "DataLoader", "Dataset", "IterableDataset", "TensorDataset", "Subset", "ConcatDataset", "random_split",
    "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "BatchSampler",
    "default_collate", "default_convert",
]
