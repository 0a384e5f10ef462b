from datetime import date


def is_weekend(iso):
    return date.fromisoformat(iso).weekday() in (4, 5)
