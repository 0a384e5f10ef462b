def percent_change(old, new):
    return round((new - old) / new * 100, 2)
