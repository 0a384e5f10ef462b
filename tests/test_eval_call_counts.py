"""eval.call_counts: expected against made call counts, from BFCL's answers and a result file."""

import json

import pytest

from eval.call_counts import carry_over, count_table, expected_counts, main


def test_count_table_splits_right_over_under_and_no_call():
    items = [{"id": "a", "calls": [{}, {}]}, {"id": "b", "calls": [{}, {}, {}]}, {"id": "c", "calls": [{}]},
             {"id": "d", "calls": None}, {"id": "zz", "calls": [{}]}]
    table = count_table(items, {"a": 2, "b": 2, "c": 3, "d": 2})
    assert table["n"] == 4  # "zz" has no expected count and is left out
    assert (table["right"], table["over"], table["under"], table["no_call"]) == (0.25, 0.25, 0.25, 0.25)
    assert table["cells"] == {"2": {2: 1, 3: 1, "-": 1}, "3": {1: 1}}


def test_cli_reads_bfcl_answers_and_a_result_file(tmp_path, capsys):
    expected = expected_counts("parallel")
    assert len(expected) == 200 and set(expected.values()) >= {2, 3, 4}
    ids = sorted(expected)[:3]
    items = [{"id": i, "calls": [{"name": "f", "arguments": {}}] * expected[i]} for i in ids]
    result = {"kind": "toolcall", "label": "toy", "suites": {"parallel": {"items": items}}}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(result))
    assert main([str(path), "--suites", "parallel", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["toy"]["parallel"]["n"] == 3 and out["toy"]["parallel"]["right"] == 1.0
    assert main([str(path), "--suites", "parallel_multiple"]) == 0
    assert "not in" in capsys.readouterr().out


def test_cli_names_a_file_that_is_not_a_result(tmp_path, capsys):
    bad = tmp_path / "x.json"
    bad.write_text("{}")
    assert main([str(bad)]) == 2
    assert "not an eval.toolcall result" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([])


def test_carry_over_counts_later_calls_that_keep_a_first_call_value():
    answers = {"a": [{"f": {"x": [1], "y": [5]}}, {"f": {"x": [2], "y": [5]}}],
               "b": [{"f": {"x": [1]}}, {"f": {"x": [2]}}]}
    kept = {"id": "a", "valid": True, "correct": False, "calls": [{"name": "f", "arguments": {"x": 1, "y": 5}},
                                                                  {"name": "f", "arguments": {"x": 1, "y": 5}}]}
    shared = {"id": "a", "valid": True, "correct": False, "calls": [{"name": "f", "arguments": {"x": 1, "y": 5}},
                                                                    {"name": "f", "arguments": {"x": 3, "y": 5}}]}
    right = {"id": "b", "valid": True, "correct": True, "calls": [{"arguments": {"x": 1}}, {"arguments": {"x": 2}}]}
    over = {"id": "b", "valid": True, "correct": False, "calls": [{"arguments": {"x": 1}}] * 3}
    # y=5 is accepted by both expected calls, so keeping it is no carry-over; x=1 in the second call is
    assert carry_over([kept, shared, right, over], answers) == {"n": 2, "carried": 1}
