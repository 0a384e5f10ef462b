"""The lenient parsing and schema conversion the adapters share.

Run: .venv/bin/python -m pytest tests/test_data_convert.py -q
"""

import pytest

from data_recipes.convert import Drop, dropping, loads_objects, params_to_schema, tools_from_text, type_to_schema
from nanoagent.toolcall import parse


@pytest.mark.parametrize("text,schema,optional", [
    ("str", {"type": "string"}, False),
    ("str, optional", {"type": "string"}, True),
    ("int, optional", {"type": "integer"}, True),
    ("float", {"type": "number"}, False),
    ("List[int]", {"type": "array", "items": {"type": "integer"}}, False),
    ("Dict[str, Any]", {"type": "object", "additionalProperties": {}}, False),
    ("Optional[bool]", {"type": "boolean"}, True),
    ("Union[int, float]", {"anyOf": [{"type": "integer"}, {"type": "number"}]}, False),
    ("Literal['a', 'b']", {"enum": ["a", "b"]}, False),
    ("List[Dict[str, int]], optional", {"type": "array", "items": {"type": "object",
                                                                    "additionalProperties": {"type": "integer"}}},
     True),
])
def test_type_to_schema(text, schema, optional):
    assert type_to_schema(text) == (schema, optional)


def test_params_keep_json_schema_and_fix_python_type_names():
    p = params_to_schema({"type": "dict", "properties": {"x": {"type": "float"}, "y": {"type": "str, optional"}}})
    assert p == {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "string"}}}


@pytest.mark.parametrize("text,expected", [
    ('[{"a": 1}]', [{"a": 1}]),
    ("{'a': True, 'b': None}", [{"a": True, "b": None}]),
    ('{"a": 1}\n\n{"b": "}{"}', [{"a": 1}, {"b": "}{"}]),
    ("{'a': 1} {'b': [1, 2]}", [{"a": 1}, {"b": [1, 2]}]),
])
def test_loads_objects(text, expected):
    assert loads_objects(text) == expected


@pytest.mark.parametrize("text,reason", [("", "empty_x"), ('{"a": 1', "unparseable_x"), ("nothing here", "unparseable_x")])
def test_loads_objects_errors_are_named(text, reason):
    with pytest.raises(Drop) as e:
        loads_objects(text, "x")
    assert e.value.reason == reason


def test_lenient_parse_reads_text_list_and_python_literal_and_drops_by_reason():
    reply = dropping(parse)('Sure.\n<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>'
                            "<tool_call>[{'name': 'g', 'arguments': '{\"b\": 2}'}]</tool_call>", lenient=True)
    assert reply.content == "Sure."
    assert [c["function"] for c in reply.tool_calls] == [{"name": "f", "arguments": {"a": 1}},
                                                         {"name": "g", "arguments": {"b": 2}}]
    with pytest.raises(Drop) as e:
        dropping(parse)("<tool_call>{}", lenient=True)
    assert e.value.reason == "unclosed_tool_call"


def test_tools_block_mentioned_in_prose_is_skipped():
    specs, rest = tools_from_text("Signatures are in <tools> </tools> tags.\n<tools>\n[{'name': 'f'}]\n</tools>\nGo.")
    assert [s["function"]["name"] for s in specs] == ["f"]
    assert "<tools>" in rest and "Go." in rest
