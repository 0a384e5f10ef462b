"""Benchmark: the compiled gradient kernels (nanoagent/native) against the MLX ops they replaced, one op at a time.

    .venv/bin/python -m bench.native_grads          # about a minute; needs `python -m nanoagent.native.build`

Times, as the median of 5 evaluations after one warm-up, in one process: the softmax's vjp on attention-sized scores
(MLX ops y * (c - sum(c * y)) against `softmax_grad`), logsumexp's vjp over the vocabulary (the native softmax times
the cotangent against `logsumexp_grad`), and SwiGLU's vjp on MLP-sized activations (MLX ops around the native
sigmoid against `swiglu_grad`). Writes bench/results/native_grads.json. Left out: a whole training step
(bench/train_speed.py --parts real).
"""

from __future__ import annotations

import argparse
import statistics
import time

import nanoagent  # noqa: F401  (OpenBLAS before mlx)

import mlx.core as mx

from bench.machine import write_result
from nanoagent import native


def median_ms(f, n: int = 5) -> float:
    mx.eval(f())
    times = []
    for _ in range(n):
        t = time.perf_counter()
        mx.eval(f())
        times.append(time.perf_counter() - t)
    return round(statistics.median(times) * 1000, 2)


def main(argv=None) -> None:
    argparse.ArgumentParser(prog="python -m bench.native_grads", description=__doc__.split("\n\n")[0]).parse_args(argv)
    ops = native.load()
    if ops is None:
        raise SystemExit(f"the native ops are not built here: run `{native.BUILD_COMMAND}`")
    key = mx.random.key(0)
    y = mx.softmax(mx.random.normal((4, 3, 3, 256, 1024), key=key), axis=-1)
    c = mx.random.normal(y.shape, key=mx.random.key(1))
    x = mx.random.normal((2, 1024, 49152), key=mx.random.key(2))
    lse, cl = mx.logsumexp(x, axis=-1), mx.random.normal((2, 1024), key=mx.random.key(3))
    g = mx.random.normal((4, 1024, 1536), key=mx.random.key(4)) * 3
    u, cg = mx.random.normal(g.shape, key=mx.random.key(5)), mx.random.normal(g.shape, key=mx.random.key(6))

    def swiglu_mlx():
        s = ops.sigmoid(g)
        silu = g * s
        return cg * u * (s + silu * (1.0 - s)), cg * silu

    cases = {
        "softmax_vjp_4x3x3x256x1024": (lambda: y * (c - (c * y).sum(-1, keepdims=True)),
                                       lambda: ops.softmax_grad(y, c)),
        "logsumexp_vjp_2x1024x49152": (lambda: ops.softmax(x) * cl[..., None], lambda: ops.logsumexp_grad(x, lse, cl)),
        "swiglu_vjp_4x1024x1536": (swiglu_mlx, lambda: ops.swiglu_grad(g, u, cg)),
    }
    out = {}
    for name, (before, fused) in cases.items():
        a, b = median_ms(before), median_ms(fused)
        out[name] = {"mlx_ops_ms": a, "fused_ms": b, "speedup": round(a / b, 2)}
        print(name, out[name], flush=True)
    write_result("native_grads", {"command": "python -m bench.native_grads", "ops": out})


if __name__ == "__main__":
    main()
