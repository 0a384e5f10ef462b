import tempfile
import unittest
from pathlib import Path

from storage import write_text


class TestWrite(unittest.TestCase):
    def test_creates_parents(self):
        with tempfile.TemporaryDirectory() as d:
            p = Path(d) / "a" / "b" / "c.txt"
            write_text(p, "hi")
            self.assertEqual(p.read_text(), "hi")


if __name__ == "__main__":
    unittest.main()
