"""The end-to-end pipeline's orchestration (pipeline.py): stage order, resume, changed settings, failures,
accepted exit codes, and the commands it plans. Stage commands are replaced by tiny Python one-liners here; each
stage's own command is tested in its own test file.

Run: .venv/bin/python -m pytest tests/test_pipeline.py -q
"""

import argparse
import json
import sys

import pytest

import pipeline
from pipeline import Stage


def fake_plan(log, fail=None, codes=None):
    """Stages whose commands append their name to `log`; `fail` exits 5, `codes` maps a stage to its exit code."""
    codes = dict(codes or {})

    def plan(args):
        stages = []
        for name in args.stages:
            code = 5 if name == fail else codes.get(name, 0)
            cmd = [sys.executable, "-c", f"open({str(log)!r}, 'a').write({name!r} + '\\n'); raise SystemExit({code})"]
            ok = {0: ""} if name != "export" else {0: "", 3: "parity check failed"}
            stages.append(Stage(name, [cmd], ok))
        return stages
    return plan


def run(tmp_path, *extra):
    return pipeline.main(["--out", str(tmp_path / "out"), "--stages", "data", "sft", "export", "agent", *extra])


def ran(log):
    return log.read_text().split() if log.exists() else []


def test_stages_run_in_order_then_a_rerun_keeps_them(tmp_path, monkeypatch, capsys):
    log = tmp_path / "log"
    monkeypatch.setattr(pipeline, "plan", fake_plan(log))
    assert run(tmp_path) == 0
    assert ran(log) == ["data", "sft", "export", "agent"]
    assert all((tmp_path / "out" / "done" / f"{s}.json").is_file() for s in ("data", "sft", "export", "agent"))
    assert run(tmp_path) == 0
    assert ran(log) == ["data", "sft", "export", "agent"]  # nothing ran twice
    assert "already done" in capsys.readouterr().out
    assert run(tmp_path, "--force") == 0
    assert ran(log) == ["data", "sft", "export", "agent"] * 2


def test_changed_settings_rerun_that_stage_and_everything_after(tmp_path, monkeypatch):
    log = tmp_path / "log"
    monkeypatch.setattr(pipeline, "plan", fake_plan(log))
    assert run(tmp_path) == 0
    marker = tmp_path / "out" / "done" / "export.json"
    record = json.loads(marker.read_text())
    record["commands"] = [["an", "older", "command"]]
    marker.write_text(json.dumps(record))
    assert run(tmp_path) == 0
    assert ran(log) == ["data", "sft", "export", "agent", "export", "agent"]


def test_a_failing_stage_stops_the_pipeline_and_keeps_what_finished(tmp_path, monkeypatch, capsys):
    log = tmp_path / "log"
    monkeypatch.setattr(pipeline, "plan", fake_plan(log, fail="export"))
    assert run(tmp_path) == 1
    err = capsys.readouterr().err
    assert "stage 'export' failed: exit code 5" in err and "raise SystemExit(5)" in err
    assert ran(log) == ["data", "sft", "export"]  # the agent never started
    done = tmp_path / "out" / "done"
    assert (done / "sft.json").is_file() and not (done / "export.json").exists()
    monkeypatch.setattr(pipeline, "plan", fake_plan(log))  # fixed: only the failed stage and the rest run
    assert run(tmp_path) == 0
    assert ran(log) == ["data", "sft", "export", "export", "agent"]


def test_an_accepted_nonzero_exit_is_a_warning_not_a_failure(tmp_path, monkeypatch):
    log = tmp_path / "log"
    monkeypatch.setattr(pipeline, "plan", fake_plan(log, codes={"export": 3}))
    assert run(tmp_path) == 0
    record = json.loads((tmp_path / "out" / "done" / "export.json").read_text())
    assert record["status"] == "warning" and "parity" in record["note"]
    assert ran(log)[-1] == "agent"


def plan_for(tmp_path, *stages):
    args = argparse.Namespace(
        out=str(tmp_path), stages=list(stages), seed=0, sft_steps=12, validity_n=8, grpo_steps=2, eval_limit=10,
        model="embedded", max_tokens=8)
    return {s.name: s for s in pipeline.plan(args)}


def test_the_plan_hands_each_stage_the_previous_stage_outputs(tmp_path):
    full = plan_for(tmp_path, *pipeline.STAGES)
    assert list(full) == list(pipeline.STAGES)
    assert full["sft"].commands[0][full["sft"].commands[0].index("--data") + 1] == str(tmp_path / "data")
    assert str(tmp_path / "sft" / "model") in full["grpo"].commands[0]
    grpo = full["grpo"].commands[0]  # tool-call tasks from this pipeline's data, not data/default
    assert grpo[grpo.index("--toolcall-tasks") + 1] == str(tmp_path / "data" / "valid.jsonl")
    assert str(tmp_path / "grpo" / "model") in full["export"].commands[0]
    assert [c[c.index("--label") + 1] for c in full["eval"].commands] == ["base", "trained"]
    assert str(tmp_path / "model-q8_0.gguf") in full["agent"].commands[0]
    without_grpo = plan_for(tmp_path, "sft", "export")  # no GRPO stage and no GRPO model: export the SFT model
    assert str(tmp_path / "sft" / "model") in without_grpo["export"].commands[0]


def test_bad_step_counts_are_refused_before_anything_runs(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        pipeline.main(["--out", str(tmp_path), "--sft-steps", "0"])
    assert e.value.code == 2 and "--sft-steps must be at least 1" in capsys.readouterr().err
    assert not (tmp_path / "done").exists()


def test_a_stage_that_runs_again_sets_its_earlier_outputs_aside(tmp_path, monkeypatch):
    out = tmp_path / "out"

    def plan(args):
        cmd = [sys.executable, "-c", f"import pathlib, time; p = pathlib.Path({str(out / 'sft')!r}); "
                                     "p.mkdir(parents=True, exist_ok=True); "
                                     "(p / 'metrics.jsonl').open('a').write(str(time.time()) + '\\n')"]
        return [Stage("sft", [cmd], outputs=[out / "sft"])]

    monkeypatch.setattr(pipeline, "plan", plan)
    assert pipeline.main(["--out", str(out), "--stages", "sft"]) == 0
    first = (out / "sft" / "metrics.jsonl").read_text()
    assert pipeline.main(["--out", str(out), "--stages", "sft", "--force"]) == 0
    assert len((out / "sft" / "metrics.jsonl").read_text().splitlines()) == 1  # a clean folder, not appended to
    assert (out / "sft.previous" / "metrics.jsonl").read_text() == first


def test_the_summary_reads_each_stage_result_from_its_own_files(tmp_path):
    (tmp_path / "sft").mkdir()
    (tmp_path / "sft" / "summary.json").write_text(json.dumps(
        {"validity_before": 0.0, "validity_after": 0.25, "prose_ppl_before": 65.2, "prose_ppl_after": 751.3}))
    (tmp_path / "sft" / "metrics.jsonl").write_text("\n".join(json.dumps(r) for r in [
        {"kind": "valid", "step": 0, "val_loss": 0.107, "val_ce": 1.082},
        {"kind": "train", "step": 1, "loss": 0.1},
        {"kind": "valid", "step": 12, "val_loss": 0.019, "val_ce": 1.890}]))
    line = pipeline.result_line("sft", tmp_path)
    assert "val cross-entropy 1.082 -> 1.890" in line and "0% -> 25%" in line and "65 -> 751" in line
    assert pipeline.result_line("grpo", tmp_path) == ""  # nothing there: no line, no crash
    (tmp_path / "grpo").mkdir()  # a last step with only tool-call groups has no coding valid-call rate
    (tmp_path / "grpo" / "metrics.jsonl").write_text("\n".join(json.dumps(r) for r in [
        {"kind": "train", "step": 1, "reward_mean": 0.25, "valid_call_rate": 0.5},
        {"kind": "train", "step": 2, "reward_mean": 0.5, "valid_call_rate": None, "skipped_update": True}]))
    assert "0.25 -> 0.50; valid calls 0%" in pipeline.result_line("grpo", tmp_path)


def test_a_relative_out_folder_is_where_the_user_ran_the_command(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the stages run from the repository root, so their paths must be absolute
    stages = plan_for("rel", "data")
    assert str(tmp_path / "rel" / "data") in stages["data"].commands[0]


def test_the_in_process_smoke_stage_reruns_when_its_settings_change(tmp_path, monkeypatch):
    calls = []

    def demo(model, max_tokens):
        calls.append((model, max_tokens))
        return {"tokens": max_tokens, "generation_tps": 1.0, "tool_calls": [], "error": None}

    monkeypatch.setattr(pipeline, "run_demo", demo)
    base = ["--out", str(tmp_path), "--stages", "smoke"]
    assert pipeline.main(base) == 0 and pipeline.main(base) == 0
    assert calls == [("embedded", 96)]
    assert pipeline.main(base + ["--max-tokens", "20"]) == 0
    assert calls == [("embedded", 96), ("embedded", 20)]
    assert "20 tokens" in pipeline.result_line("smoke", tmp_path)
