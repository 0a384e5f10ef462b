"""export: see README.md."""
