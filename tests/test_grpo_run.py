"""`python -m train.grpo` end to end on a tiny random model: bad input fails early, a run updates, saves, resumes.

Run: .venv/bin/python -m pytest -q tests/test_grpo_run.py
"""

import nanoagent  # noqa: F401

import json
from pathlib import Path

import pytest

import train.grpo_rollout as rollout_mod
from nanoagent.testing import save_tiny_model
from train.config import ConfigError
from train.grpo import main, run
from train.grpo_config import load_grpo_config

# coding tasks only (the tool-call family and the mix: tests/test_grpo_toolcall.py)
# MLX rollouts here (the path on Metal); the tool-call family's runs (test_grpo_toolcall.py) take the CPU default,
# llama.cpp, and test_grpo_engine.py runs it explicitly.
TINY = ["--steps", "2", "--group-size", "2", "--tasks-per-step", "1", "--max-turns", "1",
        "--max-tokens-per-turn", "8", "--save-every", "1", "--no-progress", "--inner-steps", "2",
        "--task-mix", "coding=1", "--rollout-engine", "mlx"]


@pytest.mark.parametrize("argv,match", [
    (["--group-size", "1"], "at least 2"),
    (["--rewards", "tests=lots"], "not a number"),
    (["--rewards", "style=1"], "unknown reward"),
    (["--grop-size", "4"], None),
])
def test_bad_config(argv, match, capsys):
    if match is None:  # argparse refuses unknown flags itself
        with pytest.raises(SystemExit):
            load_grpo_config(argv)
        return
    with pytest.raises(ConfigError, match=match):
        load_grpo_config(argv)


def test_yaml_then_flags(tmp_path):
    p = tmp_path / "g.yaml"
    p.write_text("group_size: 6\nrewards: {tests: 1, valid_calls: 0.5}\nsteps: 3\n")
    cfg = load_grpo_config(["--config", str(p), "--steps", "4"])
    assert (cfg.group_size, cfg.steps, cfg.rewards) == (6, 4, {"tests": 1.0, "valid_calls": 0.5})
    p.write_text("group_sise: 6\n")
    with pytest.raises(ConfigError, match="did you mean 'group_size'"):
        load_grpo_config(["--config", str(p)])


@pytest.fixture
def no_rollouts(monkeypatch):
    def boom(*a, **k):
        raise AssertionError("a rollout started before the input was checked")
    monkeypatch.setattr(rollout_mod, "rollout_group", boom)


def test_errors_before_any_rollout(tmp_path, capsys, no_rollouts):
    assert main(["--model", str(tmp_path / "missing-model"), "--run-dir", str(tmp_path / "r")] + TINY) == 2
    assert "error:" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["--tasks", str(tmp_path / "empty"), "--run-dir", str(tmp_path / "r2")] + TINY) == 2
    assert "holds no tasks" in capsys.readouterr().err


def test_tiny_run_updates_saves_and_resumes(tmp_path, spread_rewards):
    model_dir = save_tiny_model(tmp_path / "tiny")
    run_dir = tmp_path / "run"
    argv = ["--model", str(model_dir), "--run-dir", str(run_dir)] + TINY
    run(load_grpo_config(argv))
    rows = [json.loads(x) for x in (run_dir / "metrics.jsonl").read_text().splitlines()]
    train_rows = [r for r in rows if r["kind"] == "train"]
    assert [r["step"] for r in train_rows] == [1, 2]
    assert all(not r["skipped_update"] and r["loss_tokens"] > 0 and r["zero_adv_share"] == 0 for r in train_rows)
    for key in ("reward_coding_tests_mean", "reward_coding_valid_calls_std", "valid_call_rate", "test_pass_rate",
                "tokens_generated", "rollout_s", "update_s", "coding_zero_adv_share"):
        assert key in train_rows[0]
    assert train_rows[0]["coding_groups"] == 1 and not any(k.startswith("reward_toolcall") for k in train_rows[0])
    assert (run_dir / "grpo.png").stat().st_size > 0 and (run_dir / "config.yaml").is_file()
    traj_lines = (run_dir / "trajectories" / "step_0000001.jsonl").read_text().splitlines()
    assert len(traj_lines) == 2 and "trajectory" in json.loads(traj_lines[0])

    from nanoagent.models import load
    model, tok = load(str(run_dir / "model"))
    assert model is not None

    run(load_grpo_config(["--model", str(model_dir), "--run-dir", str(run_dir)] + TINY[:0] +
                         ["--steps", "3"] + TINY[2:]))
    rows = [json.loads(x) for x in (run_dir / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows if r["kind"] == "train"] == [1, 2, 3]

    # resuming keeps the run's own settings: what is not given comes from its config.yaml, not today's defaults
    from train.grpo_config import resume_settings
    again = ["--run-dir", str(run_dir), "--steps", "4"]
    cfg = resume_settings(load_grpo_config(again), again)
    assert cfg.task_mix == {"coding": 1.0} and cfg.group_size == 2 and cfg.steps == 4 and cfg.model == str(model_dir)
    changed = again + ["--loss", "dr_grpo"]
    with pytest.raises(ConfigError, match="loss: the run has 'grpo', now 'dr_grpo'"):
        resume_settings(load_grpo_config(changed), changed)
    assert resume_settings(load_grpo_config(changed + ["--force-config"]), changed + ["--force-config"]).loss == \
        "dr_grpo"
    # a run saved before task families existed trained on coding tasks only, and keeps doing so
    import yaml
    saved = yaml.safe_load((run_dir / "config.yaml").read_text())
    assert saved["model"] == str(model_dir)  # the resolved model is saved, not None
    del saved["task_mix"]
    (run_dir / "config.yaml").write_text(yaml.safe_dump(saved))
    assert resume_settings(load_grpo_config(again), again).task_mix == {"coding": 1.0}
    mixed = again + ["--task-mix", "toolcall=1"]
    with pytest.raises(ConfigError, match="task_mix: the run has"):
        resume_settings(load_grpo_config(mixed), mixed)


def test_gradient_checkpointing_trains_on_whole_rows(tmp_path, spread_rewards, monkeypatch):
    # mx.checkpoint differentiates only its array arguments: a shared prompt's cache would lose its gradient
    import train.grpo_loss as loss_mod
    from mlx_lm.models import llama

    # mlx-lm's grad_checkpoint patches the block class for the whole process: put it back for the tests after this
    monkeypatch.setattr(llama.TransformerBlock, "__call__", llama.TransformerBlock.__call__)
    seen = []
    real = loss_mod.make_batches
    monkeypatch.setattr(loss_mod, "make_batches", lambda *a, **k: seen.append(k.get("share_prompts")) or real(*a, **k))
    model = str(save_tiny_model(tmp_path / "tiny"))
    for name, flag in (("ckpt", "--grad-checkpoint"), ("plain", "--no-grad-checkpoint")):
        run(load_grpo_config(["--model", model, "--run-dir", str(tmp_path / name)] + TINY + ["--steps", "1", flag]))
    assert seen == [False, True]


def test_crashed_group_scores_zero_and_run_goes_on(tmp_path, monkeypatch):
    model_dir = save_tiny_model(tmp_path / "tiny")

    class Broken(Exception):
        pass

    def crash(*a, **k):
        raise Broken("workspace exploded")
    monkeypatch.setattr("nanoagent.tasks.attempt.Workspace", crash)
    run_dir = tmp_path / "run"
    run(load_grpo_config(["--model", str(model_dir), "--run-dir", str(run_dir), "--no-plot"] + TINY))
    rows = [json.loads(x) for x in (run_dir / "metrics.jsonl").read_text().splitlines() if '"train"' in x]
    assert [r["crashed_rollouts"] for r in rows] == [2, 2] and all(r["group_errors"] == 1 for r in rows)
    assert all(r["reward_mean"] == 0 and r["skipped_update"] for r in rows)
    rec = json.loads((run_dir / "trajectories" / "step_0000001.jsonl").read_text().splitlines()[0])
    assert "workspace exploded" in rec["error"]


def test_default_model_is_newest_dft_run(tmp_path, monkeypatch):
    import os

    from train.grpo import resolve_model_spec
    from train.grpo_config import GRPOConfig

    monkeypatch.chdir(tmp_path)
    assert resolve_model_spec(GRPOConfig()) == "embedded"
    for i, name in enumerate(["dft-a", "my-sft", "grpo-x", "dft-unfinished"]):
        folder = tmp_path / "runs" / name / "model"
        folder.mkdir(parents=True)
        if name != "dft-unfinished":
            (folder / "config.json").write_text("{}")
        (folder.parent / "config.yaml").write_text("loss: sft\n" if name == "my-sft" else "loss: grpo\n")
        os.utime(folder, (1000 + i, 1000 + i))
    assert resolve_model_spec(GRPOConfig()) == str(Path("runs") / "my-sft" / "model")
    assert resolve_model_spec(GRPOConfig(model="x/y")) == "x/y"


def test_kl_to_the_start_model_is_logged_with_beta(tmp_path, spread_rewards):
    from nanoagent.call_threshold import FILE, save_threshold

    model = str(save_tiny_model(tmp_path / "tiny"))
    save_threshold(model, {"call_threshold": 0.4})  # chosen for the start model's weights: not the trained model's
    run(load_grpo_config(["--model", model, "--run-dir", str(tmp_path / "kl")] + TINY +
                         ["--steps", "2", "--beta", "0.1", "--learning-rate", "1e-2", "--inner-steps", "1"]))
    rows = [json.loads(x) for x in (tmp_path / "kl" / "metrics.jsonl").read_text().splitlines()]
    kl = [r["kl_to_ref"] for r in rows if r["kind"] == "train"]
    assert kl[0] == pytest.approx(0.0, abs=1e-6) and kl[-1] > 1e-6  # the start policy is the reference; then it moves
    assert not (tmp_path / "kl" / "model" / FILE).exists() and (tmp_path / "kl" / "model" / "config.json").is_file()
    run(load_grpo_config(["--model", model, "--run-dir", str(tmp_path / "plain")] + TINY + ["--steps", "1"]))
    rows = [json.loads(x) for x in (tmp_path / "plain" / "metrics.jsonl").read_text().splitlines()]
    assert all("kl_to_ref" not in r for r in rows)  # no reference model without beta
