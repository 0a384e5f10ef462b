import unittest

from report import total_by_category

DATA = "category,amount\nfood,3.5\nrent,100\nfood,1.5\n"


class TestReport(unittest.TestCase):
    def test_totals(self):
        self.assertEqual(total_by_category(DATA), {"food": 5.0, "rent": 100.0})


if __name__ == "__main__":
    unittest.main()
