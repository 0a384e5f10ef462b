import unittest
from datetime import timedelta

from duration import parse_duration


class TestDuration(unittest.TestCase):
    def test_forms(self):
        self.assertEqual(parse_duration("1h30m"), timedelta(minutes=90))
        self.assertEqual(parse_duration("45s"), timedelta(seconds=45))
        self.assertEqual(parse_duration("1h2m3s"), timedelta(hours=1, minutes=2, seconds=3))

    def test_bad(self):
        with self.assertRaises(ValueError):
            parse_duration("soon")
        with self.assertRaises(ValueError):
            parse_duration("")


if __name__ == "__main__":
    unittest.main()
