"""Number helpers."""
