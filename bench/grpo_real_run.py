"""Benchmark: one real bounded GRPO run on this machine, with held-out valid-call and pass rates before and after.

    .venv/bin/python -m bench.grpo_real_run       # config: bench/results/grpo_real_run.config.yaml

Runs `train.grpo.run` with the YAML config (start model: the newest DFT/SFT run's model, else the embedded one,
unless the YAML names one), then writes bench/results/grpo_real_run.json: the resolved config, the held-out
evaluation before and after (greedy, one rollout per task), every step's metrics and the wall time. Whatever the
135M model reaches is what is written: nothing is estimated. Left out: repeated runs / confidence intervals.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path


import nanoagent  # noqa: F401
from nanoagent.metrics import read_metrics


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="bench/results/grpo_real_run.config.yaml")
    ap.add_argument("--run-dir", default=None)
    args = ap.parse_args(argv)

    from bench.machine import write_result
    from train.grpo import run
    from train.grpo_config import load_grpo_config

    argv2 = ["--config", args.config] + (["--run-dir", args.run_dir] if args.run_dir else [])
    cfg = load_grpo_config(argv2)
    load_start = os.getloadavg()
    t = time.perf_counter()
    summary = run(cfg)
    wall = time.perf_counter() - t
    run_dir = Path(cfg.run_dir)
    metrics = read_metrics(run_dir / "metrics.jsonl", "train")
    evals = json.loads((run_dir / "eval.json").read_text()) if (run_dir / "eval.json").exists() else {}
    write_result("grpo_real_run", {
        "config_file": args.config, "config": json.loads(json.dumps(vars(cfg), default=str)),
        "wall_s": round(wall, 1), "load_average_at_start": load_start, "load_average_at_end": os.getloadavg(),
        "note": "2-core machine; the load averages say whether other jobs ran at the same time",
        "eval_before": evals.get("before"), "eval_after": evals.get("after"), "steps": metrics,
        "summary": summary})


if __name__ == "__main__":
    main()
