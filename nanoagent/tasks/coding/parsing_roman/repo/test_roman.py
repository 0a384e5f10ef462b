import unittest

from roman import from_roman


class TestRoman(unittest.TestCase):
    def test_values(self):
        self.assertEqual(from_roman("IV"), 4)
        self.assertEqual(from_roman("XC"), 90)
        self.assertEqual(from_roman("MCMXCIV"), 1994)
        self.assertEqual(from_roman("III"), 3)


if __name__ == "__main__":
    unittest.main()
