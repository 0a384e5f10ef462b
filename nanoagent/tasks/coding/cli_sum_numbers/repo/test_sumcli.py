import subprocess
import sys
import unittest


def run(*args):
    return subprocess.run([sys.executable, "sumcli.py", *args], capture_output=True, text=True).stdout.strip()


class TestSum(unittest.TestCase):
    def test_ints(self):
        self.assertEqual(run("1", "2", "3"), "6")

    def test_floats(self):
        self.assertEqual(run("1.5", "2"), "3.5")


if __name__ == "__main__":
    unittest.main()
