import unittest

from grouping import group_by


class TestGroupBy(unittest.TestCase):
    def test_len(self):
        self.assertEqual(group_by(["a", "bb", "c", "dd"], len), {1: ["a", "c"], 2: ["bb", "dd"]})

    def test_empty(self):
        self.assertEqual(group_by([], len), {})


if __name__ == "__main__":
    unittest.main()
