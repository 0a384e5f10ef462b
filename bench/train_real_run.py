"""Collect one real bounded `train.dft` run on the embedded model into bench/results/train_real_run.json.

Run by hand after the run finished (the run itself is a plain `python -m train.dft ...`; its exact command is
written into the result):
    .venv/bin/python -m train.dft --loss sft --max-length 512 --batch-size 2 --steps 30 ... --run-dir runs/real
    .venv/bin/python -m bench.train_real_run runs/real --command "<the command above>" --wall-seconds 1234

The result holds the resolved config, data stats, every train/validation metric, the held-out tool-call validity
before and after (with example replies), and the run's summary, with the machine's details.
Left out: running the training itself (so a killed or resumed run is collected the same way).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import yaml

from bench.machine import write_result
from nanoagent.metrics import read_metrics


def collect(run_dir: Path) -> dict:
    rows = read_metrics(run_dir / "metrics.jsonl")
    train = [r for r in rows if r["kind"] == "train"]
    valid = [{"step": r["step"], "val_loss": r["val_loss"], "val_ce": r["val_ce"]} for r in rows
             if r["kind"] == "valid"]
    validity = json.loads((run_dir / "validity.json").read_text()) if (run_dir / "validity.json").exists() else {}
    return {
        "config": yaml.safe_load((run_dir / "config.yaml").read_text()),
        "data_stats": json.loads((run_dir / "data_stats.json").read_text()),
        "summary": json.loads((run_dir / "summary.json").read_text()),
        "validation": valid,
        "val_loss_falling": len(valid) >= 2 and valid[-1]["val_loss"] < valid[0]["val_loss"],
        "validity_before": validity.get("before"),
        "validity_after": validity.get("after"),
        "validity_rising": bool(validity.get("before") and validity.get("after")
                                and validity["after"]["validity"] > validity["before"]["validity"]),
        "train_steps": [{k: r[k] for k in ("step", "loss", "lr", "tokens_per_s", "step_seconds", "peak_mem_gb")}
                        for r in train],
        "resumes": [r for r in rows if r["kind"] == "resume"],
    }


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("run_dir", type=Path)
    p.add_argument("--command", default="", help="the train.dft command that produced the run")
    p.add_argument("--wall-seconds", type=float, default=None, help="wall time of the whole command")
    p.add_argument("--note", default="")
    p.add_argument("--out", default="train_real_run")
    args = p.parse_args(argv)
    result = {"command": args.command, "wall_seconds": args.wall_seconds, "note": args.note,
              "run_dir": str(args.run_dir), **collect(args.run_dir)}
    print("wrote", write_result(args.out, result))


if __name__ == "__main__":
    main()
