def is_newer(a, b):
    """True when version a is newer than version b."""
    return a > b
