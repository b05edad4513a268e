"""(placeholder: filled by the nn issue)."""
