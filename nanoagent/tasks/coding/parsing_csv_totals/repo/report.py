import csv
import io


def total_by_category(text):
    totals = {}
    for category, amount in csv.reader(io.StringIO(text)):
        totals[category] = totals.get(category, 0.0) + float(amount)
    return totals
