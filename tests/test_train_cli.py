"""`python -m train.dft` end to end on a tiny model: run folder, loadable final model (fused and --no-fuse), bad
input errors, default-data build, and a real SIGKILL followed by a resume.

Run: .venv/bin/python -m pytest tests/test_train_cli.py -q
"""

import nanoagent  # noqa: F401  (OpenBLAS before mlx)

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import mlx.core as mx
import numpy as np
import pytest
import yaml

from nanoagent.testing import save_tiny_model
from train import dft

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "train_records"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return save_tiny_model(tmp_path_factory.mktemp("model") / "tiny")


def args(tiny, run_dir, *extra):
    return ["--model", str(tiny), "--data", str(FIXTURE), "--run-dir", str(run_dir), "--steps", "3",
            "--batch-size", "2", "--val-every", "2", "--save-every", "2", "--validity-n", "2",
            "--validity-max-tokens", "8", "--learning-rate", "5e-3", "--val-batches", "1", "--no-progress", *extra]


@pytest.fixture(scope="module")
def short_data(tmp_path_factory):
    """Short records without tools: cheap steps for the tests that only need many steps."""
    folder = tmp_path_factory.mktemp("short")
    rows = [{"messages": [{"role": "user", "content": f"n{i}"}, {"role": "assistant", "content": f"r{i}"}]}
            for i in range(12)]
    for name in ("train.jsonl", "valid.jsonl"):
        (folder / name).write_text("".join(json.dumps(r) + "\n" for r in rows))
    return folder


def logits(model, ids):
    return np.array(model(mx.array([ids])))


def test_end_to_end_fused_and_adapters(tiny, tmp_path, capsys):
    from mlx_lm import load as mlx_load

    from nanoagent.models import load as na_load

    assert dft.main(args(tiny, tmp_path / "fused", "--fine-tune", "lora", "--count-weight", "2",  # full: default
                         "--unlikelihood", "1", "--arg-end-weight", "2", "--no-unlikelihood-arg-ends",
                         "--progress")) == 0
    err = capsys.readouterr().err  # the steps after training have bars too, not only the training loop
    assert re.search(r"validity before: 100%.* 2/2 ", err) and re.search(r"validity after: 100%.* 2/2 ", err)
    assert re.search(r"call threshold: 100%.* 8/8 ", err)
    run = tmp_path / "fused"
    for name in ("config.yaml", "data_stats.json", "metrics.jsonl", "loss.png", "summary.json", "validity.json",
                 "model/config.json", "model/tokenizer.json", "model/model.safetensors"):
        assert (run / name).is_file(), name
    cfg = yaml.safe_load((run / "config.yaml").read_text())
    assert cfg["steps"] == 3 and cfg["batch_size"] == 2 and cfg["model"] == str(tiny)
    rows = [json.loads(ln) for ln in (run / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows if r["kind"] == "train"] == [1, 2, 3]
    assert [r["step"] for r in rows if r["kind"] == "valid"] == [0, 2, 3]
    assert all(r["tokens_per_s"] > 0 and "peak_mem_gb" in r and "lr" in r for r in rows if r["kind"] == "train")
    validity = json.loads((run / "validity.json").read_text())
    assert validity["before"]["n"] == 2 and validity["after"]["n"] == 2
    summary = json.loads((run / "summary.json").read_text())
    assert summary["prose_ppl_before"] > 1 and summary["prose_ppl_after"] > 1
    assert summary["prose_ppl_before"] != summary["prose_ppl_after"]  # measured on the base, then the trained model
    # the prose bound (1.5x the base's): kept by a blend toward the base when the tuned weights were over it
    if summary["blend_alpha"] < 1:
        assert summary["prose_ppl_tuned"] > summary["prose_bound"] >= summary["prose_ppl_after"] * (1 - 1e-4)
    else:
        assert summary["prose_ppl_after"] == pytest.approx(summary["prose_ppl_tuned"], rel=1e-4)
    stored = json.loads((run / "model" / "call_threshold.json").read_text())  # chosen on the validation split
    assert stored["chosen_on"] == "valid" and stored["n_call"] == 6 and stored["n_no_call"] == 2
    assert summary["call_threshold"] == stored["call_threshold"] and 0 < stored["call_threshold"] < 1

    fused, tok = mlx_load(str(run / "model"))
    na_model, _ = na_load(str(run / "model"))
    base, _ = mlx_load(str(tiny))
    ids = tok.encode("<|im_start|>user\nhello<|im_end|>\n")
    np.testing.assert_allclose(logits(fused, ids), logits(na_model, ids), rtol=1e-5, atol=1e-5)
    assert not np.allclose(logits(fused, ids), logits(base, ids), atol=1e-4)  # training changed the model

    # Same run with adapters kept: base weights + adapters/ load through mlx_lm and match the fused model.
    assert dft.main(args(tiny, tmp_path / "adapters", "--fine-tune", "lora", "--no-fuse", "--validity-n", "0",
                         "--no-plot", "--count-weight", "2", "--unlikelihood", "1", "--arg-end-weight", "2",
                         "--no-unlikelihood-arg-ends")) == 0
    stats = json.loads((tmp_path / "adapters" / "data_stats.json").read_text())
    assert stats["train"]["count_weighted_tokens"] > 0  # the token after each call's closing tag
    assert stats["train"]["arg_end_weighted_tokens"] >= stats["train"]["count_weighted_tokens"]  # one a call at least
    saved = yaml.safe_load((tmp_path / "adapters" / "config.yaml").read_text())
    assert saved["unlikelihood"] == 1.0 and saved["unlikelihood_arg_ends"] is False
    lines = [json.loads(x) for x in (tmp_path / "adapters" / "metrics.jsonl").read_text().splitlines()]
    vals = [x for x in lines if x.get("kind") == "valid"]
    assert vals and all(v["val_loss"] == v["val_ce"] for v in vals)  # validated on the plain SFT loss
    kept = tmp_path / "adapters" / "model"
    assert (kept / "adapters" / "adapters.safetensors").is_file()
    with_adapters, _ = mlx_load(str(kept), adapter_path=str(kept / "adapters"))
    np.testing.assert_allclose(logits(with_adapters, ids), logits(fused, ids), rtol=1e-4, atol=1e-4)
    plain, _ = mlx_load(str(kept))
    np.testing.assert_allclose(logits(plain, ids), logits(base, ids), rtol=1e-5, atol=1e-5)


def test_bad_input_fails_fast_with_a_clear_message(tiny, tmp_path, capsys):
    y = tmp_path / "c.yaml"
    y.write_text("lerning_rate: 0.1\n")
    assert dft.main(["--config", str(y)]) == 2
    assert "did you mean 'learning_rate'" in capsys.readouterr().err
    assert dft.main(args(tiny, tmp_path / "r", "--data", str(tmp_path / "nowhere"))) == 2
    assert "no such file or folder" in capsys.readouterr().err
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "train.jsonl").write_text((FIXTURE / "train.jsonl").read_text() + '{"messages": []}\n')
    assert dft.main(args(tiny, tmp_path / "r2", "--data", str(bad))) == 2
    assert "train.jsonl:17" in capsys.readouterr().err
    assert dft.main(args(tiny, tmp_path / "r3", "--max-length", "16")) == 2
    assert "no usable records" in capsys.readouterr().err


def test_default_data_is_built_when_missing(tmp_path, monkeypatch):
    """No --data and no data/default: the data stage runs as its own command (never imported), once."""
    calls = []

    def call(cmd):
        calls.append(cmd)
        out = Path(cmd[cmd.index("--out") + 1])
        out.mkdir(parents=True)
        for name in ("train.jsonl", "valid.jsonl"):
            (out / name).write_text((FIXTURE / name).read_text())
        return 0

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(dft.subprocess, "call", call)
    train, valid = dft.resolve_data(dft.DFTConfig())
    assert calls == [[sys.executable, "-m", "data_recipes.build", "--out", "data/default"]]
    assert train == Path("data/default/train.jsonl") and train.is_file() and valid.is_file()
    dft.resolve_data(dft.DFTConfig())
    assert len(calls) == 1  # built once; present data is reused
    train, _ = dft.resolve_data(dft.DFTConfig(recipe="recipes/mine.yaml"))  # a recipe has its own folder
    assert calls[-1][-4:] == ["--out", "data/mine", "--recipe", "recipes/mine.yaml"]
    assert train == Path("data/mine/train.jsonl")
    monkeypatch.setattr(dft.subprocess, "call", lambda cmd: 1)
    with pytest.raises(dft.DataError, match="the data build failed"):
        dft.resolve_data(dft.DFTConfig(recipe="other.yaml"))


def test_a_build_from_other_recipe_code_is_named(tmp_path, capsys):
    """stats.json records the paths and digest of the code that shaped the rows; train.dft warns when its
    checkout's differ."""
    import json

    from nanoagent.provenance import code_digest
    (tmp_path / "data_recipes").mkdir()
    (tmp_path / "data_recipes" / "gen.py").write_text("ROWS = 1\n")
    (tmp_path / "render.py").write_text("X = 1\n")
    paths = ["data_recipes", "render.py"]
    build = tmp_path / "data"
    build.mkdir()
    (build / "stats.json").write_text(json.dumps({"code": {"paths": paths, "digest": code_digest(tmp_path, paths)}}))
    assert dft.stale_build_warning(build, tmp_path) is None
    (tmp_path / "render.py").write_text("X = 2\n")  # a library file that shapes rows changed after the build
    msg = dft.stale_build_warning(build, tmp_path)
    assert msg and str(build) in msg and "python -m data_recipes.build --out" in msg and msg in capsys.readouterr().out
    assert dft.stale_build_warning(build, tmp_path, rank=1) == msg and capsys.readouterr().out == ""  # rank 0 says it
    (tmp_path / "render.py").write_text("X = 1\n")
    before = code_digest(tmp_path, paths)
    (tmp_path / "data_recipes" / "__pycache__").mkdir()
    (tmp_path / "data_recipes" / "__pycache__" / "gen.cpython-311.pyc").write_bytes(b"x")  # caches are not code
    assert code_digest(tmp_path, paths) == before and dft.stale_build_warning(build, tmp_path) is None
    for stats in ({}, {"code": {"digest": 5, "paths": paths}}, {"code": "x"}):  # older builds, odd files
        (build / "stats.json").write_text(json.dumps(stats))
        assert "before builds recorded their code" in dft.stale_build_warning(build, tmp_path)
    assert dft.stale_build_warning(tmp_path / "nothing", tmp_path) is None
    assert code_digest(tmp_path, ["missing"]) is None


def saved_steps(run):
    folder = run / "checkpoints"
    return [int(p.name[5:]) for p in folder.iterdir() if p.name.startswith("step_")] if folder.is_dir() else []


def test_sigkill_then_resume(tiny, tmp_path, short_data):
    run = tmp_path / "killed"
    steps = "30"
    cmd = [sys.executable, "-m", "train.dft", *args(tiny, run, "--steps", steps, "--save-every", "1", "--data",
                                                      str(short_data), "--val-every", "0", "--validity-n", "0")]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 90
        while time.time() < deadline and not saved_steps(run):
            time.sleep(0.1)
        assert saved_steps(run), "no checkpoint appeared"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert max(saved_steps(run)) < 30
    assert dft.main(args(tiny, run, "--steps", steps, "--save-every", "10", "--val-every", "0", "--data",
                         str(short_data), "--validity-n", "0")) == 0
    rows = [json.loads(ln) for ln in (run / "metrics.jsonl").read_text().splitlines()]
    done_steps = [r["step"] for r in rows if r["kind"] == "train"]
    assert done_steps == list(range(1, 31))  # each step once: lost work redone, nothing done twice in the record
    assert any(r["kind"] == "resume" for r in rows)
    assert json.loads((run / "summary.json").read_text())["steps"] == 30


def test_resume_keeps_the_runs_settings_and_refuses_changes(tiny, tmp_path, short_data, capsys):
    run = tmp_path / "r"
    base = ["--model", str(tiny), "--data", str(short_data), "--run-dir", str(run), "--batch-size", "2",
            "--save-every", "2", "--val-every", "0", "--validity-n", "0", "--no-progress", "--no-plot"]
    assert dft.main(base + ["--steps", "2", "--pack", "--max-length", "128", "--learning-rate", "1e-3"]) == 0
    assert "batch 2 x 128 fits" in capsys.readouterr().out  # the memory line (train/memory_fit.py)
    config = (run / "config.yaml").read_text()
    # an unsafe change is refused, naming the setting and both values, and the folder is left as it was
    assert dft.main(base + ["--steps", "4", "--learning-rate", "5e-3"]) == 2
    err = capsys.readouterr().err
    assert "learning_rate: the run has 0.001, now 0.005" in err and "--force-config" in err
    assert (run / "config.yaml").read_text() == config
    # resuming without them continues with the run's own pack / max_length / learning rate
    assert dft.main(base + ["--steps", "4"]) == 0
    resumed = yaml.safe_load((run / "config.yaml").read_text())
    assert resumed["pack"] is True and resumed["max_length"] == 128 and resumed["learning_rate"] == 1e-3
    out = capsys.readouterr().out
    assert resumed["steps"] == 4 and "resuming" in out and "resumed run keeps its batch settings" in out
    # --force-config takes the new value
    assert dft.main(base + ["--steps", "6", "--learning-rate", "5e-3", "--force-config"]) == 0
    assert yaml.safe_load((run / "config.yaml").read_text())["learning_rate"] == 5e-3
    # --force-config was this command's choice, not the run's: the next resume refuses a change again
    assert dft.main(base + ["--steps", "8", "--learning-rate", "1e-3"]) == 2
    assert "learning_rate: the run has 0.005, now 0.001" in capsys.readouterr().err


def test_a_damaged_checkpoint_falls_back_or_stops_before_touching_the_run(tiny, tmp_path, short_data, capsys):
    from train.checkpoint import checkpoints

    run = tmp_path / "d"
    base = ["--model", str(tiny), "--data", str(short_data), "--run-dir", str(run), "--batch-size", "2",
            "--save-every", "2", "--val-every", "0", "--validity-n", "0", "--no-progress", "--no-plot",
            "--keep-checkpoints", "2"]
    assert dft.main(base + ["--steps", "4"]) == 0
    older, newest = checkpoints(run)
    weights = newest / "trainable.safetensors"
    weights.write_bytes(weights.read_bytes()[:100])  # truncated after the fact
    assert dft.main(base + ["--steps", "6"]) == 0
    assert f"checkpoint {newest.name} is damaged" in capsys.readouterr().err
    assert json.loads((run / "summary.json").read_text())["resumed_from"].endswith(older.name)
    for path in checkpoints(run):  # now damage every checkpoint
        (path / "state.json").write_text("{")
    stats = (run / "data_stats.json").read_bytes()
    assert dft.main(base + ["--steps", "8"]) == 2
    err = capsys.readouterr().err
    assert "every checkpoint in" in err and "--no-resume" in err
    assert (run / "data_stats.json").read_bytes() == stats


def test_a_run_the_memory_fit_shrank_resumes_with_the_same_command(tiny, tmp_path, short_data, capsys, monkeypatch):
    """The fit stores what was asked (extra.memory_fit); the same command then resumes, with the fitted batch."""
    import train.memory_fit as mf

    monkeypatch.setattr(mf, "measure", lambda *a, **k: {"before": 0.1, "grads": 0.0, "row": 1.0})
    monkeypatch.setattr(mf, "machine_memory_gb", lambda: 3.0 / 0.75)  # a budget of 3 GB: 2 rows fit, 4 do not
    run = tmp_path / "r"
    base = ["--model", str(tiny), "--data", str(short_data), "--run-dir", str(run), "--batch-size", "4",
            "--grad-accum", "1", "--max-length", "128", "--save-every", "1", "--val-every", "0", "--validity-n", "0",
            "--threshold-n", "0", "--no-progress", "--no-plot"]
    assert dft.main(base + ["--steps", "1"]) == 0
    assert "micro-batches of 2 rows with 2 accumulated (was 4 x 1" in capsys.readouterr().out
    for steps in (2, 3):  # twice: the asked values survive a resume too
        assert dft.main(base + ["--steps", str(steps)]) == 0, capsys.readouterr().err
        saved = yaml.safe_load((run / "config.yaml").read_text())
        assert (saved["batch_size"], saved["grad_accum"], saved["steps"]) == (2, 2, steps)
        assert saved["extra"]["memory_fit"] == {"asked_batch_size": 4, "asked_grad_accum": 1}
    assert "resumed run keeps its batch settings" in capsys.readouterr().out
