import unittest

from memo import memoize


class TestMemo(unittest.TestCase):
    def test_kwargs(self):
        @memoize
        def f(a, b=0):
            return a + b

        self.assertEqual(f(1, b=2), 3)
        self.assertEqual(f(1, b=3), 4)
        self.assertEqual(f(1), 1)


if __name__ == "__main__":
    unittest.main()
