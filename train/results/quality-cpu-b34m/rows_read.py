"""Which training rows a train.dft run read: its batch plan recomputed from its config and data, counted by kind.

    python train/results/quality-cpu-b34m/rows_read.py train/results/quality-cpu-b34m/config.yaml data/b33-nt30-multi

The plan is `train.data.epoch_plan` with the run's seed, micro-batch size, packing and max length, over the build
tokenized as the trainer does; a run of S steps reads the first S x grad_accum micro-batches. The input tokens printed
should equal the run's `summary.json` `input_tokens`; if they do not, the build is not the one the run read.
Tokenizing a 50k-row build takes about a minute on two cores.
"""

import collections
import json
import sys
from pathlib import Path

import yaml

import nanoagent  # noqa: F401  (OpenBLAS before mlx)
from nanoagent.models import load_tokenizer
from train.data import epoch_plan, read_records, tokenize


def main(config_path: str, data_dir: str) -> None:
    cfg = yaml.safe_load(Path(config_path).read_text())
    path = Path(data_dir) / "train.jsonl"
    records, _ = read_records(path)
    ds = tokenize(records, load_tokenizer(cfg.get("model", "embedded")), cfg["max_length"])
    if len(ds) != len(records):
        sys.exit(f"{path}: {len(records) - len(ds)} rows dropped in tokenizing; the plan would not be the run's")
    plan = epoch_plan(ds, cfg["batch_size"], cfg["seed"], 0, cfg["pack"], cfg["max_length"])
    micro_batches = cfg["steps"] * cfg["grad_accum"]
    if micro_batches > len(plan):
        sys.exit(f"the run read {micro_batches} micro-batches, more than one epoch ({len(plan)}); this script "
                 "counts the first epoch only")
    read = [i for batch in plan[:micro_batches] for i in batch]
    kinds = collections.Counter((r.meta or {}).get("kind", "?") for r in (records[i] for i in read))
    numbers = [x for i in read for x in call_numbers(records[i])]
    whole = [x for x in numbers if 100 <= abs(x) < 1e16 and x == int(x)]
    print(json.dumps({"rows_read": len(read), "rows": len(records),
                      "input_tokens": sum(len(ds.ids[i]) - 1 for i in read), "kinds": dict(sorted(kinds.items())),
                      # session 41 (quality-cpu-round-seed2): numbers its calls carry, whole ones of 100 or more,
                      # and those of them that end in two zeros or more ("round")
                      "call_numbers": len(numbers), "whole_100_up": len(whole),
                      "round": sum(str(int(abs(x))).endswith("00") for x in whole)}))


def call_numbers(record) -> list:
    """Every number the record's calls carry, through lists and objects."""
    def walk(v):
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            yield v
        elif isinstance(v, (list, dict)):
            for x in (v.values() if isinstance(v, dict) else v):
                yield from walk(x)
    return [x for m in record.messages for c in (m.get("tool_calls") or [])
            for x in walk(c.get("function", c).get("arguments"))]


if __name__ == "__main__":
    main(*sys.argv[1:])
