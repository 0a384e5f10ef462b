"""eval/failures.py: replies counted by the stage where they first fail, runs side by side.

Run: .venv/bin/python -m pytest tests/test_eval_failures.py -q
"""

import json

from eval.failures import count_suite, main, stage_of


def result(path, label, suite, kinds):
    items = [{"id": f"{suite}_{i}", "expect": "calls", "kind": k.split("@")[0], "correct": k == "ok",
              "valid": k == "ok", "finish_reason": "length" if k.endswith("@length") else "stop"}
             for i, k in enumerate(kinds)]
    path.write_text(json.dumps({"kind": "toolcall", "label": label, "suites": {suite: {"items": items}}}))
    return str(path)


def test_unclosed_tags_split_by_the_cap_and_the_schema_suffix_counted_apart():
    assert stage_of({"kind": "unclosed_tag", "finish_reason": "length"}) == "unclosed_tag@length"
    assert stage_of({"kind": "unclosed_tag", "finish_reason": "stop"}) == "unclosed_tag"
    counts = count_suite([{"kind": "wrong_value+bad_arguments", "schema_error": "x"}, {"kind": "wrong_value"},
                          {"kind": "ok", "correct": True, "schema_error": "an enum value BFCL does not check"}])
    assert counts == {"n": 3, "kinds": {"wrong_value": 2, "ok": 1}, "schema_invalid": 2}
    # an item without a kind is counted by its verdict, never as right by default
    assert stage_of({"correct": False}) == "unknown" and stage_of({"correct": True}) == "ok"


def test_runs_side_by_side_with_a_missing_suite_and_an_unknown_kind(tmp_path, capsys):
    a = result(tmp_path / "a.json", "A", "parallel",
               ["ok", "unclosed_tag@length", "unclosed_tag@length", "wrong_count"])
    a2 = result(tmp_path / "a2.json", "A", "simple_python", ["ok", "no_call"])
    b = result(tmp_path / "b.json", "B", "parallel", ["ok", "ok", "unclosed_tag", "backend_error"])
    assert main([f"{a},{a2}", b]) == 0
    out = capsys.readouterr().out
    assert "| right | 1 (25.0%) | 2 (50.0%) |" in out
    assert "| no parsable call: cut at the token cap | 2 (50.0%) | 0 (0.0%) |" in out
    assert "| no parsable call: call tag left open | 0 (0.0%) | 1 (25.0%) |" in out
    assert "| other: backend_error | 0 (0.0%) | 1 (25.0%) |" in out
    assert "| declined | 1 (50.0%) | - |" in out   # B scored no simple_python
    assert "expected function not called" not in out   # a stage no run reached is left out
    assert "| stage | A (n=4) | B (n=4) |" in out
    assert main([a, b, "--suites", "parallel", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["parallel"]["A"]["kinds"] == {"ok": 1, "unclosed_tag@length": 2, "wrong_count": 1}


def test_bad_input_is_named(tmp_path, capsys):
    a = result(tmp_path / "a.json", "A", "parallel", ["ok"])
    assert main([a, a]) == 2
    assert "same run (A)" in capsys.readouterr().err
    assert main([a, "--suites", "multiple"]) == 2
    assert "no run holds suite(s) multiple" in capsys.readouterr().err
    assert main([str(tmp_path / "nope.json")]) == 2
    assert "does not exist" in capsys.readouterr().err
