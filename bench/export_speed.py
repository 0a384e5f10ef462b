"""Generation speed of exported GGUF files against the embedded Q4_1 in llama-cpp-python, interleaved in one process.

    .venv/bin/python -m bench.export_speed Q8_0=exports/x-Q8_0.gguf F16=exports/x-F16.gguf [--threads 1] [--repeats 3]
        [--prompt-tokens 0] [--out export_speed]

All files are loaded first, then each repeat times every file in turn (greedy, fixed prompt ids, 64 new tokens), so
a burst of load from other jobs on a shared CPU hits all files alike. The peer is the embedded Q4_1 file; ratios are
file / Q4_1 on the medians. With `--prompt-tokens N` each repeat also times reading an N-token prompt (the first N
tokens of the held-out text, repeated as needed) in one batch, as an agent's tool-schema prompts are read.
bench/export.py measures the same with parity figures but one file after another.
Result: bench/results/OUT.json (default export_speed.json) with the machine's details and load averages.

Left out: thread counts above the core count.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import nanoagent  # noqa: F401
import numpy as np

from bench.machine import write_result

PROMPT_IDS = [1, 9690, 198, 19161, 253, 1837, 1932, 563, 253, 15406, 650, 1041, 2]


def main(argv=None) -> int:
    from llama_cpp import Llama

    from nanoagent.models import embedded_gguf

    p = argparse.ArgumentParser(prog="python -m bench.export_speed", description=__doc__.split("\n")[0])
    p.add_argument("files", nargs="+", help="LABEL=PATH.gguf")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--new-tokens", type=int, default=64)
    p.add_argument("--prompt-tokens", type=int, default=0, help="also time reading a prompt this long (0: no)")
    p.add_argument("--out", default="export_speed", help="result name under bench/results/")
    args = p.parse_args(argv)
    files = {"Q4_1 (embedded, peer)": str(embedded_gguf())}
    files.update(dict(f.split("=", 1) for f in args.files))
    load_before = os.getloadavg()
    n_ctx = max(512, args.prompt_tokens + 64)
    llms = {k: Llama(model_path=path, n_ctx=n_ctx, n_threads=args.threads, n_batch=max(512, args.prompt_tokens),
                     verbose=False) for k, path in files.items()}
    prompt = prompt_ids(llms["Q4_1 (embedded, peer)"], args.prompt_tokens)
    speeds: dict[str, list[float]] = {k: [] for k in files}
    reads: dict[str, list[float]] = {k: [] for k in files}
    for _ in range(args.repeats):
        for k, llm in llms.items():
            if prompt:
                llm.reset()
                t = time.perf_counter()
                llm.eval(prompt)
                reads[k].append(len(prompt) / (time.perf_counter() - t))
            llm.reset()
            llm.eval(PROMPT_IDS)
            n = llm.n_vocab()
            t = time.perf_counter()
            for _ in range(args.new_tokens):
                logits = np.ctypeslib.as_array(llm._ctx.get_logits_ith(-1), shape=(n,))
                llm.eval([int(logits.argmax())])
            speeds[k].append(args.new_tokens / (time.perf_counter() - t))
    peer = statistics.median(speeds["Q4_1 (embedded, peer)"])
    results = {k: {"path": files[k], "bytes": os.path.getsize(files[k]),
                   "generation_tokens_per_s": statistics.median(v), "all": [round(x, 2) for x in v],
                   "ratio_vs_q4_1": statistics.median(v) / peer} for k, v in speeds.items()}
    if prompt:
        peer_read = statistics.median(reads["Q4_1 (embedded, peer)"])
        for k, r in results.items():
            r.update(prompt_tokens_per_s=statistics.median(reads[k]), prompt_all=[round(x, 1) for x in reads[k]],
                     prompt_ratio_vs_q4_1=statistics.median(reads[k]) / peer_read)
    for k, r in results.items():
        read = f"  prompt {r['prompt_tokens_per_s']:7.1f} tokens/s" if prompt else ""
        print(f"{k:24s} {r['generation_tokens_per_s']:7.1f} tokens/s  x{r['ratio_vs_q4_1']:.2f}  {r['all']}{read}")
    path = write_result(args.out, {
        "command": "python -m bench.export_speed " + " ".join(argv or sys.argv[1:]), "threads": args.threads,
        "new_tokens": args.new_tokens, "prompt_tokens": len(prompt), "repeats": args.repeats,
        "load_average_before": load_before,
        "load_average_after": os.getloadavg(), "results": results})
    print(f"wrote {path}")
    return 0


def prompt_ids(llm, n: int) -> list[int]:
    """The first n tokens of the held-out text (nanoagent/heldout.py), repeated as needed; [] for n = 0."""
    from nanoagent.heldout import HELDOUT_TEXT

    if n <= 0:
        return []
    ids = llm.tokenize(HELDOUT_TEXT.encode(), add_bos=False, special=False)
    return (ids * (n // len(ids) + 1))[:n]


if __name__ == "__main__":
    raise SystemExit(main())
