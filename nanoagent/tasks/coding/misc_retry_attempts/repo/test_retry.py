import unittest

from retry import retry


class TestRetry(unittest.TestCase):
    def test_succeeds_on_third(self):
        calls = []

        def flaky():
            calls.append(1)
            if len(calls) < 3:
                raise RuntimeError("boom")
            return "ok"

        self.assertEqual(retry(flaky, attempts=3), "ok")
        self.assertEqual(len(calls), 3)

    def test_gives_up(self):
        with self.assertRaises(RuntimeError):
            retry(lambda: (_ for _ in ()).throw(RuntimeError("x")), attempts=2)


if __name__ == "__main__":
    unittest.main()
