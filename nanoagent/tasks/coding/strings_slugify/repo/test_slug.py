import unittest

from slug import slugify


class TestSlugify(unittest.TestCase):
    def test_punctuation(self):
        self.assertEqual(slugify("Hello, World!"), "hello-world")

    def test_spaces(self):
        self.assertEqual(slugify("  many   spaces here "), "many-spaces-here")

    def test_dashes(self):
        self.assertEqual(slugify("a -- b"), "a-b")


if __name__ == "__main__":
    unittest.main()
