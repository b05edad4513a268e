"""(placeholder)."""


def clip_grad_norm_(*a, **k):
    raise NotImplementedError


def clip_grad_value_(*a, **k):
    raise NotImplementedError
