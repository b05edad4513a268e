"""(placeholder: filled by the nn issue)."""


class Module:
    pass
