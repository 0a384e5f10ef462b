"""The tool-call parser: content/calls split, typed errors a model can act on, and the lenient mode the data build
reads datasets with (issue 18: it replaced a second parser in data_recipes/convert.py)."""

import pytest

from nanoagent.toolcall import (BadArgumentsError, NotJSONError, ToolCallError, UnclosedTagError, UnknownToolError,
                                check_arguments, format_tool_call, parse)

TOOLS = [{"type": "function", "function": {"name": "get_weather", "description": "", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}, "unit": {"enum": ["c", "f"]},
                                     "days": {"type": "integer"}}, "required": ["city"]}}}]


def test_plain_text_has_no_calls():
    reply = parse("  Paris is sunny.  ", TOOLS)
    assert reply.content == "Paris is sunny." and reply.tool_calls == []


def test_text_then_parallel_calls_round_trip():
    text = "Let me check.\n" + format_tool_call("get_weather", {"city": "Paris"}) + "\n" + \
        format_tool_call("get_weather", {"city": "東京", "unit": "c"})
    reply = parse(text, TOOLS)
    assert reply.content == "Let me check."
    assert [c["function"]["arguments"] for c in reply.tool_calls] == [{"city": "Paris"}, {"city": "東京", "unit": "c"}]
    assert reply.tool_calls[0]["type"] == "function"


def test_format_is_exact_bytes():
    assert format_tool_call("f", {"x": "é"}) == '<tool_call>\n{"name": "f", "arguments": {"x": "é"}}\n</tool_call>'


@pytest.mark.parametrize("text, error, words", [
    ('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}', UnclosedTagError, "never closed"),
    ('{"name": "x"}</tool_call>', UnclosedTagError, "without a matching"),
    ('<tool_call>\n{"name": "get_weather", "arguments": "city": "Paris"}}\n</tool_call>', NotJSONError, "not valid JSON"),
    ('<tool_call>\n["get_weather"]\n</tool_call>', NotJSONError, 'string "name"'),
    ('<tool_call>\n{"name": "get_temperature", "arguments": {}}\n</tool_call>', UnknownToolError,
     "Available tools: get_weather"),
    ('<tool_call>\n{"name": "get_weather", "arguments": {}}\n</tool_call>', BadArgumentsError, "'city' is a required"),
    ('<tool_call>\n{"name": "get_weather", "arguments": {"city": "P", "days": "two"}}\n</tool_call>',
     BadArgumentsError, "days"),
    ('<tool_call>\n{"name": "get_weather", "arguments": {"city": "P", "unit": "k"}}\n</tool_call>',
     BadArgumentsError, "unit"),
    ('<tool_call>\n{"name": "get_weather", "arguments": [1]}\n</tool_call>', BadArgumentsError, "must be a JSON object"),
])
def test_typed_errors(text, error, words):
    with pytest.raises(error) as err:
        parse(text, TOOLS)
    assert words in str(err.value)
    assert err.value.kind != "invalid"


def test_without_tools_only_structure_is_checked():
    reply = parse('<tool_call>\n{"name": "anything", "arguments": {"a": 1}}\n</tool_call>')
    assert reply.tool_calls[0]["function"]["name"] == "anything"


def test_nonstandard_schema_types_are_understood():
    schema = {"type": "dict", "properties": {"x": {"type": "float"}, "xs": {"type": "tuple"}, "y": {"type": "any"}}}
    assert check_arguments({"x": 1.5, "xs": [1], "y": None}, schema) == []
    assert check_arguments({"x": "no"}, schema)


def test_arguments_fit_gives_check_arguments_verdict():
    from nanoagent.toolcall import arguments_fit
    schema = TOOLS[0]["function"]["parameters"]
    for args in ({"city": "P"}, {}, {"city": "P", "days": "two"}, {"city": 3}, {"city": "P", "unit": "c"}):
        assert arguments_fit(args, schema) == (not check_arguments(args, schema))
    assert not arguments_fit({}, {"type": "no-such-type"})  # a broken schema never fits


@pytest.mark.parametrize("text,reason", [
    ("<tool_call>{'name': 'f'", "unclosed_tool_call"),
    ("f</tool_call>", "unclosed_tool_call"),
    ("<tool_call> </tool_call>", "empty_tool_call"),
    ("<tool_call>{'name': 'f'} {oops</tool_call>", "unparseable_tool_call"),
    ("<tool_call>[1]</tool_call>", "bad_tool_call"),
    ('<tool_call>{"name": " "}</tool_call>', "bad_tool_call"),
    ('<tool_call>{"name": "f", "arguments": [1]}</tool_call>', "bad_tool_call"),
    ('<tool_call>{"name": "f", "arguments": "{oops"}</tool_call>', "unparseable_arguments"),
])
def test_lenient_errors_carry_the_drop_reason(text, reason):
    with pytest.raises(ToolCallError) as e:
        parse(text, lenient=True)
    assert e.value.reason == reason


def test_lenient_reads_what_datasets_write():
    text = ("Sure. <tool_call>{'name': ' f ', 'arguments': None}\n{\"function\": {\"name\": \"g\", "
            "\"parameters\": \"{'a': True}\"}}</tool_call><tool_call>[{\"name\": \"h\", \"arguments\": \"\"}]</tool_call>")
    reply = parse(text, lenient=True)
    assert reply.content == "Sure."
    assert [c["function"] for c in reply.tool_calls] == [
        {"name": "f", "arguments": {}}, {"name": "g", "arguments": {"a": True}}, {"name": "h", "arguments": {}}]
    with pytest.raises(NotJSONError):
        parse(text)  # strict mode: one JSON object per tag
    with pytest.raises(UnknownToolError):
        parse(text, TOOLS, lenient=True)  # the tool checks apply in both modes
