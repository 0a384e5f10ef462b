"""Benchmark: one SFT step of a specialist's batch (every row under the same tool list), three ways.

    .venv/bin/python -m bench.specialist_step                        # printfarm's 8 tools, 8 rows, 3 batches
    .venv/bin/python -m bench.specialist_step --tools eval/specialist/apiary/openapi.yaml --rows 4

Builds the specialist data for `--tools` (data_recipes.specialize, a few seconds), tokenizes it in the compact
format, takes `--batches` batches of `--rows` rows that share their first turn (train.data.shared_first_turn_plan),
and times the forward and backward pass of `sft_loss` on the embedded model, full fine-tuning, for each batch:
whole rows (the peer: every row carries the tool list; micro-batches of 2, as memory allows), the tool list run
once per batch (`--share-prefix`), and that pass run forward only (`--no-prefix-grad`). Reports seconds per batch,
the ratios against whole rows, and the process's peak memory after each way (ru_maxrss: it only grows, so the ways
run lightest first). Writes bench/results/specialist_step.json.
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time

import nanoagent  # noqa: F401  (OpenBLAS before mlx)

WHOLE_ROWS = 2  # rows per micro-batch for the whole-row peer


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.specialist_step", description=__doc__.splitlines()[0])
    p.add_argument("--tools", default="eval/specialist/printfarm/tools.json")
    p.add_argument("--rows", type=int, default=8, help="rows per batch (default 8)")
    p.add_argument("--batches", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)

    import mlx.core as mx
    import mlx.nn as nn
    import numpy as np

    from bench.machine import write_result
    from data_recipes.specialize import build
    from nanoagent.models import load, load_tokenizer
    from nanoagent.numpy_ops import numpy_ops, training_kernels
    from nanoagent.packed_attention import using_packed_rows
    from nanoagent.render import FORMATS
    from train.data import load_dataset, make_batch, shared_first_turn_plan
    from train.losses import sft_loss

    with tempfile.TemporaryDirectory() as tmp:
        build(args.tools, f"{tmp}/data", rows=400, valid_rows=8, seed=args.seed, say=lambda *_: None)
        tok = load_tokenizer("embedded")
        ds = load_dataset(f"{tmp}/data/train.jsonl", tok, max_length=4096, fmt=FORMATS["compact"])
    model, _ = load("embedded")
    plan = shared_first_turn_plan(ds, args.rows, np.random.default_rng(args.seed), ds.turn_end, True)
    plan = [b for b in plan if make_batch(ds, b, args.rows, False, 4096, True).prefix is not None][:args.batches]
    step = using_packed_rows(nn.value_and_grad(model, lambda m, b: sft_loss(m, b)[0]))
    kernels = training_kernels(False, True)
    ways = {"tool list forward only": dict(share_prefix=True, prefix_grad=False),
            "tool list once per batch": dict(share_prefix=True), "whole rows": dict()}
    out = {}
    for name, how in ways.items():
        seconds = []
        for idx in plan:
            # whole rows do not fit in memory 8 at a time: micro-batches of WHOLE_ROWS, as train.dft's memory_fit
            # would split them, their times added
            chunks = [idx] if how else [idx[k:k + WHOLE_ROWS] for k in range(0, len(idx), WHOLE_ROWS)]
            t = time.perf_counter()
            for chunk in chunks:
                batch = make_batch(ds, chunk, len(chunk), False, 4096, **how)
                with numpy_ops(kernels):
                    mx.eval(step(model, batch))
            seconds.append(round(time.perf_counter() - t, 2))
        out[name] = {"seconds": seconds, "peak_rss_gb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6,
                                                               2)}
        print(f"{name:<26} {seconds} s per batch; peak RSS so far {out[name]['peak_rss_gb']} GB", flush=True)
    whole = sum(out["whole rows"]["seconds"])
    ratios = {k: round(whole / sum(v["seconds"]), 2) for k, v in out.items()}
    first = make_batch(ds, plan[0], args.rows, False, 4096, True)
    print(f"speed-up against whole rows: {ratios}")
    path = write_result("specialist_step", {"tools": args.tools, "rows": args.rows, "shared_tokens": len(first.prefix),
                                            "row_lengths": [int(make_batch(ds, b, args.rows, False, 4096, True)
                                                                .inputs.shape[1]) for b in plan],
                                            "ways": out, "speedup_vs_whole_rows": ratios})
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
