import unittest

from vowels import count_vowels


class TestVowels(unittest.TestCase):
    def test_mixed_case(self):
        self.assertEqual(count_vowels("AEIOU aeiou"), 10)

    def test_none(self):
        self.assertEqual(count_vowels("rhythm"), 0)


if __name__ == "__main__":
    unittest.main()
