"""scripts/gpu_sweep.sh: arms start in the background, `pack` collects every arm's state and logs into $OUT; and
scripts/gpu_bundle.sh refuses a piece size it cannot split by.

No GPU here: each arm's gpu_job.sh stops at once on a bundle folder that holds no pieces, which is enough to check
that the arms start, finish and are packed, and that bad calls get their usage.

Run: .venv/bin/python -m pytest tests/test_gpu_sweep.py -q
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def sweep(*args, out: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "scripts/gpu_sweep.sh", *args], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "OUT": str(out)}, timeout=120)


def test_arms_start_finish_and_are_packed(tmp_path):
    prefix = f"test{os.getpid()}"
    try:
        r = sweep("start", str(tmp_path / "no-bundle"), prefix, "train/configs/quality-cpu-full.yaml",
                  "a:5:--seed=1,--threshold-n=0", "b:10", out=tmp_path)
        assert r.returncode == 0 and "started 2 arms" in r.stdout and "60 GB each" in r.stdout
        r = sweep("pack", prefix, "60", out=tmp_path)
        assert r.returncode == 0, r.stderr
        assert r.stdout.count("done, rc 1") == 2 and "all done" in r.stdout
        with tarfile.open(tmp_path / f"{prefix}.tgz") as tar:
            logs = {Path(m.name).name: tar.extractfile(m).read().decode() for m in tar.getmembers() if m.isfile()}
        assert set(logs) == {f"{prefix}-a-job.log", f"{prefix}-b-job.log"}
        assert all("no " in text and "part.*" in text for text in logs.values())
    finally:
        shutil.rmtree(f"/tmp/{prefix}-sweep", ignore_errors=True)
        shutil.rmtree(f"/tmp/{prefix}-keep", ignore_errors=True)


def test_bad_calls_get_the_usage(tmp_path):
    assert sweep("start", "x", out=tmp_path).returncode == 2
    r = sweep("start", "x", "bad", "cfg.yaml", "arm-without-steps", out=tmp_path)
    assert r.returncode == 2 and "NAME:STEPS" in r.stdout
    r = sweep("pack", "never-started-sweep", "1", out=tmp_path)
    assert r.returncode == 1 and "start it first" in r.stdout
    r = sweep("bogus", out=tmp_path)
    assert r.returncode == 2 and "usage" in r.stdout


def test_bundle_pieces_are_whole_megabytes(tmp_path):
    r = subprocess.run(["bash", "scripts/gpu_bundle.sh", "data/default", str(tmp_path / "b"), "60.5"], cwd=ROOT,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "whole megabytes" in r.stdout and not (tmp_path / "b").exists()
