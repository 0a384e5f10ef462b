import os
import tempfile
import unittest

from finder import find_files


class TestFind(unittest.TestCase):
    def test_recursive(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "pkg", "sub"))
            for rel in ("a.py", "b.txt", "pkg/c.py", "pkg/sub/d.py"):
                open(os.path.join(d, rel), "w").close()
            self.assertEqual(find_files(d, ".py"), ["a.py", os.path.join("pkg", "c.py"),
                                                    os.path.join("pkg", "sub", "d.py")])


if __name__ == "__main__":
    unittest.main()
