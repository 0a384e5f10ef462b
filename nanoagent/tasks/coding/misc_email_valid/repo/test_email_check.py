import unittest

from email_check import is_valid_email


class TestEmail(unittest.TestCase):
    def test_valid(self):
        self.assertTrue(is_valid_email("first.last@example.co.uk"))
        self.assertTrue(is_valid_email("a@b.io"))

    def test_invalid(self):
        self.assertFalse(is_valid_email("a@b"))
        self.assertFalse(is_valid_email("@b.io"))
        self.assertFalse(is_valid_email("a@@b.io"))


if __name__ == "__main__":
    unittest.main()
