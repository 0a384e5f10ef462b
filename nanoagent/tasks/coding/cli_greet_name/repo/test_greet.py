import subprocess
import sys
import unittest


def run(*args):
    return subprocess.run([sys.executable, "greet.py", *args], capture_output=True, text=True).stdout


class TestGreet(unittest.TestCase):
    def test_name(self):
        self.assertEqual(run("--name", "Ada"), "Hello, Ada!\n")

    def test_default(self):
        self.assertEqual(run(), "Hello, world!\n")


if __name__ == "__main__":
    unittest.main()
