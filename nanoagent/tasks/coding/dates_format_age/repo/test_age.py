import unittest
from datetime import date

from age import age_on


class TestAge(unittest.TestCase):
    def test_before_birthday(self):
        self.assertEqual(age_on(date(2000, 12, 31), date(2024, 6, 1)), 23)

    def test_on_birthday(self):
        self.assertEqual(age_on(date(2000, 6, 1), date(2024, 6, 1)), 24)


if __name__ == "__main__":
    unittest.main()
