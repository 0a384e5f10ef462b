import json
import os
import tempfile
import unittest

from config import load_config


class TestConfig(unittest.TestCase):
    def test_missing(self):
        self.assertEqual(load_config("/nonexistent/x.json"), {"theme": "light", "font_size": 12})

    def test_merge(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "c.json")
            with open(p, "w") as f:
                json.dump({"theme": "dark"}, f)
            self.assertEqual(load_config(p), {"theme": "dark", "font_size": 12})


if __name__ == "__main__":
    unittest.main()
