"""`nanoagent run` end to end with a scripted model on the shipped sample repo; bad input; config layering.

Run: .venv/bin/python -m pytest -q tests/test_agent_cli.py
"""

import nanoagent  # noqa: F401

import json
import shutil
from pathlib import Path

import pytest
import yaml

from nanoagent.cli import main
from nanoagent.toolcall import format_tool_call

SAMPLE = Path(__file__).resolve().parent.parent / "examples" / "sample_repo"
REPLIES = [
    format_tool_call("shell", {"cmd": "cat calc.py"}),
    format_tool_call("apply_patch", {"file": "calc.py", "search": "return a - b", "replace": "return a + b"}),
    format_tool_call("shell", {"cmd": "python -m unittest -q"}),
    "Fixed add() in calc.py.",
]


@pytest.fixture
def sample(tmp_path):
    repo = tmp_path / "sample_repo"
    shutil.copytree(SAMPLE, repo)
    script = tmp_path / "replies.json"
    script.write_text(json.dumps(REPLIES))
    return repo, f"scripted:{script}"


def test_run_prints_steps_diff_and_trajectory_and_leaves_repo(sample, tmp_path, capsys):
    repo, model = sample
    before = (repo / "calc.py").read_text()
    out_dir = tmp_path / "run"
    code = main(["run", "--repo", str(repo), "--model", model, "--out", str(out_dir), "--max-turns", "6",
                 "fix the failing test"])
    out = capsys.readouterr().out
    assert code == 0
    assert out.startswith("sandbox: fresh copy of the repo")
    assert "[step 1]" in out and "  shell: cat calc.py" in out and "[step 4]" in out
    assert "Patched calc.py" in out and "OK" in out
    assert "+    return a + b" in out and "exit status: answered" in out
    assert f"trajectory: {out_dir / 'trajectory.json'}" in out
    assert (repo / "calc.py").read_text() == before
    traj = json.loads((out_dir / "trajectory.json").read_text())
    assert traj["exit_status"] == "answered" and traj["meta"]["model"] == model
    assert yaml.safe_load((out_dir / "config.yaml").read_text())["max_turns"] == 6


def test_apply_writes_the_diff_back(sample, tmp_path, capsys):
    repo, model = sample
    assert main(["run", "--repo", str(repo), "--model", model, "--out", str(tmp_path / "r"), "--apply", "fix"]) == 0
    assert "return a + b" in (repo / "calc.py").read_text()
    assert "applied to" in capsys.readouterr().out


@pytest.mark.parametrize("bad", ["missing", "file"])
def test_bad_repo_is_a_clear_error(tmp_path, capsys, bad):
    path = tmp_path / "x.txt"
    if bad == "file":
        path.write_text("not a folder")
    assert main(["run", "--repo", str(path), "--model", "scripted:/nonexistent", "task"]) == 2
    err = capsys.readouterr().err
    assert "--repo" in err and ("no such folder" if bad == "missing" else "not a folder") in err


def test_config_layering_and_bad_config(sample, tmp_path, capsys):
    repo, model = sample
    cfg = tmp_path / "agent.yaml"
    cfg.write_text("max_turns: 2\ncommand_timeout: 7\n")
    out_dir = tmp_path / "run"
    code = main(["run", "--repo", str(repo), "--model", model, "--config", str(cfg), "--command-timeout", "9",
                 "--out", str(out_dir), "fix"])
    assert code == 1  # two turns are not enough: max_turns
    resolved = yaml.safe_load((out_dir / "config.yaml").read_text())
    assert resolved["max_turns"] == 2 and resolved["command_timeout"] == 9 and resolved["wall_time"] == 600.0
    assert "exit status: max_turns" in capsys.readouterr().out
    cfg.write_text("max_turn: 2\n")
    assert main(["run", "--repo", str(repo), "--model", model, "--config", str(cfg), "fix"]) == 2
    assert "unknown config key(s) 'max_turn' (did you mean 'max_turns'?)" in capsys.readouterr().err


def test_bad_scripted_model_file(sample, tmp_path, capsys):
    repo, _ = sample
    bad = tmp_path / "bad.json"
    bad.write_text('{"not": "a list"}')
    assert main(["run", "--repo", str(repo), "--model", f"scripted:{bad}", "--out", str(tmp_path / "r"), "x"]) == 2
    assert "must hold a JSON list of strings" in capsys.readouterr().err


def test_sigterm_ends_the_run_cleanly(sample, tmp_path):
    import signal
    import subprocess
    import sys
    import time

    repo, _ = sample
    script = tmp_path / "slow.json"
    script.write_text(json.dumps([format_tool_call("shell", {"cmd": "sleep 60"}), "done"]))
    out_dir = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, "-m", "nanoagent.cli", "run", "--repo", str(repo), "--model",
                             f"scripted:{script}", "--out", str(out_dir), "x"], stdout=subprocess.PIPE, text=True,
                            cwd=Path(__file__).resolve().parent.parent)
    traj_file = out_dir / "trajectory.json"
    deadline = time.monotonic() + 60
    while not traj_file.exists() and time.monotonic() < deadline:  # the run has started
        time.sleep(0.1)
    time.sleep(1.0)
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 1 and "exit status: interrupted" in out
    traj = json.loads(traj_file.read_text())
    assert traj["exit_status"] == "interrupted"
