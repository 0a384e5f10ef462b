"""Benchmark: rows/s of a full data build against the raw datasketch MinHash signature rate, same run, same texts.

Run (by hand, ~3 minutes on 2 cores; writes bench/results/data_throughput.json):
    .venv/bin/python bench/data_throughput.py                 # 100k rows, real embedded tokenizer
    .venv/bin/python bench/data_throughput.py --rows 20000 --tokenizer tiny

The corpus is xLAM-schema rows from bench/data_corpus.py (3% exact and 3% near duplicates planted) written as
JSONL; the build reads it through `datasets` and runs everything: adapter, filters with token caps, BFCL
decontamination, both dedup passes, mix, write, with `num_proc` workers. The peer is datasketch's own
`MinHash(num_perm=128)` with its default hash (sha1_hash32) over the same word 2-gram shingles (the default) of the same
dedup texts, in one process: what signing every row costs before any other work. Each of `--repeats` builds sits
between two peer measurements; the result lists every run and, at its top level, the run with the median ratio.

Left out: Hub download time (no network here) and the synthetic source.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import nanoagent  # noqa: E402,F401
import yaml  # noqa: E402
from data_corpus import machine, xlam_rows  # noqa: E402
from datasketch import MinHash  # noqa: E402

from data_recipes.adapters import ADAPTERS  # noqa: E402
from data_recipes.build import build  # noqa: E402
from data_recipes.convert import Drop  # noqa: E402
from data_recipes.dedup import dedup_text  # noqa: E402
from data_recipes.ngrams import words  # noqa: E402


def cpu_seconds() -> float:
    """CPU time of this process and its finished children (the build's workers)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def raw_signature_rate(texts: list[str], num_perm: int, shingle: int) -> tuple[float, float]:
    """(rows per wall second, rows per CPU second) of datasketch signing `texts` in this process."""
    c0 = cpu_seconds()
    t0 = time.perf_counter()
    for text in texts:
        ws = words(text)
        grams = {" ".join(ws[i:i + shingle]) for i in range(max(1, len(ws) - shingle + 1))}
        m = MinHash(num_perm=num_perm)
        m.update_batch([g.encode() for g in grams])
        m.hashvalues  # noqa: B018
    return len(texts) / (time.perf_counter() - t0), len(texts) / max(cpu_seconds() - c0, 1e-9)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--num-proc", type=int, default=2)
    ap.add_argument("--tokenizer", default="embedded", help="embedded (real SmolLM2) or tiny")
    ap.add_argument("--peer-rows", type=int, default=20_000, help="rows signed for the raw datasketch rate")
    ap.add_argument("--repeats", type=int, default=3, help="builds, each between two peer measurements")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "data_throughput.json"))
    args = ap.parse_args(argv)

    rows = xlam_rows(args.rows, seed=0)
    texts = []
    for row in rows[:args.peer_rows]:
        try:
            texts.append(dedup_text(ADAPTERS["xlam"](row)))
        except Drop:
            pass
    if args.tokenizer == "tiny":
        from nanoagent.testing import tiny_tokenizer

        tok = tiny_tokenizer()
    else:
        from nanoagent.models import load_tokenizer

        tok = load_tokenizer(args.tokenizer)
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "corpus.jsonl"
        with data.open("w") as fh:
            for r in rows:
                fh.write(json.dumps(r) + "\n")
        recipe = Path(tmp) / "bench.yaml"
        recipe.write_text(yaml.safe_dump({"name": "bench", "hub": "offline", "num_proc": args.num_proc,
                                          "valid_fraction": 0.01, "sources": [{"id": "xlam", "path": str(data)}]}))
        for i in range(args.repeats):
            # The machine is shared: sign before and after each build and compare against the mean of the two.
            peer_before = raw_signature_rate(texts, 128, 2)
            c0, t0 = cpu_seconds(), time.perf_counter()
            out = build(recipe, tokenizer=tok, out=str(Path(tmp) / f"out{i}"), quiet=True)
            wall, cpu = time.perf_counter() - t0, cpu_seconds() - c0
            peer_after = raw_signature_rate(texts, 128, 2)
            stats = json.loads((out / "stats.json").read_text())
            peer = (peer_before[0] + peer_after[0]) / 2
            peer_cpu = (peer_before[1] + peer_after[1]) / 2
            runs.append({
                "build_wall_s": round(wall, 2), "build_rows_per_s": round(args.rows / wall, 1),
                "peer_datasketch_signature_rows_per_s": round(peer, 1),
                "peer_before_after_rows_per_s": [round(peer_before[0], 1), round(peer_after[0], 1)],
                "build_cpu_s": round(cpu, 2), "build_rows_per_cpu_s": round(args.rows / cpu, 1),
                "peer_rows_per_cpu_s": round(peer_cpu, 1),
                "cpu_cost_ratio_peer_to_build": round((args.rows / cpu) / peer_cpu, 3),
                "ratio_build_to_peer": round(args.rows / wall / peer, 3), "build_timings_s": stats["timings_s"],
            })
            print(f"run {i + 1}/{args.repeats}: {runs[-1]['build_rows_per_s']} rows/s, peer "
                  f"{runs[-1]['peer_datasketch_signature_rows_per_s']}, ratio {runs[-1]['ratio_build_to_peer']}",
                  file=sys.stderr)
    median = sorted(runs, key=lambda r: r["ratio_build_to_peer"])[len(runs) // 2]
    result = {
        "benchmark": "data_throughput", "machine": machine(),
        "command": "python bench/data_throughput.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "rows": args.rows, "num_proc": args.num_proc, "tokenizer": args.tokenizer, "peer_rows_signed": len(texts),
        "load_average_1_5_15": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "target_ratio": 0.5, "ratios_of_runs": [r["ratio_build_to_peer"] for r in runs],
        **median,  # the run with the median ratio
        "train_rows": stats["outputs"]["train"], "source_stats": stats["sources"]["xlam"], "runs": runs,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps({k: result[k] for k in ("build_rows_per_s", "peer_datasketch_signature_rows_per_s",
                                             "ratio_build_to_peer", "ratios_of_runs", "build_rows_per_cpu_s",
                                             "peer_rows_per_cpu_s", "cpu_cost_ratio_peer_to_build",
                                             "load_average_1_5_15", "build_timings_s")}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
