"""eval.call_counts: expected against made call counts, from BFCL's answers and a result file."""

import json

import pytest

from eval.call_counts import carry_over, count_table, expected_counts, main, repeats, shape_table


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
    assert "toy / parallel_multiple: in none of its files" in capsys.readouterr().out


def test_cli_reads_a_run_split_into_one_file_per_suite(tmp_path, capsys):
    """scripts/cpu_arm.sh writes a file per suite under one label: a suite another of the label's files holds is
    not reported missing; one that none holds is, once."""
    paths = []
    for suite in ("parallel", "parallel_multiple"):
        expected = expected_counts(suite)
        ids = sorted(expected)[:2]
        items = [{"id": i, "calls": [{"name": "f", "arguments": {}}] * expected[i]} for i in ids]
        path = tmp_path / f"toy-{suite}.json"
        path.write_text(json.dumps({"kind": "toolcall", "label": "toy", "suites": {suite: {"items": items}}}))
        paths.append(str(path))
    assert main(paths + ["--suites", "parallel,parallel_multiple,live_simple"]) == 0
    out = capsys.readouterr().out
    assert "toy / parallel: 2 items" in out and "toy / parallel_multiple: 2 items" in out
    assert "parallel: in none" not in out and "parallel_multiple: in none" not in out and "not in" not in out
    assert out.count("toy / live_simple: in none of its files") == 1
    assert main(paths + ["--suites", "parallel,live_simple", "--json"]) == 0
    captured = capsys.readouterr()
    assert list(json.loads(captured.out)["toy"]) == ["parallel"]  # stdout stays JSON
    assert "toy / live_simple: in none of its files" in captured.err


def test_cli_names_a_file_that_is_not_a_result(tmp_path, capsys):
    bad = tmp_path / "x.json"
    bad.write_text("{}")
    assert main([str(bad)]) == 2
    assert "not an eval.toolcall result" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([])


def test_carry_over_counts_calls_that_share_a_value_only_one_expected_call_accepts():
    answers = {"a": [{"f": {"x": [1], "y": [5]}}, {"f": {"x": [2], "y": [5]}}],
               "b": [{"f": {"x": [1]}}, {"f": {"x": [2]}}],
               "c": [{"f": {"x": ["NY"]}}, {"g": {"x": ["NY"]}}]}

    def reply(item, *xs, name="f", correct=False):
        return {"id": item, "valid": True, "correct": correct,
                "calls": [{"name": n, "arguments": a} for n, a in
                          [(name if isinstance(x, dict) else x[0], x if isinstance(x, dict) else x[1]) for x in xs]]}
    kept = reply("a", {"x": 1, "y": 5}, {"x": 1, "y": 5})
    kept_second = reply("a", {"x": 2, "y": 5}, {"x": 2.0, "y": 5})  # order-free; 2 and 2.0 alike
    shared = reply("a", {"x": 1, "y": 5}, {"x": 3, "y": 5})  # y=5 fits both expected calls: not carried
    right = reply("b", {"x": 1}, {"x": 2}, correct=True)
    over = reply("b", {"x": 1}, {"x": 1}, {"x": 1})  # wrong count: left out
    other_function = reply("c", ("f", {"x": "ny"}), ("g", {"x": "NY"}))  # one value, two functions: not carried
    assert carry_over([kept, kept_second, shared, right, over, other_function], answers) == {"n": 4, "carried": 2}


def test_repeats_counts_over_count_replies_that_write_a_call_again():
    a, b = {"name": "f", "arguments": {"x": 1}}, {"name": "f", "arguments": {"x": 2}}
    items = [{"id": "r", "calls": [a, b, dict(a)]},        # over, and a call written again
             {"id": "s", "calls": [a, b, {"name": "f", "arguments": {"x": 3}}]},  # over, three different calls
             {"id": "t", "calls": [a, a]},                  # a repeat, but the count is right
             {"id": "u", "calls": [a]}]
    assert repeats(items, {"r": 2, "s": 2, "t": 2, "u": 2}) == {"over": 2, "repeated": 1}


def test_shape_table_splits_items_by_the_calls_each_function_is_asked_for():
    answers = {"a": [{"f": {}}, {"g": {}}], "b": [{"f": {}}, {"f": {}}, {"g": {}}, {"g": {}}],
               "c": [{"f": {}}, {"g": {}}]}
    items = [{"id": "a", "correct": True, "calls": [{"name": "g"}, {"name": "f"}]},
             {"id": "b", "correct": False, "calls": [{"name": "f"}, {"name": "f"}, {"name": "f"}, {"name": "g"}]},
             {"id": "c", "correct": False, "calls": [{"name": "f"}, {"name": "f"}]},
             {"id": "zz", "correct": True, "calls": []}]
    table = shape_table(items, answers)
    assert list(table) == ["(1, 1)", "(2, 2)"]  # most items first; "zz" has no answer and is left out
    assert table["(1, 1)"] == {"n": 2, "right": 1, "count_right": 2, "functions_right": 1}
    assert table["(2, 2)"] == {"n": 1, "right": 0, "count_right": 1, "functions_right": 0}  # four calls, f three times
