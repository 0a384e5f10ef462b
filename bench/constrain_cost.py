"""Benchmark: what schema-constrained decoding (nanoagent.constrain) costs per generated token, per backend.

Run by hand (never as a test), on a quiet machine:
    .venv/bin/python -m bench.constrain_cost                          # embedded model, both backends
    .venv/bin/python -m bench.constrain_cost --gguf exports/x-q8_0.gguf --mlx runs/x/model --items 12

For each backend (llama.cpp on a GGUF; MLX on the embedded model or a folder) and each mode, the same seeded
sample of BFCL simple_python prompts is decoded greedily, one after another, after a warm-up prompt:
    off        no grammar (the peer)
    lazy       the eval/agent grammar: free text until `<tool_call>`, then the schema
    required   a call is demanded, so every token is decoded under the JSON part of the grammar
Reported: seconds per generated token (prompt processing excluded by timing a 1-token reply of the same prompt
and subtracting it), and the ratio of each mode to `off` in the same run. Target (issue 16): under 1.15.
Written to bench/results/constrain_cost.json with the machine's details.
Left out: batched MLX decoding (the same mask per row; `complete_batch` is measured by bench/generation.py).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import nanoagent  # noqa: F401  (OpenBLAS before mlx)
from bench.machine import write_result
from nanoagent.suites import load_suite
from nanoagent.agent.backends import load_backend

MODES = {"off": False, "lazy": True, "required": "required"}


def per_token(backend, items, max_tokens: int) -> dict:
    decode_s, tokens = 0.0, 0
    for it in items:
        cold(backend)
        t = time.perf_counter()
        one = backend.complete(it.messages, it.tools, max_tokens=1, temperature=0.0, seed=0)
        prefill = time.perf_counter() - t
        cold(backend)  # else the prompt comes from the first call's cache and its prefill is subtracted unpaid
        t = time.perf_counter()
        c = backend.complete(it.messages, it.tools, max_tokens=max_tokens, temperature=0.0, seed=0)
        whole = time.perf_counter() - t
        decode_s += max(whole - prefill, 0.0)
        tokens += max(c.completion_tokens - one.completion_tokens, 0)
    return {"decode_seconds": round(decode_s, 3), "tokens": tokens,
            "ms_per_token": round(1000 * decode_s / max(tokens, 1), 3)}


def cold(backend) -> None:
    """Forget the cached prompt, so the next reply pays its whole prefill (llama.cpp keeps its KV cache between
    calls; the MLX backend is loaded with reuse_prompt_cache=False)."""
    llm = getattr(backend, "llm", None)
    if llm is not None:
        llm.reset()


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--gguf", default="embedded-gguf", help="GGUF for the llama.cpp backend")
    p.add_argument("--mlx", default="embedded", help="MLX model for the MLX backend ('' to skip)")
    p.add_argument("--items", type=int, default=8)
    p.add_argument("--max-tokens", type=int, default=64)
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--out-name", default="constrain_cost")
    args = p.parse_args(argv)
    items, _ = load_suite("simple_python", limit=args.items, sample="random", seed=0)
    results = {}
    for name, spec in (("llamacpp", args.gguf), ("mlx", args.mlx)):
        if not spec:
            continue
        rows = {}
        for mode, constrain in MODES.items():
            options = {"constrain": constrain} | ({"reuse_prompt_cache": False} if name == "mlx" else {})
            if name == "llamacpp" and args.threads:
                options["n_threads"] = args.threads
            backend = load_backend(spec, **options)
            backend.complete(items[0].messages, items[0].tools, max_tokens=4, temperature=0.0, seed=0)  # warm-up
            load = os.getloadavg()[0]
            rows[mode] = {**per_token(backend, items, args.max_tokens), "load_average_before": load}
            print(name, mode, rows[mode], flush=True)
        for mode in ("lazy", "required"):
            rows[mode]["ratio_to_off"] = round(rows[mode]["ms_per_token"] / rows["off"]["ms_per_token"], 3)
        results[name] = {"model": spec, **rows}
    path = write_result(args.out_name, {"command": "python -m bench.constrain_cost " + " ".join(sys.argv[1:]),
                                        "settings": vars(args), "suite": "simple_python (seeded sample)",
                                        "results": results})
    print("wrote", path)


if __name__ == "__main__":
    main()
