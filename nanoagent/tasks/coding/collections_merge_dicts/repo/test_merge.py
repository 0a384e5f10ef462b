import unittest

from merge import deep_merge


class TestMerge(unittest.TestCase):
    def test_nested(self):
        a = {"a": {"x": 1}, "k": 1}
        b = {"a": {"y": 2}}
        self.assertEqual(deep_merge(a, b), {"a": {"x": 1, "y": 2}, "k": 1})
        self.assertEqual(a, {"a": {"x": 1}, "k": 1})


if __name__ == "__main__":
    unittest.main()
