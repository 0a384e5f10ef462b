"""Exp-family activations in numpy while MLX generates on the CPU: the MLP's SiLU gate and the batch's softmax.

MLX's CPU backend runs exp, sigmoid and softmax one element at a time on x86 (exp takes 33x numpy's time in
bench/results/mlx_cpu_ops.json) and each such op carries a fixed cost on top. In a decode step those ops
are a large share of the time. Handing their inputs to numpy and the result back costs one evaluation of the graph
so far and two copies of a small array. Measured on the embedded SmolLM2-135M (2-core AMD EPYC, 491-token prompt):

    decode step                       MLX ops     numpy activations
    1 row  (mlx-lm attention)         51 ms       46 ms        (SiLU gate only)
    8 rows (shared_prefix attention)  104 ms      79 ms        (SiLU gate and attention softmax)

with logits within 4e-5 of the MLX-only step.

It applies only where it helps and is safe: on the CPU device (on Metal the round trip would copy from the GPU at
every layer), during generation (numpy breaks the graph, so no gradient flows; trainers never enter the context),
for float32 activations (numpy has no bfloat16), and for mlx-lm's llama MLP (gate, up, down projections, SiLU).
Elsewhere `numpy_activations` does nothing and `softmax` is MLX's own.

Usage:
    with numpy_activations(model):          # swaps each layer's MLP; restores on exit, errors included
        ...generate...
    w = softmax(scores)                      # last axis; numpy on the CPU for float32, else mx.softmax(precise)

Left out: the attention softmax inside mlx-lm's fused `scaled_dot_product_attention` (one row's attention is
small; the batch path computes its own, see shared_prefix.py).
"""

from __future__ import annotations

from contextlib import contextmanager

import mlx.core as mx
import mlx.nn as nn
import numpy as np


def on_cpu() -> bool:
    return mx.default_device() == mx.cpu


def _numpy_ok(a: mx.array) -> bool:
    return a.dtype == mx.float32 and on_cpu()


def softmax(scores: mx.array) -> mx.array:
    """Softmax over the last axis (float32 math either way)."""
    if not _numpy_ok(scores):
        return mx.softmax(scores, axis=-1, precise=True)
    s = np.array(scores)
    s -= s.max(axis=-1, keepdims=True)
    np.exp(s, out=s)
    s /= s.sum(axis=-1, keepdims=True)
    return mx.array(s)


class NumpySwiGLU(nn.Module):
    """A llama MLP, `down(silu(gate(x)) * up(x))`, with the gating in numpy."""

    def __init__(self, mlp):
        super().__init__()
        self.mlp = mlp

    def __call__(self, x: mx.array) -> mx.array:
        m = self.mlp
        gate, up = m.gate_proj(x), m.up_proj(x)
        if not _numpy_ok(gate):
            return m.down_proj(nn.silu(gate) * up)
        mx.eval(gate, up)
        g, u = np.array(gate), np.array(up)
        with np.errstate(over="ignore"):  # exp(-g) overflows to inf for very negative g: silu(g) -> -0.0, correct
            h = g / (1.0 + np.exp(-g)) * u
        return m.down_proj(mx.array(h))


def supports(model) -> bool:
    """True when every layer's MLP is mlx-lm's llama MLP (what NumpySwiGLU computes)."""
    from mlx_lm.models.llama import MLP

    layers = getattr(model, "layers", None)
    return bool(layers) and all(type(getattr(layer, "mlp", None)) is MLP for layer in layers)


@contextmanager
def numpy_activations(model):
    """Each layer's MLP gated in numpy while inside, when on the CPU and `supports(model)`; restored on exit."""
    if not (on_cpu() and supports(model)):
        yield
        return
    layers = list(model.layers)
    saved = [layer.mlp for layer in layers]
    try:
        for layer in layers:
            layer.mlp = NumpySwiGLU(layer.mlp)
        yield
    finally:
        for layer, mlp in zip(layers, saved):
            layer.mlp = mlp
