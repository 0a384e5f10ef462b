"""scripts/cpu_arm.sh: one CPU arm (native ops, train, export, one result file per suite) runs its stages in order,
keeps what is finished when run again, retries only what failed, and stops at a failed training with its log's end.

A stand-in `python` (PYTHON=...) records each call and writes the file that stage would write, so the test runs in
a second; the stages themselves are tested in their own modules.

Run: .venv/bin/python -m pytest tests/test_cpu_arm.py -q
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "cpu_arm.sh"

STUB = r"""#!/usr/bin/env bash
echo "$*" >> calls.log
module="$2"; shift 2
flag() { local want="$1"; shift; while [ $# -gt 0 ]; do [ "$1" = "$want" ] && { echo "$2"; return; }; shift; done; }
case "$module" in
  nanoagent.native.build)
    [ "${STUB_FAIL:-}" = native ] && { echo "error: cmake not found"; exit 2; } ;;
  train.dft)
    [ "${STUB_FAIL:-}" = train ] && { echo "boom: no data"; exit 4; }
    run="$(flag --run-dir "$@")"; mkdir -p "$run/model"; echo '{}' > "$run/summary.json" ;;
  export.gguf)
    if [ "${STUB_FAIL:-}" = export ]; then echo "no model folder"; exit 5; fi
    out="$(flag --out "$@")"; echo gguf > "$out"; if [ "${STUB_FAIL:-}" = parity ]; then exit 3; fi ;;
  eval.toolcall)
    suite="$(flag --suites "$@")"
    if [ "${STUB_FAIL:-}" = "$suite" ]; then exit 1; fi
    echo '{}' > "$(flag --out-dir "$@")/$(flag --name "$@").json" ;;
esac
"""


def arm(tmp: Path, *args: str, fail: str = "") -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHON": str(tmp / "python"), "CPU_ARM_CONFIG": "cfg.yaml",
           "CPU_ARM_SUITES": "simple_python,parallel", "CPU_ARM_OUT": "results", "STUB_FAIL": fail}
    return subprocess.run(["bash", str(SCRIPT), *args], cwd=tmp, env=env, capture_output=True, text=True, timeout=60)


def calls(tmp: Path) -> list[str]:
    log = tmp / "calls.log"
    lines = log.read_text().splitlines() if log.exists() else []
    log.unlink(missing_ok=True)
    return [" ".join(line.split()[:2]) for line in lines]


def setup(tmp: Path) -> Path:
    (tmp / "python").write_text(STUB)
    (tmp / "python").chmod(0o755)
    (tmp / "cfg.yaml").write_text("steps: 1\n")
    return tmp


def test_stages_run_in_order_and_a_rerun_keeps_them(tmp_path):
    tmp = setup(tmp_path)
    r = arm(tmp, "a1", "--seed", "1")
    assert r.returncode == 0, r.stdout + r.stderr
    assert calls(tmp) == ["-m nanoagent.native.build", "-m train.dft", "-m export.gguf", "-m eval.toolcall",
                          "-m eval.toolcall"]
    assert (tmp / "runs/a1/summary.json").exists() and (tmp / "exports/a1-q8_0.gguf").exists()
    assert sorted(p.name for p in (tmp / "results").iterdir()) == [
        "toolcall_a1-q8_0-parallel.json", "toolcall_a1-q8_0-simple_python.json"]
    assert "done: 2 suites" in r.stdout
    r = arm(tmp, "a1", "--seed", "1")
    assert r.returncode == 0 and calls(tmp) == []
    assert "training already finished" in r.stdout and "parallel already scored" in r.stdout


def test_train_flags_reach_train_dft(tmp_path):
    tmp = setup(tmp_path)
    assert arm(tmp, "a2", "--seed", "3", "--threshold-n", "0").returncode == 0
    train = (tmp / "calls.log").read_text().splitlines()[1]
    assert train.split() == ["-m", "train.dft", "--config", "cfg.yaml", "--run-dir", "runs/a2", "--no-progress",
                             "--seed", "3", "--threshold-n", "0"]


def test_a_failed_suite_is_counted_and_retried_alone(tmp_path):
    tmp = setup(tmp_path)
    r = arm(tmp, "a3", fail="parallel")
    assert r.returncode == 1 and "1 of 2 suites failed" in r.stdout
    assert not (tmp / "results/toolcall_a3-q8_0-parallel.json").exists()
    calls(tmp)
    r = arm(tmp, "a3")
    assert r.returncode == 0 and calls(tmp) == ["-m eval.toolcall"]


def test_a_failed_training_stops_the_arm_with_its_log(tmp_path):
    tmp = setup(tmp_path)
    r = arm(tmp, "a4", fail="train")
    assert r.returncode == 4 and "training failed (rc 4)" in r.stdout and "boom: no data" in r.stdout
    assert calls(tmp) == ["-m nanoagent.native.build", "-m train.dft"] and not (tmp / "exports/a4-q8_0.gguf").exists()


def test_a_parity_warning_still_scores(tmp_path):
    tmp = setup(tmp_path)
    r = arm(tmp, "a5", fail="parity")
    assert r.returncode == 0 and "parity warned" in r.stdout and len(calls(tmp)) == 5


def test_a_failed_export_stops_before_scoring(tmp_path):
    tmp = setup(tmp_path)
    r = arm(tmp, "a6", fail="export")
    assert r.returncode == 5 and "export failed (rc 5)" in r.stdout and "no model folder" in r.stdout
    assert calls(tmp) == ["-m nanoagent.native.build", "-m train.dft", "-m export.gguf"]


def test_native_ops_are_built_first_and_a_failed_build_only_slows_training(tmp_path):
    tmp = setup(tmp_path)
    r = arm(tmp, "a7", fail="native")
    assert r.returncode == 0 and "native ops not built" in r.stdout
    assert "cmake not found" in (tmp / "runs/a7-logs/native.log").read_text()
    assert calls(tmp)[:2] == ["-m nanoagent.native.build", "-m train.dft"]


def test_bad_calls_get_the_usage(tmp_path):
    tmp = setup(tmp_path)
    assert arm(tmp).returncode == 2
    r = arm(tmp, "../escape")
    assert r.returncode == 2 and "usage" in r.stdout
    (tmp / "cfg.yaml").unlink()
    r = arm(tmp, "a7")
    assert r.returncode == 2 and "no config cfg.yaml" in r.stdout
