"""(placeholder)."""


def parameters_to_vector(*a, **k):
    raise NotImplementedError


def vector_to_parameters(*a, **k):
    raise NotImplementedError
