"""Benchmark: tool-call eval items per second for each backend on this machine, on the same BFCL items.

Run by hand (never as a test):
    .venv/bin/python bench/eval_throughput.py --items 4 --max-tokens 48
    .venv/bin/python bench/eval_throughput.py --suite irrelevance --batch 4 --threads 1 --out-name eval_throughput

Backends: llama.cpp on the embedded Q4_1 GGUF (one item after another), MLX float32 one item after another, MLX
batched (`complete_batch`, --batch items at once). Each runs `nanoagent.scoring.run_suite` on the same first --items
items of --suite with greedy decoding, after one warm-up item. Written to bench/results/<out-name>.json with the
machine's details, the 1-minute load average before and after each backend (other work on a shared machine
slows every figure), generated tokens, and ratios against llama.cpp measured in the same run.

Left out: the OpenAI-compatible backend (it measures the server, not this machine).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import nanoagent  # noqa: F401,E402  (OpenBLAS before mlx)
from bench.machine import write_result  # noqa: E402
from nanoagent.suites import load_suite  # noqa: E402
from nanoagent.scoring import run_suite  # noqa: E402


def measure(name, backend, items, max_tokens, batch):
    run_suite(backend, items[:1], max_tokens=max_tokens, batch_size=1)  # warm-up: load, first prompt
    load_before = os.getloadavg()[0]
    t = time.perf_counter()
    result = run_suite(backend, items, max_tokens=max_tokens, batch_size=batch)
    seconds = time.perf_counter() - t
    tokens = sum(o.get("completion_tokens", 0) for o in result["items"])
    row = {"backend": name, "items": len(items), "batch": batch, "seconds": round(seconds, 2),
           "items_per_s": round(len(items) / seconds, 4), "completion_tokens": tokens,
           "tokens_per_s": round(tokens / seconds, 2), "accuracy": result["metrics"]["accuracy"],
           "load_avg_1m_before": round(load_before, 2), "load_avg_1m_after": round(os.getloadavg()[0], 2)}
    print(row, flush=True)
    return row


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--suite", default="simple_python")
    p.add_argument("--items", type=int, default=4)
    p.add_argument("--max-tokens", type=int, default=48)
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--threads", type=int, default=None, help="llama.cpp threads (default: all cores)")
    p.add_argument("--out-name", default="eval_throughput")
    args = p.parse_args(argv)
    items, _ = load_suite(args.suite, limit=args.items + 1)
    items = items[1:]  # item 0 is the warm-up
    from nanoagent.agent.backends import load_backend

    rows = []
    opts = {"n_threads": args.threads} if args.threads else {}
    rows.append(measure("llama.cpp Q4_1", load_backend("embedded-gguf", **opts), items, args.max_tokens, 1))
    mlx = load_backend("embedded")
    rows.append(measure("MLX fp32 sequential", mlx, items, args.max_tokens, 1))
    rows.append(measure(f"MLX fp32 batched x{args.batch}", mlx, items, args.max_tokens, args.batch))
    peer = rows[0]["items_per_s"]
    for r in rows:
        r["items_per_s_vs_llama_cpp"] = round(r["items_per_s"] / peer, 3)
    path = write_result(args.out_name, {"suite": args.suite, "max_tokens": args.max_tokens,
                                        "command": "bench/eval_throughput.py " + " ".join(argv or sys.argv[1:]),
                                        "rows": rows})
    print(path)


if __name__ == "__main__":
    main()
