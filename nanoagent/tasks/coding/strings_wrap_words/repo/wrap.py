"""Text wrapping helpers."""
