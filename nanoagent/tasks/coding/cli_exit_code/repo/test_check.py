import subprocess
import sys
import unittest


class TestCheck(unittest.TestCase):
    def test_missing(self):
        r = subprocess.run([sys.executable, "check.py", "missing.txt"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 1)
        self.assertIn("missing.txt: not found", r.stdout)

    def test_present(self):
        r = subprocess.run([sys.executable, "check.py", "check.py"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0)


if __name__ == "__main__":
    unittest.main()
