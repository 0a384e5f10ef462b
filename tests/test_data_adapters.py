"""Every source adapter on its hand-written fixture: what converts, what is dropped and why, and that the
converted records render and parse back through the one ChatML convention.

Run: .venv/bin/python -m pytest tests/test_data_adapters.py -q
"""

import json

import nanoagent  # noqa: F401
import pytest

from data_recipes.adapters import ADAPTERS
from data_recipes.convert import Drop
from data_recipes.filters import apply_filters
from data_recipes.load import load_file
from data_recipes.recipe import FilterConfig
from data_recipes.sources import SOURCES
from nanoagent.render import assistant_text, render
from nanoagent.testing import tiny_tokenizer
from nanoagent.toolcall import parse

# Per fixture row: "ok" or the reason it must be dropped under (rows are documented in the fixture files).
EXPECTED = {
    "xlam": ["ok", "ok", "ok", "calls_unknown_tool", "ok", "unparseable_answers", "missing_query", "ok", "ok",
             "ok", "ok"],
    "smoltalk_apigen": ["ok", "ok", "ok", "calls_unknown_tool", "unclosed_tool_call", "ok"],
    "smoltalk_magpie": ["ok", "ok", "empty_assistant_turn", "ok", "ok"],
    "smoltalk2_agents": ["ok", "ok", "no_xml_tools", "ok", "ok", "calls_unknown_tool"],
    "hermes_v1": ["ok", "ok", "ok", "ok", "unclosed_tool_call", "calls_unknown_tool", "bad_tool_call"],
    "hermes_thinking": ["ok", "ok", "unknown_role", "ok"],
    "chatml_fc": ["ok", "ok", "unparseable_tool_call", "ok", "ok"],
    "orca_agentinstruct": ["ok", "ok", "ok", "unparseable_messages"],
    "gsm8k_decomposed": ["ok", "ok", "ok", "missing_answer", "ok"],
}


def raw_rows(name):
    return [json.loads(line) for line in SOURCES[name].fixture.read_text().splitlines() if line.strip()]


def outcome(name, row):
    try:
        return "ok", ADAPTERS[name](row)
    except Drop as d:
        return d.reason, None


def test_every_adapter_has_a_fixture_and_expectations():
    assert set(EXPECTED) == set(ADAPTERS)
    for name in ADAPTERS:
        assert SOURCES[name].fixture.is_file(), name


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture_outcomes_as_json_and_as_arrow_rows(name):
    got_raw = [outcome(name, r)[0] for r in raw_rows(name)]
    got_arrow = [outcome(name, r)[0] for r in load_file(SOURCES[name].fixture)]  # the datasets path: None-filled
    assert got_raw == EXPECTED[name]
    assert got_arrow == EXPECTED[name]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_converted_records_render_and_parse_back(name):
    tok = tiny_tokenizer()
    for row in raw_rows(name):
        reason, rec = outcome(name, row)
        if rec is None:
            continue
        assert rec["meta"]["source"] == name
        try:
            rec, _ = apply_filters(rec, FilterConfig(), tok)
        except Drop:
            continue  # what the filters drop is tested in test_data_filters.py
        ids, mask = render(rec, tok)
        assert sum(mask) > 0
        for m in rec["messages"]:
            if m["role"] == "assistant":
                reply = parse(assistant_text(m), rec["tools"])
                assert reply.tool_calls == m.get("tool_calls", [])


def test_xlam_types_become_json_schema():
    rec = ADAPTERS["xlam"](raw_rows("xlam")[0])
    params = rec["tools"][0]["function"]["parameters"]
    assert params["type"] == "object"
    assert params["properties"]["units"] == {"type": "string", "description": "'metric' or 'imperial'.",
                                             "default": "metric"}
    assert params["required"] == ["city"]  # "str, optional" and defaults are not required
    rec = ADAPTERS["xlam"](raw_rows("xlam")[2])  # Python-literal answers and tools
    spec = rec["tools"][0]["function"]["parameters"]["properties"]
    assert spec["keywords"] == {"type": "array", "items": {"type": "string"}, "description": "Keywords to match."}
    assert spec["filters"]["additionalProperties"] == {"type": "string"}
    assert rec["messages"][1]["tool_calls"][0]["function"]["arguments"]["limit"] == 5


def test_apigen_list_of_calls_in_one_tag_and_tools_from_system():
    rec = ADAPTERS["smoltalk_apigen"](raw_rows("smoltalk_apigen")[1])
    assert [m["role"] for m in rec["messages"]] == ["user", "assistant"]  # format boilerplate dropped
    calls = rec["messages"][1]["tool_calls"]
    assert [c["function"]["arguments"]["n"] for c in calls] == [12, 15]
    assert {t["function"]["name"] for t in rec["tools"]} == {"circle_area", "fibonacci"}


def test_hermes_python_literals_and_split_tool_responses():
    rows = raw_rows("hermes_v1")
    rec = ADAPTERS["hermes_v1"](rows[0])
    assert rec["messages"][-1]["tool_calls"][0]["function"] == {"name": "get_stock_price",
                                                               "arguments": {"symbol": "AAPL"}}
    rec = ADAPTERS["hermes_v1"](rows[1])
    assert [m["role"] for m in rec["messages"]] == ["user", "assistant", "tool", "tool", "assistant"]
    rec = ADAPTERS["hermes_v1"](rows[2])  # trailing user turn is kept by the adapter, trimmed by the filters
    assert rec["messages"][-1]["role"] == "user"
    assert len(rec["tools"]) == 2  # tools written as objects back to back


def test_chatml_fc_concatenated_function_descriptions():
    rec = ADAPTERS["chatml_fc"](raw_rows("chatml_fc")[0])
    assert [t["function"]["name"] for t in rec["tools"]] == ["calculate_tip", "calculate_bmi"]
    assert [m["role"] for m in rec["messages"]] == ["user", "assistant", "tool", "assistant"]
    rec = ADAPTERS["chatml_fc"](raw_rows("chatml_fc")[3])  # arguments as a JSON string
    assert rec["messages"][1]["tool_calls"][0]["function"]["arguments"] == {"bill_amount": 42, "tip_percentage": 20}
    rec = ADAPTERS["chatml_fc"](raw_rows("chatml_fc")[4])  # real shape: a system turn, single-quoted arguments
    assert [m["role"] for m in rec["messages"]] == ["user", "assistant", "tool", "assistant"]  # boilerplate dropped
    assert rec["messages"][1]["tool_calls"][0]["function"]["arguments"]["note"] == "for Sam's lunchbox"


def test_smoltalk2_xml_tools_written_one_spec_per_line():
    rec = ADAPTERS["smoltalk2_agents"](raw_rows("smoltalk2_agents")[4])  # both specs in one xml_tools string
    assert [t["function"]["name"] for t in rec["tools"]] == ["web_search", "final_answer"]
    assert [m["role"] for m in rec["messages"]] == ["user", "assistant", "tool", "assistant"]


def test_gsm8k_sub_questions_become_numbered_steps():
    rec = ADAPTERS["gsm8k_decomposed"](raw_rows("gsm8k_decomposed")[4])  # the column public loaders read
    assert rec["messages"][1]["content"].startswith("Steps:\n1. How many rolls does the baker make?\n2. ")
    assert rec["messages"][1]["content"].endswith("#### 13")


def test_thinking_sources_keep_think_for_the_filters():
    rec = ADAPTERS["hermes_thinking"](raw_rows("hermes_thinking")[0])
    assert rec["messages"][1]["content"].startswith("<think>")
    rec = ADAPTERS["smoltalk2_agents"](raw_rows("smoltalk2_agents")[1])  # tool result sent as a user turn
    assert [m["role"] for m in rec["messages"]] == ["user", "assistant", "tool", "assistant"]


def test_garbage_rows_are_dropped_never_raised():
    for name, fn in ADAPTERS.items():
        for row in ({}, {"messages": 3}, {"conversations": [None]}, {"query": "x", "tools": "[", "answers": "]"},
                    {"messages": "not json", "conversations": "{'a': 1"}):
            with pytest.raises(Drop):
                fn(row)
