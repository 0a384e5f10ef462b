import unittest

from calendar_util import is_weekend


class TestWeekend(unittest.TestCase):
    def test_days(self):
        self.assertFalse(is_weekend("2024-06-07"))
        self.assertTrue(is_weekend("2024-06-08"))
        self.assertTrue(is_weekend("2024-06-09"))
        self.assertFalse(is_weekend("2024-06-10"))


if __name__ == "__main__":
    unittest.main()
