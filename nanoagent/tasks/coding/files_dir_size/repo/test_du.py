import os
import tempfile
import unittest

from du import dir_size


class TestDirSize(unittest.TestCase):
    def test_size(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "x"))
            with open(os.path.join(d, "a"), "wb") as f:
                f.write(b"12345")
            with open(os.path.join(d, "x", "b"), "wb") as f:
                f.write(b"123")
            self.assertEqual(dir_size(d), 8)


if __name__ == "__main__":
    unittest.main()
