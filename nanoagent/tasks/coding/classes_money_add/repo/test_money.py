import unittest

from money import Money


class TestMoney(unittest.TestCase):
    def test_same_currency(self):
        self.assertEqual(Money(5, "EUR") + Money(3, "EUR"), Money(8, "EUR"))

    def test_mixed(self):
        with self.assertRaises(ValueError):
            Money(5, "EUR") + Money(3, "USD")


if __name__ == "__main__":
    unittest.main()
