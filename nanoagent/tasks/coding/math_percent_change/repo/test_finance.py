import unittest

from finance import percent_change


class TestPercent(unittest.TestCase):
    def test_increase(self):
        self.assertEqual(percent_change(50, 75), 50.0)

    def test_decrease(self):
        self.assertEqual(percent_change(200, 150), -25.0)


if __name__ == "__main__":
    unittest.main()
