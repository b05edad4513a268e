"""placeholder"""
__all__: list = []
