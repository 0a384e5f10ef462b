import unittest
from datetime import date

from months import add_months


class TestAddMonths(unittest.TestCase):
    def test_clamp(self):
        self.assertEqual(add_months(date(2024, 1, 31), 1), date(2024, 2, 29))

    def test_year_wrap(self):
        self.assertEqual(add_months(date(2023, 11, 15), 3), date(2024, 2, 15))


if __name__ == "__main__":
    unittest.main()
