import unittest

from shapes import Point


class TestPoint(unittest.TestCase):
    def test_repr(self):
        self.assertEqual(repr(Point(1, 2)), "Point(x=1, y=2)")

    def test_eq(self):
        self.assertEqual(Point(1, 2), Point(1, 2))
        self.assertNotEqual(Point(1, 2), Point(2, 1))


if __name__ == "__main__":
    unittest.main()
