import unittest

from words import top_words


class TestTopWords(unittest.TestCase):
    def test_top(self):
        self.assertEqual(top_words("a c b a b b", 2), [("b", 3), ("a", 2)])


if __name__ == "__main__":
    unittest.main()
