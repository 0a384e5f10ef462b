import unittest

from stats import average


class TestAverage(unittest.TestCase):
    def test_empty(self):
        self.assertIsNone(average([]))

    def test_values(self):
        self.assertEqual(average([1, 2, 3]), 2)


if __name__ == "__main__":
    unittest.main()
