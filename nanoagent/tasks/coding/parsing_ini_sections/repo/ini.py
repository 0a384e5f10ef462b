"""A tiny INI reader."""
