import unittest

from tool import build_parser


class TestParser(unittest.TestCase):
    def test_verbose(self):
        self.assertTrue(build_parser().parse_args(["-v"]).verbose)
        self.assertTrue(build_parser().parse_args(["--verbose"]).verbose)
        self.assertFalse(build_parser().parse_args([]).verbose)

    def test_output(self):
        self.assertEqual(build_parser().parse_args(["--output", "x"]).output, "x")


if __name__ == "__main__":
    unittest.main()
