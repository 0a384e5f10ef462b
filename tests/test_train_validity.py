"""Held-out tool-call validity: which prompts are held out and how a reply is scored.

Run: .venv/bin/python -m pytest tests/test_train_validity.py -q
"""

import nanoagent  # noqa: F401  (OpenBLAS before mlx)

from nanoagent.record import Record
from train.validity import heldout_prompts, score_reply

TOOLS = [{"type": "function", "function": {"name": "get_weather", "description": "",
                                           "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                                                          "required": ["city"]}}},
         {"type": "function", "function": {"name": "add_todo", "description": "",
                                           "parameters": {"type": "object", "properties": {}}}}]


def call(name, args):
    return f'<tool_call>\n{{"name": "{name}", "arguments": {args}}}\n</tool_call>'


def test_score_reply_kinds():
    assert score_reply(call("get_weather", '{"city": "Oslo"}'), TOOLS, "get_weather") == "valid"
    assert score_reply("Sure! " + call("get_weather", '{"city": "Oslo"}'), TOOLS, "get_weather") == "valid"
    assert score_reply(call("add_todo", "{}"), TOOLS, "get_weather") == "wrong_tool"
    assert score_reply("It is sunny in Oslo.", TOOLS, "get_weather") == "no_call"
    assert score_reply(call("get_weather", '{"town": 3}'), TOOLS, "get_weather") == "bad_arguments"
    assert score_reply(call("get_time", "{}"), TOOLS, "get_weather") == "unknown_tool"
    assert score_reply('<tool_call>\n{"name": "get_weather", "arguments": {"city"', TOOLS,
                       "get_weather") == "unclosed_tag"
    assert score_reply('<tool_call>\n{"name": get_weather}\n</tool_call>', TOOLS, "get_weather") == "not_json"


def test_heldout_prompt_is_the_conversation_before_the_first_call():
    rec = Record.from_dict({"messages": [
        {"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"},
        {"role": "user", "content": "weather in Oslo?"},
        {"role": "assistant", "tool_calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}}]},
        {"role": "tool", "content": "sunny"}, {"role": "assistant", "content": "Sunny."}], "tools": TOOLS})
    plain = Record.from_dict({"messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": "y"}]})
    prompts = heldout_prompts([plain, rec, rec], n=1)
    assert len(prompts) == 1
    assert [m["content"] for m in prompts[0]["messages"]] == ["hi", "hello", "weather in Oslo?"]
    assert prompts[0]["expected"] == "get_weather" and prompts[0]["tools"] == rec.tools
