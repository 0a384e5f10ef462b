"""eval.decision: the first-token call probability, its summary and AUC, and the command on a tiny model.

Run: .venv/bin/python -m pytest tests/test_eval_decision.py -q
"""

import json

import pytest

from eval import decision
from nanoagent.testing import save_tiny_model


def test_auc_counts_pairs_and_ties():
    assert decision.auc([0.9, 0.8], [0.1, 0.2]) == 1.0
    assert decision.auc([0.1], [0.9]) == 0.0
    assert decision.auc([0.5, 0.9], [0.5]) == 0.75  # one tie (half), one win
    assert decision.auc([], [0.3]) is None


def test_summary_splits_by_what_is_right():
    rows = [{"needs_call": True, "p_call": 0.8, "argmax_call": True},
            {"needs_call": True, "p_call": 0.4, "argmax_call": False},
            {"needs_call": False, "p_call": 0.6, "argmax_call": True}]
    s = decision.summarize(rows)
    assert s["needs_call"] == {"n": 2, "mean_p_call": pytest.approx(0.6), "greedy_call_rate": 0.5}
    assert s["needs_no_call"]["greedy_call_rate"] == 1.0 and s["auc"] == 0.5


def test_command_on_a_tiny_model(tmp_path, capsys):
    fixture = tmp_path / "valid.jsonl"
    tool = {"type": "function", "function": {"name": "f", "description": "d", "parameters": {
        "type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}}}
    rows = [{"messages": [{"role": "user", "content": f"q{i}"}, {"role": "assistant", "content": "", "tool_calls": [
        {"type": "function", "function": {"name": "f", "arguments": {"x": i}}}]}], "tools": [tool]} for i in range(3)]
    rows += [{"messages": [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "hi"}],
              "tools": [tool]}]
    fixture.write_text("".join(json.dumps(r) + "\n" for r in rows))
    model = save_tiny_model(tmp_path / "tiny")
    assert decision.main(["--model", str(model), "--suites", f"valid:{fixture}", "--n", "0",
                          "--out-dir", str(tmp_path / "out"), "--label", "t"]) == 0
    res = json.loads((tmp_path / "out" / "t.json").read_text())
    s = res["suites"][f"valid:{fixture}"]
    assert s["needs_call"]["n"] == 3 and s["needs_no_call"]["n"] == 1 and len(s["items"]) == 4
    assert all(0.0 <= it["p_call"] <= 1.0 for it in s["items"])
    assert decision.main(["--model", str(model), "--n", "-1"]) == 2
    assert "--n must be" in capsys.readouterr().err
