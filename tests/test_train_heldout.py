"""The trainer's held-out validity prompts: which records are picked (scoring itself is eval.toolcall's, tested there).

Run: .venv/bin/python -m pytest tests/test_train_heldout.py -q
"""

import nanoagent  # noqa: F401  (OpenBLAS before mlx)

from nanoagent.suites import records_to_items
from nanoagent.record import Record
from train.dft import calling_records

TOOLS = [{"type": "function", "function": {"name": "get_weather", "description": "",
                                           "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                                                          "required": ["city"]}}}]


def test_only_records_whose_first_reply_calls_a_tool_are_held_out():
    calls = Record.from_dict({"messages": [
        {"role": "user", "content": "weather in Oslo?"},
        {"role": "assistant", "tool_calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}}]},
        {"role": "tool", "content": "sunny"}, {"role": "assistant", "content": "Sunny."}], "tools": TOOLS})
    chats_first = Record.from_dict({"messages": [
        {"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"},
        {"role": "user", "content": "weather in Oslo?"},
        {"role": "assistant", "tool_calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}}]}],
        "tools": TOOLS})
    no_tools = Record.from_dict({"messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": "y"}]})
    picked = calling_records([no_tools, chats_first, calls, calls], n=2)
    assert picked == [calls, calls]
    items, dropped = records_to_items(picked)
    assert [it.expect for it in items] == ["calls", "calls"] and not dropped
    assert [m["content"] for m in items[0].messages] == ["weather in Oslo?"]
    assert items[0].answers and calling_records([calls], n=0) == []
