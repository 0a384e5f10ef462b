import unittest

from query import parse_query


class TestQuery(unittest.TestCase):
    def test_decoding(self):
        self.assertEqual(parse_query("q=hello%20world&page=2"), {"q": "hello world", "page": "2"})
        self.assertEqual(parse_query("name=a+b"), {"name": "a b"})


if __name__ == "__main__":
    unittest.main()
