"""`jtorch.autograd.graph`: the graph's node type, as torch.autograd.graph exposes it."""
from .node import Node  # noqa: F401  # re-exported: torch.autograd.graph.Node
