import unittest

from titles import title_case


class TestTitleCase(unittest.TestCase):
    def test_small_words(self):
        self.assertEqual(title_case("the lord of the rings"), "The Lord of the Rings")

    def test_first_word_capitalised(self):
        self.assertEqual(title_case("a tale"), "A Tale")


if __name__ == "__main__":
    unittest.main()
