"""Benchmark: where MLX's single-stream decode time goes on this CPU, op by op, against numpy on the same arrays.

Run (by hand, under a minute on 2 cores; writes bench/results/mlx_cpu_ops.json):
    .venv/bin/python -m bench.mlx_cpu_ops

Measured, each the median of --repeats runs, MLX (float32, OpenBLAS loaded) and numpy side by side:
    exp            elementwise exp over a (8, 49152) array: one batched sampling step's vocabulary
    add            elementwise add on the same array (a cheap op, for scale)
    matvec         (1, 576) @ (576, 1536): one MLP projection of one decode step
    lm_head        (1, 576) @ (576, 49152): the tied output projection of one decode step
    sdpa           mx.fast.scaled_dot_product_attention of 1 and 8 query rows over a 600-token cache (9 query
                   heads, 3 KV heads, head dim 64): one layer's attention in a decode step (MLX only)
    decode_step    one full forward of the embedded model for 1 and 8 new tokens after a 600-token prompt
These explain why single-stream MLX decode runs far under its memory-bandwidth floor here (bench/generation.py)
and what batching a GRPO group can and cannot win back. Left out: Metal (this machine has no GPU).
"""

from __future__ import annotations

import argparse
import statistics
import time

import nanoagent  # noqa: F401  (OpenBLAS before mlx)
import mlx.core as mx
import numpy as np

from bench.machine import write_result


def median_ms(fn, repeats: int) -> float:
    fn()
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return round(1000 * statistics.median(times), 3)


def op_pairs(repeats: int) -> dict:
    rng = np.random.default_rng(0)
    vocab = rng.standard_normal((8, 49152), dtype=np.float32)
    h = rng.standard_normal((1, 576), dtype=np.float32)
    w_up = rng.standard_normal((1536, 576), dtype=np.float32)
    w_head = rng.standard_normal((49152, 576), dtype=np.float32)
    mv, mh, mw_up, mw_head = mx.array(vocab), mx.array(h), mx.array(w_up), mx.array(w_head)
    mx.eval(mv, mh, mw_up, mw_head)
    pairs = {
        "exp": (lambda: mx.eval(mx.exp(mv)), lambda: np.exp(vocab)),
        "add": (lambda: mx.eval(mv + 1.0), lambda: vocab + 1.0),
        "matvec": (lambda: mx.eval(mh @ mw_up.T), lambda: h @ w_up.T),
        "lm_head": (lambda: mx.eval(mh @ mw_head.T), lambda: h @ w_head.T),
    }
    out = {}
    for name, (mlx_fn, np_fn) in pairs.items():
        a, b = median_ms(mlx_fn, repeats), median_ms(np_fn, repeats)
        out[name] = {"mlx_ms": a, "numpy_ms": b, "mlx_over_numpy": round(a / b, 2)}
        print(name, out[name], flush=True)
    return out


def attention(repeats: int, context: int = 600) -> dict:
    out = {}
    for rows in (1, 8):
        q = mx.random.normal((rows, 9, 1, 64))
        k = mx.random.normal((rows, 3, context, 64))
        v = mx.random.normal((rows, 3, context, 64))
        mx.eval(q, k, v)
        out[f"sdpa_{rows}_rows_ms"] = median_ms(
            lambda: mx.eval(mx.fast.scaled_dot_product_attention(q, k, v, scale=0.125)), repeats)
    print(out, flush=True)
    return out


def decode_steps(repeats: int, context: int = 600) -> dict:
    from mlx_lm.models.cache import KVCache, make_prompt_cache

    from nanoagent.models import load

    model, _ = load("embedded")
    prompt_cache = make_prompt_cache(model)
    model(mx.array([[5] * context]), cache=prompt_cache)
    mx.eval([c.state for c in prompt_cache])
    out = {}
    for rows in (1, 8):
        def step():
            cache = []
            for c in prompt_cache:
                k = KVCache()
                k.keys = mx.repeat(c.keys[..., :context, :], rows, axis=0)
                k.values = mx.repeat(c.values[..., :context, :], rows, axis=0)
                k.offset = context
                cache.append(k)
            mx.eval([c.state for c in cache])
            t = time.perf_counter()
            mx.eval(model(mx.array([[7]] * rows), cache=cache))
            return time.perf_counter() - t

        step()
        ms = 1000 * statistics.median(step() for _ in range(repeats))
        out[f"{rows}_rows"] = {"step_ms": round(ms, 1), "tokens_per_s": round(1000 * rows / ms, 1)}
    out["batch_8_over_1_tokens_per_s"] = round(out["8_rows"]["tokens_per_s"] / out["1_rows"]["tokens_per_s"], 2)
    print(out, flush=True)
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=15)
    args = p.parse_args(argv)
    result = {"command": "python -m bench.mlx_cpu_ops", "repeats": args.repeats, "ops": op_pairs(args.repeats),
              "attention": attention(args.repeats), "decode_step": decode_steps(max(5, args.repeats // 3))}
    print("wrote", write_result("mlx_cpu_ops", result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
