"""`nanoagent specialize` (specialize.py) refuses what it cannot use before any work, plans its stages from the
settings, and `nanoagent serve --tools` offers the tool set to requests that bring none.

Run: .venv/bin/python -m pytest tests/test_specialize_cli.py -q
"""

import json
from types import SimpleNamespace

import pytest

import specialize
from nanoagent import cli
from nanoagent.server import request_tools

TOOLS = [{"type": "function", "function": {"name": "get_status", "description": "Status of a printer.",
                                          "parameters": {"type": "object", "required": ["printer_id"],
                                                         "properties": {"printer_id": {"type": "string"}}}}}]


@pytest.fixture
def tools(tmp_path):
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(TOOLS))
    return path


def run(argv, capsys):
    code = specialize.main(argv)
    return code, capsys.readouterr().err


def test_bad_tool_sets_and_files_are_refused_before_any_work(tmp_path, tools, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"type": "function", "function": {"name": "get status", "parameters": {}}}]))
    code, err = run(["--tools", str(bad), "--out", str(tmp_path / "o")], capsys)
    assert code == 2 and "get status" in err and "get_status" in err
    code, err = run(["--tools", str(tools), "--out", str(tmp_path / "o"), "--examples", str(tmp_path / "no.jsonl")],
                    capsys)
    assert code == 2 and "--examples" in err and "no such file" in err
    assert not (tmp_path / "o").exists()


def test_out_must_be_new_or_this_run(tmp_path, tools, capsys, monkeypatch):
    monkeypatch.setattr(specialize, "tool_tokens", lambda *a: 100)
    a_file = tmp_path / "f"
    a_file.write_text("x")
    code, err = run(["--tools", str(tools), "--out", str(a_file)], capsys)
    assert code == 2 and "is a file" in err
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    code, err = run(["--tools", str(tools), "--out", str(foreign)], capsys)
    assert code == 2 and "no specialize run wrote" in err
    other = tmp_path / "other"
    other.mkdir()
    (other / specialize.SETTINGS_FILE).write_text(json.dumps({"tools": "elsewhere.json", "steps": 5}))
    code, err = run(["--tools", str(tools), "--out", str(other)], capsys)
    assert code == 2 and "another specialize run" in err and "steps" in err


def test_a_tool_list_too_long_says_its_size(tmp_path, tools, capsys, monkeypatch):
    monkeypatch.setattr(specialize, "tool_tokens", lambda *a: specialize.MAX_TOOL_TOKENS + 1)
    code, err = run(["--tools", str(tools), "--out", str(tmp_path / "o")], capsys)
    assert code == 2 and f"{specialize.MAX_TOOL_TOKENS + 1} tokens" in err and "split" in err


def test_the_defaults_are_the_measured_configuration():
    args = specialize.parser().parse_args(["--tools", "t.json", "--out", "o"])
    # results/specialist/printfarm-signatures-examples-s0: 22.8 min for the whole command on a 2-core CPU
    assert (args.prompt_format, args.steps, args.batch_size, args.prefix_grad) == ("signatures", 60, 8, False)


def test_the_plan_follows_the_settings(tmp_path, tools):
    args = SimpleNamespace(tools=str(tools), examples=None, system=None, base="embedded", rows=100, seed=1,
                           steps=10, batch_size=4, learning_rate=1e-4, test=None, prefix_grad=True,
                           prompt_format="signatures")
    stages = {s.name: s for s in specialize.plan(args, tmp_path, 1024)}
    assert list(stages) == list(specialize.STAGES)
    train = stages["train"].commands[0]
    assert "--share-prefix" in train and "--no-pack" in train and train[train.index("--max-length") + 1] == "1024"
    assert train[train.index("--prompt-format") + 1] == "signatures"
    evals = [c for c in stages["eval"].commands if "eval.specialist" in c]
    assert len(evals) == 2 and not any("--examples" in c for c in evals)  # no examples given: none held out
    args.examples, args.test = "ex.jsonl", "req.jsonl"
    evals = [c for c in specialize.plan(args, tmp_path, 1024)[-1].commands if "eval.specialist" in c]
    assert len(evals) == 5 and sum("--examples" in c for c in evals) == 2
    assert sum("--constrain" in c for c in evals) == 1
    assert "--examples" in specialize.plan(args, tmp_path, 1024)[0].commands[0]


def test_serve_offers_its_tools_when_a_request_has_none():
    assert request_tools({"messages": []}, TOOLS) == (TOOLS, False)
    own = [{"type": "function", "function": {"name": "other", "parameters": {"type": "object"}}}]
    assert request_tools({"tools": own}, TOOLS) == (own, False)
    assert request_tools({"tool_choice": "none"}, TOOLS) == ([], False)
    assert request_tools({"tool_choice": "required"}, TOOLS) == (TOOLS, True)


def test_serve_refuses_a_bad_tool_set(tmp_path, capsys):
    bad = tmp_path / "t.json"
    bad.write_text("{not json")
    assert cli.main(["serve", "embedded-gguf", "--tools", str(bad)]) == 2
    assert "--tools" in capsys.readouterr().err
