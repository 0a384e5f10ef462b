from datetime import date


def days_between(a, b):
    return (date.fromisoformat(a) - date.fromisoformat(b)).days
