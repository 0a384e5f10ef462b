import unittest

from dates import days_between


class TestDaysBetween(unittest.TestCase):
    def test_order_does_not_matter(self):
        self.assertEqual(days_between("2024-03-01", "2024-02-01"), 29)
        self.assertEqual(days_between("2024-02-01", "2024-03-01"), 29)


if __name__ == "__main__":
    unittest.main()
