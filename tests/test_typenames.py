"""nanoagent.typenames: one table of type names for every reader, and the one on-purpose difference in meaning.

Pins issue 18 (four tables of type names, in toolcall, checker, nanoagent.bfcl_data and data_recipes.convert, had drifted).
Run: .venv/bin/python -m pytest tests/test_typenames.py -q
"""

from data_recipes.convert import type_to_schema
from nanoagent.bfcl_data import to_json_schema
from nanoagent.checker import type_matches
from nanoagent.constrain import strict_schema
from nanoagent.toolcall import arguments_fit
from nanoagent.typenames import BFCL_NAMES, CHECKER_NAMES, DATA_NAMES, JSON_TYPES, SCHEMA_NAMES


def test_a_name_means_one_type_in_every_reader():
    readers = [SCHEMA_NAMES, CHECKER_NAMES, BFCL_NAMES, DATA_NAMES]
    for name in set().union(*readers):
        assert len({r[name] for r in readers if name in r}) == 1, name
    assert all(r[t] == t for r in readers for t in JSON_TYPES)


def test_each_reader_reads_its_names_from_the_table():
    assert strict_schema({"type": "tuple"}) == {"type": "array"}
    assert "long" not in SCHEMA_NAMES and not arguments_fit({"a": 1}, {"properties": {"a": {"type": "long"}}})
    assert to_json_schema({"type": "HashMap"}) == {"type": "object"}
    assert type_to_schema("Sequence[double]") == ({"type": "array", "items": {"type": "number"}}, False)
    assert type_matches("x", {"type": "long"})  # BFCL's Java names are not checked by the answer checker


def test_integer_means_different_things_to_json_schema_and_to_bfcl():
    schema = {"type": "object", "properties": {"n": {"type": "integer"}, "x": {"type": "float"}}}
    assert arguments_fit({"n": 1.0, "x": 1}, schema)  # JSON Schema: 1.0 is an integer, an int is a number
    assert type_matches({"x": 1}, schema) and not type_matches({"n": 1.0}, schema)  # BFCL: 1.0 is not an int
    assert not type_matches({"x": True}, schema) and not arguments_fit({"x": True}, schema)
