import unittest

from textutil import truncate


class TestTruncate(unittest.TestCase):
    def test_short_text_unchanged(self):
        self.assertEqual(truncate("abc", 5), "abc")

    def test_cut_fits_width(self):
        self.assertEqual(truncate("abcdefghij", 8), "abcde...")
        self.assertEqual(len(truncate("x" * 50, 10)), 10)


if __name__ == "__main__":
    unittest.main()
