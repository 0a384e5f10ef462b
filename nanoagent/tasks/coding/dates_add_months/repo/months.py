from datetime import date


def add_months(d, n):
    month = d.month - 1 + n
    year = d.year + month // 12
    return date(year, month % 12 + 1, d.day)
