import unittest

from kv import parse_kv


class TestParseKV(unittest.TestCase):
    def test_spaces_and_trailing(self):
        self.assertEqual(parse_kv("a=1; b = 2;c=3;"), {"a": "1", "b": "2", "c": "3"})

    def test_value_with_equals(self):
        self.assertEqual(parse_kv("url=x=y"), {"url": "x=y"})


if __name__ == "__main__":
    unittest.main()
