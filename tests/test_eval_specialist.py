"""eval.specialist end to end with scripted replies: six requests of every kind scored into exactly predictable
figures (overall, by kind, by tool, near misses), the examples part scored apart, the result file's shape, and bad
input refused with exit code 2 and a message naming the file, line and field, before the model loads.

Run: .venv/bin/python -m pytest -q tests/test_eval_specialist.py
"""

import json

import nanoagent  # noqa: F401
import pytest

from eval import specialist
from nanoagent.agent.backend import ScriptedBackend
from nanoagent.stats import bootstrap_ci
from nanoagent.toolcall import format_tool_call

TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "description": "Current weather in a city.",
                                      "parameters": {"type": "object", "properties": {
                                          "city": {"type": "string"},
                                          "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
                                          "required": ["city"]}}},
    {"type": "function", "function": {"name": "get_time", "description": "Local time in a city.",
                                      "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                                                     "required": ["city"]}}},
]

REQUESTS = [
    {"id": "w1", "kind": "single", "question": "Weather in Paris?", "answer": [{"get_weather": {
        "city": ["Paris"], "unit": ["celsius", "fahrenheit", ""]}}]},
    {"id": "t1", "kind": "single", "question": "What time is it in Tokyo?", "near_miss": True,
     "answer": [{"get_time": {"city": ["Tokyo"]}}]},
    {"id": "p1", "kind": "parallel", "question": "Weather in Paris and in Rome?", "answer": [
        {"get_weather": {"city": ["Paris"], "unit": [""]}}, {"get_weather": {"city": ["Rome"], "unit": [""]}}]},
    {"id": "pm1", "kind": "parallel_multiple", "question": "Weather and time in Oslo?", "answer": [
        {"get_weather": {"city": ["Oslo"], "unit": ["celsius", ""]}}, {"get_time": {"city": ["Oslo"]}}]},
    {"id": "n1", "kind": "no_call", "question": "Tell me a joke about the weather.", "near_miss": True, "answer": []},
    {"id": "c1", "kind": "clarify", "question": "What's the weather like?", "missing": ["city"], "answer": []},
]

LONG_TEXT = "Which city do you mean? " * 40  # longer than the 600 characters eval.toolcall keeps

REPLIES = [
    format_tool_call("get_weather", {"city": "Paris"}),                                   # right
    format_tool_call("get_time", {"city": "London"}),                                     # valid, wrong value
    format_tool_call("get_weather", {"city": "Rome"}) + "\n" + format_tool_call("get_weather", {"city": "Paris"}),
    # ^ right, the calls in swapped order
    format_tool_call("get_weather", {"city": "Oslo", "unit": "kelvin"}) + "\n"
    + format_tool_call("get_time", {"city": "Oslo"}),                                     # breaks the enum: invalid
    format_tool_call("get_weather", {"city": "Paris"}),                                   # a call where none is due
    LONG_TEXT,                                                                            # right: asks, no call
]

EXAMPLES = [
    {"messages": [{"role": "user", "content": "Weather in Berlin in fahrenheit?"},
                  {"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {
                      "name": "get_weather", "arguments": json.dumps({"city": "Berlin", "unit": "fahrenheit"})}}]}]},
    {"messages": [{"role": "user", "content": "Time in Lima?"},
                  {"role": "assistant", "tool_calls": [{"function": {"name": "get_time",
                                                                     "arguments": {"city": "Lima"}}}]}]},
    {"messages": [{"role": "user", "content": "Thanks!"}, {"role": "assistant", "content": "You're welcome."}]},
]

EXAMPLE_REPLIES = [format_tool_call("get_weather", {"city": "Berlin"}),   # unit left out: missing_argument
                   format_tool_call("get_time", {"city": "Lima"}),       # right
                   "Glad to help."]                                      # right: no call


def _jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture
def files(tmp_path):
    tools = tmp_path / "tools.json"  # an OpenAI tools list, read by nanoagent.toolsets
    tools.write_text(json.dumps(TOOLS))
    return {"tools": tools, "requests": _jsonl(tmp_path / "requests.jsonl", REQUESTS),
            "examples": _jsonl(tmp_path / "examples.jsonl", EXAMPLES)}


class Recording(ScriptedBackend):
    """A scripted model that also keeps the tools each prompt offered."""

    def __init__(self, replies):
        super().__init__(replies)
        self.offered = []

    def complete(self, messages, tools, **kw):
        self.offered.append([t["function"]["name"] for t in tools])
        return super().complete(messages, tools, **kw)


def test_requests_are_scored_into_predictable_figures(files):
    backend = Recording(list(REPLIES))
    result = specialist.score_file(backend, files["tools"], files["requests"], system="You are the weather desk.",
                                   progress=False)
    part = result["parts"]["requests"]
    assert set(result["parts"]) == {"requests"}
    assert [r["correct"] for r in part["items"]] == [True, False, True, False, False, True]
    m = part["metrics"]
    assert m["n"] == 6 and m["accuracy"] == 0.5
    assert m["accuracy_ci95"] == list(bootstrap_ci([1, 0, 1, 0, 0, 1]))
    assert m["valid_rate"] == 0.75           # 3 of the 4 items that expect a call
    assert m["call_rate"] == 5 / 6           # all but the clarify reply
    assert m["no_call_accuracy"] == 0.5      # no_call wrong, clarify right
    assert {k: (v["n"], v["accuracy"]) for k, v in part["by_kind"].items()} == {
        "single": (2, 0.5), "parallel": (1, 1.0), "parallel_multiple": (1, 0.0), "no_call": (1, 0.0),
        "clarify": (1, 1.0)}
    assert part["by_kind"]["single"]["ci95"] == list(bootstrap_ci([1, 0]))
    assert part["by_tool"] == {"get_weather": {"n": 3, "accuracy": 2 / 3}, "get_time": {"n": 2, "accuracy": 0.0}}
    assert part["near_miss"] == {"n": 2, "accuracy": 0.0}
    failures = [r["failure"] for r in part["items"]]
    assert failures == [None, "wrong_value", None, "wrong_value+bad_arguments", "called_irrelevant", None]
    pm, clarify = part["items"][3], part["items"][5]
    assert not pm["valid"] and pm["has_call"] and "kelvin" in pm["schema_error"]
    assert [c["name"] for c in pm["calls"]] == ["get_weather", "get_time"]
    assert clarify["reply"] == LONG_TEXT and clarify["missing"] == ["city"] and not clarify["has_call"]
    assert part["items"][1]["answer"] == REQUESTS[1]["answer"] and part["items"][1]["near_miss"] is True
    assert "London" in part["items"][1]["message"]
    # every prompt: the system message, the user's question, and the whole tool set
    assert backend.calls[0] == [{"role": "system", "content": "You are the weather desk."},
                                {"role": "user", "content": "Weather in Paris?"}]
    assert backend.offered == [["get_weather", "get_time"]] * 6


def test_examples_are_a_separate_part(files):
    backend = ScriptedBackend(list(REPLIES) + list(EXAMPLE_REPLIES))
    result = specialist.score_file(backend, TOOLS, files["requests"], files["examples"], progress=False)
    ex = result["parts"]["examples"]
    assert result["parts"]["requests"]["metrics"]["accuracy"] == 0.5  # unchanged by the examples
    assert [(r["kind"], r["correct"]) for r in ex["items"]] == [("single", False), ("single", True),
                                                                ("no_call", True)]
    assert ex["items"][0]["answer"] == [{"get_weather": {"city": ["Berlin"], "unit": ["fahrenheit"]}}]  # from a string
    assert ex["items"][0]["failure"] == "missing_argument"
    assert ex["items"][0]["question"] == "Weather in Berlin in fahrenheit?"
    assert ex["metrics"]["accuracy"] == 2 / 3 and ex["metrics"]["valid_rate"] == 1.0
    assert ex["metrics"]["no_call_accuracy"] == 1.0
    assert ex["by_tool"] == {"get_weather": {"n": 1, "accuracy": 0.0}, "get_time": {"n": 1, "accuracy": 1.0}}
    assert ex["near_miss"] == {"n": 0, "accuracy": None}


def test_main_writes_the_result_file(files, tmp_path, monkeypatch, capsys):
    from nanoagent.agent import backends

    asked = []
    monkeypatch.setattr(backends, "load_backend", lambda spec, **kw: asked.append(kw) or ScriptedBackend(
        list(REPLIES) + list(EXAMPLE_REPLIES)))
    out = tmp_path / "res" / "weather.json"
    argv = ["--model", "embedded-gguf", "--tools", str(files["tools"]), "--requests", str(files["requests"]),
            "--examples", str(files["examples"]), "--out", str(out), "--constrain", "--max-tokens", "64"]
    assert specialist.main(argv) == 0
    assert asked == [{"constrain": True}]  # the grammar, no call threshold, no repeat stop
    data = json.loads(out.read_text())
    assert {"label", "model", "settings", "tools", "requests", "parts"} <= set(data)
    assert data["label"] == "embedded-gguf-constrained" and data["model"]["spec"] == "embedded-gguf"
    assert data["settings"]["max_tokens"] == 64 and data["settings"]["constrain"] is True
    assert data["settings"]["temperature"] == 0.0 and data["settings"]["call_threshold"] is None
    assert data["tools"] == str(files["tools"]) and data["requests"] == str(files["requests"])
    assert set(data["parts"]) == {"requests", "examples"}
    for part in data["parts"].values():
        assert {"metrics", "by_kind", "by_tool", "near_miss", "items"} <= set(part)
        assert {"n", "accuracy", "accuracy_ci95", "valid_rate", "call_rate", "no_call_accuracy",
                "seconds"} <= set(part["metrics"])
    assert data["parts"]["requests"]["metrics"]["accuracy"] == 0.5
    assert capsys.readouterr().out.strip() == str(out)

    asked.clear()
    assert specialist.main(argv[:-5] + ["--out", str(tmp_path / "plain.json")]) == 0
    assert asked == [{}]  # unconstrained by default


def _bad(tmp_path, rows, name="requests.jsonl"):
    path = tmp_path / name
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n")
    return path


@pytest.mark.parametrize("rows, where, field", [
    ([REQUESTS[0], "{not json"], 2, "not JSON"),
    ([REQUESTS[0], {"id": "x", "kind": "single", "answer": REQUESTS[0]["answer"]}], 2, "question"),
    ([REQUESTS[0], REQUESTS[1] | {"answer": [{"get_stock": {"ticker": ["ACME"]}}]}], 2, "get_stock"),
    ([REQUESTS[1] | {"answer": [{"get_time": {"zone": ["UTC"]}}]}], 1, "answer[0].get_time.zone"),
    ([REQUESTS[1] | {"answer": [{"get_time": {"city": [3]}}]}], 1, "answer[0].get_time.city"),
    ([REQUESTS[1] | {"answer": [{"get_time": {}}]}], 1, "lacks required argument 'city'"),
    ([REQUESTS[1] | {"kind": "lookup"}], 1, "kind"),
    ([REQUESTS[5] | {"answer": REQUESTS[0]["answer"]}], 1, "not clarify"),
    ([REQUESTS[0], REQUESTS[0]], 2, "id"),
])
def test_bad_requests_exit_2_naming_line_and_field(rows, where, field, files, tmp_path, monkeypatch, capsys):
    from nanoagent.agent import backends

    monkeypatch.setattr(backends, "load_backend", lambda *a, **k: pytest.fail("the model loaded on bad input"))
    path = _bad(tmp_path, rows)
    code = specialist.main(["--model", "embedded", "--tools", str(files["tools"]), "--requests", str(path),
                            "--out", str(tmp_path / "r.json")])
    err = capsys.readouterr().err
    assert code == 2 and f"{path}:{where}:" in err and field in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "r.json").exists()


def test_bad_files_exit_2(files, tmp_path, capsys):
    base = ["--model", "embedded", "--out", str(tmp_path / "r.json")]
    missing = tmp_path / "none.jsonl"
    assert specialist.main(base + ["--tools", str(files["tools"]), "--requests", str(missing)]) == 2
    assert str(missing) in capsys.readouterr().err
    assert specialist.main(base + ["--tools", str(tmp_path / "none.json"), "--requests", str(files["requests"])]) == 2
    assert "none.json" in capsys.readouterr().err
    examples = _bad(tmp_path, [EXAMPLES[2], {"messages": [{"role": "user", "content": "Hi"}, {
        "role": "assistant", "tool_calls": [{"function": {"name": "get_stock", "arguments": "{}"}}]}]}],
        "examples.jsonl")
    assert specialist.main(base + ["--tools", str(files["tools"]), "--requests", str(files["requests"]),
                                   "--examples", str(examples)]) == 2
    err = capsys.readouterr().err
    assert f"{examples}:2:" in err and "messages[1].tool_calls[0].name" in err and "get_stock" in err
    assert specialist.main(["--model", "embedded", "--requests", str(files["requests"]),
                            "--out", str(tmp_path / "r.json")]) == 2
    assert "--tools is required" in capsys.readouterr().err
