import unittest

from wrap import wrap


class TestWrap(unittest.TestCase):
    def test_basic(self):
        self.assertEqual(wrap("the quick brown fox jumps", 10), ["the quick", "brown fox", "jumps"])

    def test_long_word(self):
        self.assertEqual(wrap("a extraordinarily b", 5), ["a", "extraordinarily", "b"])

    def test_empty(self):
        self.assertEqual(wrap("", 5), [])


if __name__ == "__main__":
    unittest.main()
