"""Data parallel: two processes on MLX's ring backend over loopback (`mlx.launch --backend ring -n 2`) give the
same losses as one process with the same global batch.

Run: .venv/bin/python -m pytest tests/test_train_distributed.py -q   (about 20-40 s: it starts 3 processes)
Skips with a reason when `mlx.launch` isn't beside the Python interpreter.
"""

import nanoagent  # noqa: F401  (OpenBLAS before mlx)

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from nanoagent.testing import save_tiny_model

ROOT = Path(__file__).resolve().parents[1]
LAUNCH = Path(sys.executable).with_name("mlx.launch")


def losses(run):
    rows = [json.loads(ln) for ln in (run / "metrics.jsonl").read_text().splitlines()]
    return ([r["loss"] for r in rows if r["kind"] == "train"], [r["val_loss"] for r in rows if r["kind"] == "valid"])


@pytest.mark.skipif(not LAUNCH.exists(), reason=f"mlx.launch not found at {LAUNCH}")
def test_two_ring_processes_match_one(tmp_path):
    tiny = save_tiny_model(tmp_path / "tiny")
    data = tmp_path / "data"
    data.mkdir()
    rows = [{"messages": [{"role": "user", "content": f"question {i} " * (1 + i % 3)},
                          {"role": "assistant", "content": f"answer {i}" * (1 + i % 2)}]} for i in range(16)]
    for name in ("train.jsonl", "valid.jsonl"):
        (data / name).write_text("".join(json.dumps(r) + "\n" for r in rows))
    common = ["-m", "train.dft", "--model", str(tiny), "--data", str(data), "--steps", "3", "--batch-size", "4",
              "--val-every", "3", "--save-every", "0", "--validity-n", "0", "--learning-rate", "3e-3",
              "--lora-dropout", "0", "--no-progress", "--no-plot", "--max-length", "128",
              "--decision-weight", "3"]  # weighted tokens: micro-batches and ranks must combine by weight
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    one = subprocess.run([sys.executable, *common, "--run-dir", str(tmp_path / "one")], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=120)
    assert one.returncode == 0, one.stderr[-2000:]
    port = str(random.randint(20000, 40000))
    two = subprocess.run([str(LAUNCH), "--backend", "ring", "-n", "2", "-p", port, "--",
                          sys.executable, *common, "--run-dir", str(tmp_path / "two")],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)
    assert two.returncode == 0, (two.stdout + two.stderr)[-2000:]
    summary = json.loads((tmp_path / "two" / "summary.json").read_text())
    assert summary["world_size"] == 2
    train1, val1 = losses(tmp_path / "one")
    train2, val2 = losses(tmp_path / "two")
    assert len(train1) == len(train2) == 3 and len(val1) == len(val2) == 2
    assert train2 == pytest.approx(train1, rel=2e-4)
    assert val2 == pytest.approx(val1, rel=2e-4)
    assert val1[-1] != pytest.approx(val1[0], rel=1e-3)  # the model did change, so equal losses mean something
