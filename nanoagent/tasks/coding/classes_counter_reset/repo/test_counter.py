import unittest

from counter import Counter


class TestCounter(unittest.TestCase):
    def test_reset(self):
        c = Counter(start=5)
        c.increment()
        c.increment(3)
        c.reset()
        self.assertEqual(c.value, 5)


if __name__ == "__main__":
    unittest.main()
