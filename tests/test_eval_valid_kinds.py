"""eval/valid_kinds.py: a run's validation-split items counted by the data kind of their records.

Run: .venv/bin/python -m pytest tests/test_eval_valid_kinds.py -q
"""

import json

from eval.valid_kinds import main


def write_valid(path):
    rows = [{"messages": [], "meta": {"source": "synthetic", "kind": "single", "id": "synthetic-0-1"}},
            {"messages": [], "meta": {"source": "synthetic", "kind": "parallel", "id": "synthetic-0-2"}},
            {"messages": [], "meta": {"source": "synthetic", "kind": "single", "id": "synthetic-0-3"}},
            {"messages": [], "meta": {"source": "xlam"}}]  # no id, no kind: valid-4 under its source
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")


def write_result(path, label, kinds):
    items = [{"id": i, "kind": k} for i, k in kinds.items()]
    path.write_text(json.dumps({"kind": "toolcall", "label": label, "suites": {"valid": {"items": items}}}))


def test_items_are_counted_under_their_records_kind_runs_side_by_side(tmp_path, capsys):
    valid = tmp_path / "valid.jsonl"
    write_valid(valid)
    write_result(tmp_path / "a.json", "A", {"synthetic-0-1": "ok", "synthetic-0-2": "wrong_count",
                                            "synthetic-0-3": "missing_argument", "valid-4": "ok"})
    write_result(tmp_path / "b.json", "B", {"synthetic-0-1": "ok", "synthetic-0-2": "ok",
                                            "synthetic-0-3": "ok", "valid-4": "not_json"})
    assert main([str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--valid", str(valid), "--json"]) == 0
    counts = json.loads(capsys.readouterr().out)
    assert counts["A"] == {"single": {"ok": 1, "missing_argument": 1}, "parallel": {"wrong_count": 1},
                           "xlam": {"ok": 1}}
    assert counts["B"]["single"] == {"ok": 2} and counts["B"]["xlam"] == {"not_json": 1}
    assert main([str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--valid", str(valid)]) == 0
    out = capsys.readouterr().out
    assert "| single | 1 / 2 (missing_argument 1) | 2 / 2 |" in out and "| all | 2 / 4 | 3 / 4 |" in out


def test_another_builds_items_are_said_and_bad_input_is_a_clear_error(tmp_path, capsys):
    valid = tmp_path / "valid.jsonl"
    write_valid(valid)
    write_result(tmp_path / "a.json", "A", {"synthetic-9-9": "ok"})
    assert main([str(tmp_path / "a.json"), "--valid", str(valid)]) == 0
    captured = capsys.readouterr()
    assert "(not in the file)" in captured.out and "another build" in captured.err
    assert main([str(tmp_path / "a.json"), "--valid", str(tmp_path / "none.jsonl")]) == 2
    assert "does not exist" in capsys.readouterr().err
    (tmp_path / "nv.json").write_text(json.dumps({"kind": "toolcall", "label": "C", "suites": {"simple_python": {
        "items": [{"id": "simple_python_0", "kind": "ok"}]}}}))
    assert main([str(tmp_path / "nv.json"), "--valid", str(valid)]) == 2
    assert "has no valid suite" in capsys.readouterr().err
