import unittest

from primes import is_prime


class TestPrimes(unittest.TestCase):
    def test_small(self):
        self.assertEqual([n for n in range(20) if is_prime(n)], [2, 3, 5, 7, 11, 13, 17, 19])

    def test_square(self):
        self.assertFalse(is_prime(49))


if __name__ == "__main__":
    unittest.main()
