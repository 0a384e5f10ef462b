import unittest

from temperature import Temperature


class TestTemperature(unittest.TestCase):
    def test_read(self):
        self.assertAlmostEqual(Temperature(100).fahrenheit, 212)

    def test_write(self):
        t = Temperature()
        t.fahrenheit = 32
        self.assertAlmostEqual(t.celsius, 0)


if __name__ == "__main__":
    unittest.main()
