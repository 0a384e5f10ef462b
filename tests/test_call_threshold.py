"""A model's call threshold from choice to use (nanoagent/call_threshold.py): chosen on the validation split by
eval.decision, stored with the model, carried into the GGUF, applied by `serve` and `--call-threshold model`.

Run: .venv/bin/python -m pytest tests/test_call_threshold.py -q
"""

import json
from pathlib import Path

import pytest

from nanoagent.call_threshold import (FILE, ThresholdError, choose_threshold, resolve_threshold, save_threshold,
                                      stored_threshold)
from nanoagent.testing import save_tiny_model

ROOT = Path(__file__).resolve().parents[1]


def rows(calls, nones):
    return [{"needs_call": True, "p_call": p} for p in calls] + [{"needs_call": False, "p_call": p} for p in nones]


def test_the_threshold_with_the_best_balanced_accuracy():
    info = choose_threshold(rows([0.9, 0.8, 0.75], [0.7, 0.6, 0.85]), max_threshold=1.0)
    assert info["call_threshold"] == 0.725  # midway 0.7 | 0.75: keeps every call, declines 2 of 3 no-calls
    assert info["balanced_accuracy"] == pytest.approx(0.8333, abs=1e-4) and info["n_no_call"] == 3
    assert choose_threshold(rows([0.9], [])) is None and choose_threshold([]) is None


def test_the_threshold_keeps_nine_calls_in_ten():
    """Half the no-call prompts look like calls (P 0.9): the unconstrained best declines them and a third of the
    calls with them; the floor keeps 90% of the calls and gives up those no-calls."""
    calls = [0.95, 0.96, 0.97, 0.98, 0.99, 0.91, 0.92, 0.93, 0.7, 0.75]
    nones = [0.05, 0.1, 0.9, 0.9]
    free = choose_threshold(rows(calls, nones), min_calls_kept=0.0, max_threshold=1.0)
    assert free["calls_kept"] < 0.9 and free["call_threshold"] > 0.9
    floor = choose_threshold(rows(calls, nones))
    assert floor["min_calls_kept"] == 0.9 and floor["calls_kept"] >= 0.9
    assert floor["call_threshold"] == pytest.approx(0.4)  # midway 0.1 | 0.7: every call kept, 2 of 4 declined
    assert floor["no_calls_declined"] == 0.5


def test_the_threshold_never_declines_a_reply_the_model_would_call():
    """No threshold above 0.5 (MAX_THRESHOLD): above it the gate declines replies whose most likely first token
    opens a call. On BFCL the validation-chosen 0.705 cost b33's calling suites 3.6-7.5 points; 0.5 cost ten runs
    0.05-1.7 on average."""
    calls, nones = [0.95, 0.9, 0.62, 0.58, 0.97], [0.05, 0.3, 0.55, 0.6]
    free = choose_threshold(rows(calls, nones), max_threshold=1.0)
    capped = choose_threshold(rows(calls, nones))
    assert free["call_threshold"] > 0.5 and capped["call_threshold"] <= 0.5
    assert capped["call_threshold"] == pytest.approx(0.425)  # midway 0.3 | 0.55: every call kept, 2 of 4 declined
    assert capped["max_threshold"] == 0.5 and capped["calls_kept"] == 1.0
    assert choose_threshold(rows([0.9], [0.95]))["call_threshold"] == pytest.approx(0.45)  # the one at most 0.5
    assert choose_threshold(rows([0.9], [0.95]), max_threshold=0.1)["call_threshold"] == pytest.approx(0.45)  # none


def test_the_threshold_stays_inside_zero_and_one():
    """A model sure of every call (probabilities that round to 1) or unable to tell the groups apart still gets
    a threshold the backends accept."""
    top = choose_threshold(rows([1.0, 1.0], [0.2, 0.3]), max_threshold=1.0)
    assert 0.3 < top["call_threshold"] < 1.0 and top["balanced_accuracy"] == 1.0
    flat = choose_threshold(rows([0.0, 0.0], [0.0, 0.5]))
    assert 0.0 < flat["call_threshold"] < 1.0
    assert resolve_threshold(str(top["call_threshold"]), "x") == top["call_threshold"]


def test_the_committed_threshold_decides_as_the_rule_does():
    """0.708 (README, eval/results/quality) came from the stage-1 model's validation probe: the rule of the time
    (no floor on the calls kept) falls in the same gap between observed probabilities, so it decides every
    validation item the same way."""
    probe = json.loads((ROOT / "eval/results/decision/quality-cpu.json").read_text())
    items = probe["suites"]["valid"]["items"]
    chosen = choose_threshold(items, min_calls_kept=0.0, max_threshold=1.0)["call_threshold"]
    assert chosen == pytest.approx(0.708, abs=1e-3)
    assert [it["p_call"] >= chosen for it in items] == [it["p_call"] >= 0.708 for it in items]


def test_stored_with_a_model_or_run_folder(tmp_path):
    run = tmp_path / "run"
    model = save_tiny_model(run / "model")
    assert stored_threshold(run) is None and stored_threshold(tmp_path / "nothing") is None
    save_threshold(model, {"call_threshold": 0.61, "chosen_on": "valid"})
    assert stored_threshold(run) == 0.61 and stored_threshold(model) == 0.61
    assert resolve_threshold("model", str(run)) == 0.61
    (model / FILE).write_text("{not json")
    with pytest.raises(ThresholdError, match="not a call-threshold file"):
        stored_threshold(run)
    (model / FILE).write_text('{"call_threshold": 1.2}')
    with pytest.raises(ThresholdError, match="between 0 and 1"):
        stored_threshold(run)
    with pytest.raises(ThresholdError, match="not a model folder"):
        save_threshold(tmp_path, {"call_threshold": 0.5})


def test_resolving_a_flag_value():
    assert resolve_threshold("off", "x") is None and resolve_threshold(None, "x") is None
    assert resolve_threshold(False, "x") is None  # `call_threshold: off` in YAML
    assert resolve_threshold("0.7", "x") == 0.7 and resolve_threshold(0.25, "x") == 0.25
    for bad in ("1.5", "0", "high"):
        with pytest.raises(ThresholdError):
            resolve_threshold(bad, "x")


def test_decision_saves_it_and_the_gguf_and_serve_carry_it(tmp_path, capsys):
    pytest.importorskip("llama_cpp")
    from eval import decision
    from export.gguf import main as export_main
    from nanoagent.cli import load_model

    fixture = tmp_path / "valid.jsonl"
    tool = {"type": "function", "function": {"name": "f", "description": "d", "parameters": {
        "type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}}}
    data = [{"messages": [{"role": "user", "content": f"question {i}"}, {"role": "assistant", "content": "",
             "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": {"x": i}}}]}],
             "tools": [tool]} for i in range(4)]
    data += [{"messages": [{"role": "user", "content": f"hello {i}"}, {"role": "assistant", "content": "hi"}],
              "tools": [tool]} for i in range(4)]
    fixture.write_text("".join(json.dumps(r) + "\n" for r in data))
    model = save_tiny_model(tmp_path / "run" / "model")
    args = ["--model", str(tmp_path / "run"), "--suites", f"valid:{fixture}", "--n", "0", "--out-dir", ""]
    assert decision.main(args + ["--save-threshold"]) == 0
    saved = json.loads((model / FILE).read_text())
    assert saved["chosen_on"] == "valid" and 0 < saved["call_threshold"] < 1
    assert "saved to" in capsys.readouterr().out

    out = tmp_path / "t.gguf"
    assert export_main(["--model", str(model), "--out", str(out), "--type", "f32", "--no-check"]) == 0
    assert stored_threshold(out) == pytest.approx(saved["call_threshold"], rel=1e-6)  # float32 in the metadata
    served = load_model(str(out), constrain=False, call_threshold="model")
    assert served.gate.threshold == pytest.approx(saved["call_threshold"], rel=1e-6)
    assert load_model(str(out), constrain=False, call_threshold="off").gate is None
    assert load_model(str(model), constrain=False, call_threshold="model").gate.threshold == saved["call_threshold"]


def test_bad_requests_fail_before_work(tmp_path, capsys):
    from eval import decision, toolcall

    model = save_tiny_model(tmp_path / "m")
    assert decision.main(["--model", str(model), "--suites", "irrelevance", "--save-threshold"]) == 2
    assert "add `valid` to --suites" in capsys.readouterr().err
    assert toolcall.main(["--model", str(model), "--suites", "simple_python@1", "--call-threshold", "model",
                          "--out-dir", str(tmp_path / "o")]) == 2
    assert "has no stored threshold" in capsys.readouterr().err
    assert toolcall.main(["--model", str(model), "--suites", "simple_python@1", "--call-threshold", "2",
                          "--out-dir", str(tmp_path / "o")]) == 2
    assert "between 0 and 1" in capsys.readouterr().err


def test_one_unthresholded_run_gives_the_thresholded_figures_exactly(tmp_path):
    """eval.toolcall on a model with a stored threshold, run without it, reports per suite what the threshold would
    have given (from each item's p_call); running with `--call-threshold model` must give the same figures."""
    from eval import toolcall

    tool = {"type": "function", "function": {"name": "f", "description": "d", "parameters": {
        "type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}}}
    data = [{"messages": [{"role": "user", "content": f"question number {i} " * (1 + i % 3)},
                          {"role": "assistant", "content": "", "tool_calls": [
                              {"type": "function", "function": {"name": "f", "arguments": {"x": i}}}]}],
             "tools": [tool]} for i in range(6)]
    data += [{"messages": [{"role": "user", "content": f"hello {i} " * (1 + i % 2)},
                           {"role": "assistant", "content": "hi"}], "tools": [tool]} for i in range(6)]
    fixture = tmp_path / "valid.jsonl"
    fixture.write_text("".join(json.dumps(r) + "\n" for r in data))
    model = save_tiny_model(tmp_path / "m")
    args = ["--model", str(model), "--suites", f"valid:{fixture}", "--max-tokens", "6", "--out-dir", str(tmp_path),
            "--batch-size", "1"]

    def run(name, *extra):
        assert toolcall.main(args + ["--name", name, *extra]) == 0
        suites = json.loads((tmp_path / f"{name}.json").read_text())["suites"]
        return suites[f"valid:{fixture}"]

    first = run("plain")
    assert "at_threshold" not in first  # no threshold stored yet
    ps = sorted(o["p_call"] for o in first["items"])
    threshold = (ps[5] + ps[6]) / 2  # half the items fall below it
    save_threshold(model, {"call_threshold": threshold})
    derived, applied = run("derived")["at_threshold"], run("applied", "--call-threshold", "model")
    assert derived["threshold"] == pytest.approx(threshold) and len(derived["declined"]) == 6
    assert derived["declined"] == [o["id"] for o in applied["items"] if o["p_call"] < threshold]
    for key in ("call_rate", "valid_rate", "accuracy", "kinds"):
        assert derived["metrics"][key] == applied["metrics"][key], key
    from eval.results import load_runs

    runs, _ = load_runs(tmp_path)
    view = next(r for r in runs if r["_path"].endswith("derived.json") and "@threshold" in r["label"])
    assert view["label"] == f"m@threshold{threshold:.3g}" and view["throughput"] is None
    assert view["suites"][f"valid:{fixture}"]["metrics"] == derived["metrics"]
    assert view["settings"]["call_threshold"] == pytest.approx(threshold)


def test_batched_replies_get_no_derived_figures(tmp_path, capsys):
    """Rows of a batch share one random stream, so a declined row could change the others: no `at_threshold`."""
    from eval import toolcall

    model = save_tiny_model(tmp_path / "m")
    save_threshold(model, {"call_threshold": 0.5})
    fixture = tmp_path / "valid.jsonl"
    fixture.write_text(json.dumps({"messages": [{"role": "user", "content": "hi"},
                                                {"role": "assistant", "content": "hello"}],
                                   "tools": [{"type": "function", "function": {"name": "f", "description": "d",
                                                                               "parameters": {"type": "object"}}}]})
                       + "\n")
    assert toolcall.main(["--model", str(model), "--suites", f"valid:{fixture}", "--max-tokens", "2",
                          "--out-dir", str(tmp_path), "--name", "r", "--batch-size", "4"]) == 0
    assert "use --batch-size 1" in capsys.readouterr().err
    assert "at_threshold" not in json.loads((tmp_path / "r.json").read_text())["suites"][f"valid:{fixture}"]


def test_the_probabilities_report_progress_and_stay_the_same(tmp_path, tiny_tok):
    """The bar train.dft shows over the threshold scan: one tick per prompt, the rows as without it."""
    from nanoagent.call_threshold import call_probabilities
    from nanoagent.suites import load_suite
    from nanoagent.testing import tiny_llama, tok_vocab_size

    tool = {"type": "function", "function": {"name": "f", "description": "d", "parameters": {
        "type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}}}
    data = [{"messages": [{"role": "user", "content": f"question {i}"}, {"role": "assistant", "content": "",
             "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": {"x": i}}}]}],
             "tools": [tool]} for i in range(3)]
    (tmp_path / "valid.jsonl").write_text("".join(json.dumps(r) + "\n" for r in data))
    items, _ = load_suite(f"valid:{tmp_path / 'valid.jsonl'}")
    model = tiny_llama(tok_vocab_size(tiny_tok))
    ticks = []
    rows = call_probabilities(model, tiny_tok, items, progress=ticks.append)
    assert ticks == [1, 1, 1] and rows == call_probabilities(model, tiny_tok, items)
