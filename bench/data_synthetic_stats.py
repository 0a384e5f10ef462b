"""Measure the synthetic source: catalogue size, kinds mix, tokens per record under the embedded tokenizer, and
generation speed next to its peer in the same run (rendering + tokenizing the same rows with nanoagent.render).

Run (by hand, never as a test):
    .venv/bin/python bench/data_synthetic_stats.py                # 2000 rows, seed 0, embedded tokenizer
    .venv/bin/python bench/data_synthetic_stats.py --rows 500 --tokenizer tiny
Writes bench/results/data_synthetic_stats.json with the machine's details.
Left out: model quality after training on these rows (eval's job).
"""

from __future__ import annotations

import nanoagent  # noqa: F401  (before anything that may import mlx)

import argparse
import collections
import json
import sys
import time

from data_recipes.synthetic import generate
from data_recipes.synthetic.catalogue import by_domain, catalogue
from data_recipes.synthetic.stats import summarize
from nanoagent.atomic import write_json  # noqa: E402
from nanoagent.machine import machine_info  # noqa: E402


def machine() -> dict:
    return machine_info()


def best_of(k: int, fn):
    times = []
    for _ in range(k):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--tokenizer", default="embedded", help="embedded | tiny | a model spec")
    ap.add_argument("--out", default="bench/results/data_synthetic_stats.json")
    args = ap.parse_args()

    if args.tokenizer == "tiny":
        from nanoagent.testing import tiny_tokenizer
        tok = tiny_tokenizer()
    else:
        from nanoagent.models import load_tokenizer
        tok = load_tokenizer(args.tokenizer)

    catalogue.cache_clear()
    t0 = time.perf_counter()
    tools = catalogue()
    build_s = time.perf_counter() - t0
    gen_s, records = best_of(args.repeats, lambda: list(generate(args.rows, args.seed)))
    from nanoagent.render import render
    render_s, _ = best_of(args.repeats, lambda: [render(r, tok) for r in records])
    stats = summarize(records, tok)
    param_types = collections.Counter()
    for t in tools:
        for p, _ in t.params:
            param_types["enum" if "enum" in p.schema else p.schema["type"]] += 1
    result = {
        "bench": "data_synthetic_stats", "command": " ".join([sys.executable] + sys.argv),
        "machine": machine(), "rows": args.rows, "seed": args.seed, "tokenizer": args.tokenizer,
        "catalogue": {"tools": len(tools), "domains": len(by_domain()), "build_seconds": round(build_s, 4),
                      "verbs": dict(collections.Counter(t.verb for t in tools)), "param_types": dict(param_types)},
        "sample": stats,
        "speed": {"generate_rows_per_s": round(args.rows / gen_s, 1),
                  "peer_render_tokenize_rows_per_s": round(args.rows / render_s, 1),
                  "ratio_generate_to_render": round(render_s / gen_s, 3),
                  "repeats": args.repeats, "timing": "best of repeats, single process"},
    }
    write_json(args.out, result)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
