"""Small arithmetic helpers."""


def add(a, b):
    """Return the sum of a and b."""
    return a - b


def mean(values):
    """Return the average of a non-empty list of numbers."""
    return sum(values) / len(values)
