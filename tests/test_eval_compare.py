"""eval.compare: paired figures on the items two tool-call results share, and clear errors for bad files."""

from __future__ import annotations

import json

import pytest

from eval import compare as C
from nanoagent.stats import paired_bootstrap_ci, runs_bootstrap_ci


def _item(i, correct, valid=True, expect="calls"):
    return {"id": f"s_{i}", "expect": expect, "correct": correct, "valid": valid, "has_call": True, "kind": "ok"}


def _result(label, suites):
    return {"format": "nanoagent-eval", "version": 1, "kind": "toolcall", "label": label,
            "suites": {name: {"metrics": {}, "items": items} for name, items in suites.items()}}


def test_paired_interval_ignores_items_both_runs_agree_on():
    a = [1] * 50 + [0] * 50
    assert paired_bootstrap_ci(a, a) == (0.0, 0.0)  # identical runs: no doubt about a zero difference
    b = [1] * 50 + [1] * 5 + [0] * 45
    lo, hi = paired_bootstrap_ci(a, b)
    assert 0 < lo <= 0.05 <= hi < 0.15
    with pytest.raises(ValueError, match="equal lengths"):
        paired_bootstrap_ci([1], [1, 0])


def test_only_shared_ids_count_and_the_differing_items_are_named():
    a = _result("mlx", {"simple": [_item(0, True), _item(1, True), _item(2, False), _item(3, True)]})
    b = _result("q8", {"simple": [_item(1, False), _item(2, True), _item(3, True), _item(9, True)]})
    r = C.compare(a, b, margin=2)["simple"]
    assert (r["n_a"], r["n_b"], r["n"]) == (4, 4, 3)
    assert r["accuracy_a"] == pytest.approx(2 / 3) and r["accuracy_b"] == pytest.approx(2 / 3)
    assert r["difference"] == 0 and r["within_margin"]
    assert r["only_a"] == ["s_1"] and r["only_b"] == ["s_2"]


def test_a_difference_of_exactly_the_margin_is_within_it():
    a = _result("mlx", {"simple": [_item(i, i < 25) for i in range(50)]})
    b = _result("q8", {"simple": [_item(i, i < 26) for i in range(50)]})  # 52% - 50%: 2.0000000000000018 in floats
    assert C.compare(a, b, margin=2)["simple"]["within_margin"]
    assert not C.compare(a, b, margin=1.9)["simple"]["within_margin"]


def test_ids_that_expect_different_outcomes_are_left_out_and_counted():
    a = _result("a", {"valid": [_item(0, True), _item(1, True, expect="no_call")]})
    b = _result("b", {"valid": [_item(0, False), _item(1, True, expect="calls")]})
    r = C.compare(a, b)["valid"]
    assert r["n"] == 1 and r["mismatched"] == 1 and r["difference"] == -1.0


def test_suites_missing_from_a_file_are_named():
    a = _result("a", {"simple": [_item(0, True)]})
    b = _result("b", {"parallel": [_item(0, True)]})
    with pytest.raises(C.CompareError, match="share no suite"):
        C.compare(a, b)
    with pytest.raises(C.CompareError, match="parallel not in A"):
        C.compare(a, b, ["parallel"])


def test_cli_table_and_bad_files(tmp_path, capsys):
    pa, pb = tmp_path / "a.json", tmp_path / "b.json"
    pa.write_text(json.dumps(_result("mlx", {"simple": [_item(i, i % 2 == 0) for i in range(10)]})))
    pb.write_text(json.dumps(_result("q8", {"simple": [_item(i, i % 3 == 0) for i in range(10)]})))
    assert C.main([str(pa), str(pb), "--margin", "2"]) == 0
    out = capsys.readouterr().out
    assert "| simple | 10 (A 10, B 10) | 50.0 | 40.0 | -10.0" in out and "| no |" in out
    assert C.main([str(pa), str(pb), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["suites"]["simple"]["only_b"] == ["s_3", "s_9"]
    (tmp_path / "c.json").write_text("{not json")
    assert C.main([str(pa), str(tmp_path / "c.json")]) == 2
    assert "c.json is not a readable JSON file" in capsys.readouterr().err
    (tmp_path / "d.json").write_text(json.dumps({"kind": "coding"}))
    assert C.main([str(tmp_path / "d.json"), str(pb)]) == 2
    assert "not an eval.toolcall result" in capsys.readouterr().err


def _write(path, label, suites):
    path.write_text(json.dumps(_result(label, suites)))
    return str(path)


def test_runs_interval_widens_with_the_spread_between_an_arms_runs():
    a = [1] * 50 + [0] * 50
    assert runs_bootstrap_ci([a, a], [a]) == (0.0, 0.0)
    b_same = [1] * 55 + [0] * 45  # two runs of B that agree: only the items' doubt
    b_far = [[1] * 40 + [0] * 60, [1] * 70 + [0] * 30]  # same mean 55, far apart
    lo_same, hi_same = runs_bootstrap_ci([a], [b_same, b_same])
    lo_far, hi_far = runs_bootstrap_ci([a], b_far)
    assert hi_far - lo_far > 2 * (hi_same - lo_same)
    assert lo_far < 0 < hi_far and lo_same > 0
    with pytest.raises(ValueError, match="same items"):
        runs_bootstrap_ci([[1, 0]], [[1]])


def test_a_run_scored_suite_by_suite_is_one_run(tmp_path, capsys):
    """Files with one label merge into one run; then two single runs compare as two files always did."""
    whole = _write(tmp_path / "whole.json", "q8", {"simple": [_item(i, i % 3 == 0) for i in range(10)],
                                                    "irr": [_item(i, True, expect="no_call") for i in range(4)]})
    part1 = _write(tmp_path / "p1.json", "q8", {"simple": [_item(i, i % 3 == 0) for i in range(10)]})
    part2 = _write(tmp_path / "p2.json", "q8", {"irr": [_item(i, True, expect="no_call") for i in range(4)]})
    base = _write(tmp_path / "base.json", "mlx", {"simple": [_item(i, i % 2 == 0) for i in range(10)],
                                                   "irr": [_item(i, i < 2, expect="no_call") for i in range(4)]})
    assert C.main([base, whole, "--json"]) == 0
    one = json.loads(capsys.readouterr().out)["suites"]
    assert C.main([base, f"{part1},{part2}", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["suites"] == one
    twice = _write(tmp_path / "p3.json", "q8", {"simple": [_item(0, True)]})
    assert C.main([base, f"{part1},{twice}"]) == 2
    assert "both hold simple" in capsys.readouterr().err


def test_two_arms_of_seeds_give_each_runs_accuracy_and_the_mean(tmp_path, capsys):
    a0 = _write(tmp_path / "a0.json", "a-seed0", {"simple": [_item(i, i < 5) for i in range(10)]})
    a1 = _write(tmp_path / "a1.json", "a-seed1", {"simple": [_item(i, i < 3) for i in range(10)]})
    b0 = _write(tmp_path / "b0.json", "b-seed0", {"simple": [_item(i, i < 6) for i in range(10)]})
    b1 = _write(tmp_path / "b1.json", "b-seed1", {"simple": [_item(i, i < 8) for i in range(12)],
                                                   "extra": [_item(0, True)]})
    assert C.main([f"{a0},{a1}", f"{b0},{b1}", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)["suites"]
    assert list(r) == ["simple"]  # the suites every run holds
    r = r["simple"]
    assert r["n"] == 10 and r["accuracy_runs_a"] == [0.5, 0.3] and r["accuracy_runs_b"] == [0.6, 0.8]
    assert r["accuracy_a"] == pytest.approx(0.4) and r["difference"] == pytest.approx(0.3)
    lo, hi = r["difference_ci95"]
    assert lo <= 0.3 <= hi
    assert C.main([f"{a0},{a1}", f"{b0},{b1}"]) == 0
    out = capsys.readouterr().out
    assert "| simple | 10 | 40.0 (50.0, 30.0) | 70.0 (60.0, 80.0) | +30.0" in out and "half their spread" in out
    assert C.main([f"{a0},{a1}", b0, "--margin", "2"]) == 2
    assert "--margin compares two single runs" in capsys.readouterr().err
