"""eval: see README.md."""
