import os
import tempfile
import unittest

from lines import count_lines


class TestCountLines(unittest.TestCase):
    def test_trailing_newline(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "x.txt")
            with open(p, "w") as f:
                f.write("a\nb\n")
            self.assertEqual(count_lines(p), 2)


if __name__ == "__main__":
    unittest.main()
