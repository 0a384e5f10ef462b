"""Record validation: canonical form from common spellings, and one clear error per kind of bad record."""

import pytest

from nanoagent.record import Record, RecordError

TOOLS = [{"name": "add", "description": "Add two numbers",
          "parameters": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}}}]


def test_normalizes_bare_tools_and_string_arguments():
    rec = Record.from_dict({"messages": [
        {"role": "user", "content": "1+2?"},
        {"role": "assistant", "tool_calls": [{"function": {"name": "add", "arguments": '{"a": 1, "b": 2}'}}]},
        {"role": "tool", "content": "3"},
        {"role": "assistant", "content": "3"}], "tools": TOOLS})
    assert rec.tools[0] == {"type": "function", "function": {**TOOLS[0]}}
    call = rec.messages[1]["tool_calls"][0]
    assert call == {"type": "function", "function": {"name": "add", "arguments": {"a": 1, "b": 2}}}
    assert rec.messages[1]["content"] == ""
    assert Record.from_dict(rec.to_dict()) == rec  # canonical form is a fixed point


@pytest.mark.parametrize("data, field, words", [
    ({"messages": []}, "messages", "non-empty"),
    ({"messages": [{"role": "bot", "content": "hi"}]}, "messages[0].role", "'bot' is not one of"),
    ({"messages": [{"role": "user", "content": 5}]}, "messages[0].content", "must be a string"),
    ({"messages": [{"role": "user", "content": "a"}, {"role": "system", "content": "b"}]},
     "messages[1].role", "only come first"),
    ({"messages": [{"role": "user", "content": "a"},
                   {"role": "assistant", "tool_calls": [{"name": "mul", "arguments": {}}]}], "tools": TOOLS},
     "messages[1].tool_calls[0].name", "unknown tool 'mul' (offered: add)"),
    ({"messages": [{"role": "user", "content": "a"}, {"role": "tool", "content": "3"}]},
     "messages[1].role", "must follow an assistant message with tool calls"),
    ({"messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": ""}]},
     "messages[1]", "needs content or tool calls"),
    ({"messages": [{"role": "user", "content": "a"},
                   {"role": "assistant", "tool_calls": [{"name": "add", "arguments": "{oops"}]}], "tools": TOOLS},
     "messages[1].tool_calls[0].arguments", "not JSON"),
    ({"messages": [{"role": "user", "content": "a"}], "tools": [TOOLS[0], TOOLS[0]]}, "tools", "unique"),
    ({"messages": [{"role": "user", "content": "a"}], "tools": [{"description": "x"}]},
     "tools[0].function.name", "non-empty string name"),
    ("not a dict", "record", "must be an object"),
])
def test_bad_records_name_field_and_problem(data, field, words):
    with pytest.raises(RecordError) as err:
        Record.from_dict(data)
    assert err.value.field == field
    assert words in str(err.value)
    assert str(err.value).startswith(field + ":")
