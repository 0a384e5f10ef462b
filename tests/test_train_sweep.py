"""train.sweep: the sweep file is checked before anything runs, variants run in dependency order with the right
commands, finished steps are skipped, and the summary table is built from the result files.

Run: .venv/bin/python -m pytest tests/test_train_sweep.py -q
"""

import json

import pytest
import yaml

import train.sweep as sweep


@pytest.fixture
def spec_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "base.yaml").write_text("loss: sft\n")
    spec = {"name": "s", "base": "base.yaml", "set": {"steps": 3, "pack": True},
            "eval": {"suites": "simple_python", "limit": 5},
            "variants": {"a": {"learning_rate": 1e-4}, "b": {"from": "a", "loss": "dft"}, "c": {"pack": False}}}
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


def test_commands_and_order(spec_file):
    spec = sweep.load_sweep(spec_file)
    assert sweep.order(spec, ["b"]) == ["a", "b"]  # b starts from a's model
    cmds = sweep.commands(spec, "b", python="py")
    assert cmds["train"][:5] == ["py", "-m", "train.dft", "--config", "base.yaml"]
    assert "--model" in cmds["train"] and cmds["train"][cmds["train"].index("--model") + 1].endswith("s/a/model")
    assert "--pack" in cmds["train"] and "--no-pack" in sweep.commands(spec, "c")["train"]
    assert cmds["eval"][cmds["eval"].index("--limit") + 1] == "5"
    assert cmds["export"][-1].endswith("b/model-q8_0.gguf")


@pytest.mark.parametrize("edit, message", [
    ({"variants": {"a": {"learning_rat": 1}}}, r"variants\.a \(train\.dft settings.*'learning_rat' \(did you mean "
                                              r"'learning_rate'\?\)"),
    ({"variants": {"a": {"from": "zz"}}}, "not a variant"),
    ({"eval": {"suite": "x"}}, r"eval: unknown config key\(s\) 'suite' \(did you mean 'suites'\?\)"),
    ({"base": "missing.yaml"}, "does not exist"),
    ({"colour": 1}, r"sweep file .*: unknown config key\(s\) 'colour'"),
    ({"set": [1]}, r"'set': \[1\] is not a valid dict"),
    ({"variants": {"a": 3}}, r"variants\.a: give a mapping"),
    ({"variants": ["a", "b"]}, r"sweep file .*s\.yaml: config key 'variants'"),     # the file is named
    ({"base": True}, r"sweep file .*: config key 'base': True is not a valid str"),
    ({"eval": {"limit": "abc"}}, r"'eval\.limit': 'abc' is not a valid int"),
    ({"variants": {"a": {"learning_rate": "abc"}}}, r"'variants\.a\.learning_rate': 'abc' is not a valid float"),
])
def test_bad_sweep_files_are_named_errors(spec_file, edit, message):
    spec = yaml.safe_load(spec_file.read_text())
    spec.update(edit)
    spec_file.write_text(yaml.safe_dump(spec))
    with pytest.raises(sweep.SweepError, match=message):
        sweep.load_sweep(spec_file)


def test_empty_sections_are_allowed(spec_file):
    spec = yaml.safe_load(spec_file.read_text())
    spec_file.write_text(yaml.safe_dump({**spec, "set": None, "eval": None}))
    loaded = sweep.load_sweep(spec_file)
    assert loaded["set"] == {} and loaded["eval"] == {}


def test_cycle_and_unknown_only_are_errors(spec_file):
    spec = sweep.load_sweep(spec_file)
    spec["variants"]["a"]["from"] = "b"
    with pytest.raises(sweep.SweepError, match="start from each other"):
        sweep.order(spec, None)
    with pytest.raises(sweep.SweepError, match="not a variant"):
        sweep.order(sweep.load_sweep(spec_file), ["zz"])


def test_finished_steps_are_skipped_and_summarised(spec_file, capsys):
    spec = sweep.load_sweep(spec_file)
    run = sweep.RUNS / "s" / "a"
    (run / "model").mkdir(parents=True)
    (run / "summary.json").write_text(json.dumps({"steps": 3, "best_step": 2, "best_val_ce": 0.5,
                                                  "prose_ppl_before": 65.0, "prose_ppl_after": 80.0,
                                                  "train_seconds": 120.0}))
    (run / "model-q8_0.gguf").write_bytes(b"x")
    (run / "model" / "call_threshold.json").write_text('{"call_threshold": 0.3}')
    res = sweep.RESULTS / "s"
    res.mkdir(parents=True)
    (res / "a.json").write_text(json.dumps({"complete": True, "suites": {"simple_python": {"metrics": {
        "n": 5, "accuracy": 0.4, "accuracy_ci95": [0.0, 0.8], "valid_rate": 0.8, "call_rate": 1.0},
        "at_threshold": {"threshold": 0.3, "declined": ["x"], "metrics": {
            "n": 5, "accuracy": 0.2, "accuracy_ci95": [0.0, 0.6], "valid_rate": 0.6, "call_rate": 0.8}}}}}))
    assert all(sweep.done(spec, "a", s) for s in ("train", "export", "eval"))
    assert not sweep.done(spec, "b", "train")
    assert sweep.main([str(spec_file), "--only", "a"]) == 0
    assert "train: done, skipped" in capsys.readouterr().out
    md = (res / "summary.md").read_text()
    assert (res / "a" / "summary.json").read_text() == (run / "summary.json").read_text()  # provenance kept
    assert (res / "a" / "model" / "call_threshold.json").is_file() and not (res / "a" / "model-q8_0.gguf").exists()
    assert "| a | 0.500 (2) | 65 -> 80 | 2 | 40.0 / 80 |" in md
    assert md.index("| a (threshold 0.3) | 0.500 (2) | 65 -> 80 | 2 | 20.0 / 60 |") > md.index("At each variant's own call threshold")
    assert json.loads((res / "summary.json").read_text())["variants"]["b"] == {"settings": {"from": "a",
                                                                                          "loss": "dft"}}


def test_a_dry_run_prints_and_writes_nothing(spec_file, capsys):
    assert sweep.main([str(spec_file), "--dry-run"]) == 0
    assert "train: " in capsys.readouterr().out and not (sweep.RESULTS / "s").exists()
