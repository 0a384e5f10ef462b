import unittest

from inventory import Inventory


class TestInventory(unittest.TestCase):
    def test_overdraw(self):
        inv = Inventory()
        inv.add("apple", 2)
        with self.assertRaises(ValueError):
            inv.remove("apple", 5)
        self.assertEqual(inv.stock["apple"], 2)

    def test_remove(self):
        inv = Inventory()
        inv.add("pear", 3)
        inv.remove("pear", 2)
        self.assertEqual(inv.stock["pear"], 1)


if __name__ == "__main__":
    unittest.main()
