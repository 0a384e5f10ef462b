import unittest

from version import is_newer


class TestVersion(unittest.TestCase):
    def test_numeric(self):
        self.assertTrue(is_newer("1.10.0", "1.9.2"))
        self.assertFalse(is_newer("1.2.0", "1.10"))

    def test_equal(self):
        self.assertFalse(is_newer("2.0.0", "2.0.0"))


if __name__ == "__main__":
    unittest.main()
