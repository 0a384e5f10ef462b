import unittest

from median import median


class TestMedian(unittest.TestCase):
    def test_even(self):
        self.assertEqual(median([1, 2, 3, 4]), 2.5)

    def test_unsorted(self):
        self.assertEqual(median([9, 1, 5]), 5)


if __name__ == "__main__":
    unittest.main()
