import unittest

from stack import EmptyStackError, Stack


class TestStack(unittest.TestCase):
    def test_peek_empty(self):
        with self.assertRaises(EmptyStackError):
            Stack().peek()

    def test_peek(self):
        s = Stack()
        s.push(1)
        s.push(2)
        self.assertEqual(s.peek(), 2)
        self.assertEqual(s.pop(), 2)


if __name__ == "__main__":
    unittest.main()
