import unittest

from ini import read_ini

TEXT = """
# settings
[server]
host = example.org
port = 8080

; other
[client]
retries = 3
"""


class TestIni(unittest.TestCase):
    def test_sections(self):
        self.assertEqual(read_ini(TEXT), {"server": {"host": "example.org", "port": "8080"},
                                          "client": {"retries": "3"}})


if __name__ == "__main__":
    unittest.main()
