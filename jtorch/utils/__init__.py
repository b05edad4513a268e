"""`jtorch.utils`: data loading (jtorch.utils.data)."""
