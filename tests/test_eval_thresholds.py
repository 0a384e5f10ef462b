"""eval/thresholds.py: what a call threshold would have made of a finished run, on real BFCL prompts.

Run: .venv/bin/python -m pytest tests/test_eval_thresholds.py -q
"""

import json

import pytest

from eval.thresholds import main, suite_at


def reply(item_id, p_call, calls, correct):
    return {"id": item_id, "expect": "calls", "has_call": bool(calls), "valid": bool(calls), "correct": correct,
            "kind": "ok" if correct else "wrong_value", "calls": calls, "p_call": p_call, "completion_tokens": 9}


def test_a_reply_below_the_threshold_is_declined_and_the_rest_keep_their_outcome():
    """irrelevance wants no call: a call at P(call) 0.25 is wrong as run and right once declined at 0.3; a call at
    0.9 stays wrong. On simple_python a right call at 0.45 is lost at 0.5 (declined: no call where one is due)."""
    calls = [{"name": "f", "arguments": {}}]
    irrelevant = [{**reply("irrelevance_0", 0.25, calls, False), "expect": "no_call"},
                  {**reply("irrelevance_1", 0.9, calls, False), "expect": "no_call"},
                  {**reply("irrelevance_2", 0.01, [], True), "expect": "no_call"}]
    got = suite_at("irrelevance", irrelevant, [0.3, 0.95])
    assert (got["n"], got["none"], got["at"]) == (3, 33.3, {0.3: 66.7, 0.95: 100.0})
    right = [reply("simple_python_0", 0.45, [{"name": "calculate_triangle_area",
                                              "arguments": {"base": 10, "height": 5}}], True)]
    assert suite_at("simple_python", right, [0.4, 0.5])["at"] == {0.4: 100.0, 0.5: 0.0}


def test_the_command_prints_a_table_and_refuses_bad_thresholds(tmp_path, capsys):
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"kind": "toolcall", "label": "run-a", "suites": {"irrelevance": {"items": [
        {**reply("irrelevance_0", 0.25, [{"name": "f", "arguments": {}}], False), "expect": "no_call"}]}}}))
    assert main([str(path), "--thresholds", "0.5"]) == 0
    assert "| irrelevance | 1 | 0.0 | 100.0 |" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main([str(path), "--thresholds", "1.5"])
    bad = tmp_path / "bad.json"
    bad.write_text("[]")
    assert main([str(bad)]) == 2
    assert "not an eval.toolcall result" in capsys.readouterr().err
