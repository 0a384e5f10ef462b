import unittest

from chunking import chunks


class TestChunks(unittest.TestCase):
    def test_remainder(self):
        self.assertEqual(chunks([1, 2, 3, 4, 5], 2), [[1, 2], [3, 4], [5]])

    def test_exact(self):
        self.assertEqual(chunks([1, 2, 3, 4], 2), [[1, 2], [3, 4]])


if __name__ == "__main__":
    unittest.main()
