"""Exp-family ops in numpy while MLX runs on the CPU: softmax, SwiGLU and logsumexp, with their gradients.

MLX's CPU backend evaluates exp, sigmoid and softmax one element at a time on x86: exp takes 33x numpy's time
(bench/results/mlx_cpu_ops.json), and every such op carries a fixed cost besides. In a transformer step those ops
(the attention softmax, the MLP's SiLU gate, the loss's logsumexp over the vocabulary) take a large share of the
time. Here each is an `mx.custom_function` whose forward and backward run in numpy: the input is evaluated, copied
out, computed on and copied back. Gradients are the analytic ones, written out below.

Inside `numpy_ops()`, mlx-lm's llama attention and MLP use them (nanoagent.mlx_patches swaps the module-level
`scaled_dot_product_attention` and `swiglu` that `mlx_lm.models.llama` calls, once it has checked they are there;
the parameter tree is untouched), and `softmax` and `logsumexp` choose numpy; outside it every function here is
MLX's own op. Measured on the embedded SmolLM2-135M, 2-core AMD EPYC:

    full fine-tuning, value and grad of the loss    4 x 256 tokens: 7.6 -> 5.7 s    1 x 1024: 11.2 -> 8.6 s
      its peak memory                               3.1 -> 7.9 GB                   4.0 -> 10.5 GB
    packed LoRA, 4 x 512 (the pipeline's SFT)       3 steps: 49 -> 68 s, peak memory 4.7 -> 20.5 GB
    decode step                                     1 row: 51 -> 46 ms              8 rows (shared prefix): 104 -> 79 ms

(training: two alternating runs of each, all three ops and the causal mask; decode: SwiGLU, and the softmax of
shared_prefix.py), with gradients within 2e-5 and logits within 4e-5 of MLX's own ops. Generation always uses them
on the CPU (MLXBackend); training only when asked (`train.dft --numpy-ops`), because the memory is the price: each
numpy call evaluates the graph built so far, forward and backward, where MLX alone evaluates it in one pass and
frees as it goes, and on packed LoRA batches the run was slower as well. Keeping no (L, S) matrix for the backward
(recomputing the weights) did not lower the memory; moving the attention's products into numpy too was slower
(numpy's BLAS threads and MLX's competed for the two cores).

Active only where it helps and works: on the CPU device (on Metal the round trips would copy from the GPU), for
float32 inputs (numpy has no bfloat16; others stay in MLX), never under `mx.compile` (nothing here compiles a
model), and not when the environment sets NANOAGENT_NUMPY_OPS=0.

Usage:
    with numpy_ops():                 # the MLX backend wraps its generation in this
        logits = model(inputs)
        w = softmax(scores)           # last axis; numpy here, MLX's own outside the context
    loss_and_grad = using_numpy_ops(nn.value_and_grad(model, loss))   # train.dft --numpy-ops

Tried and dropped: an exp made of multiplies and adds (a degree-11 polynomial of x/64, squared six times), fused by
`mx.compile` into one kernel that g++ vectorises: 4x MLX's exp alone (14 against 57 ms on 2.4M floats), within 1e-5,
and it would have stayed inside MLX's graph. But MLX runs a compiled function op by op when its inputs are being
traced, which inside `value_and_grad` they always are: the same exp took 440 ms there against mx.exp's 100, and a
packed 2 x 1024 LoRA step with it (softmax, SwiGLU, logsumexp) took 24.5-27.5 s against 22-24 s (2-core EPYC, November 2026).

Left out: attention with quantized KV caches or attention sinks (mlx-lm's own function runs), models other than
mlx-lm's llama family (their modules call other functions).
"""

from __future__ import annotations

import functools
import os
from contextlib import contextmanager

import mlx.core as mx
import mlx.nn as nn
import numpy as np

from nanoagent import mlx_patches

def active() -> bool:
    return mx.default_device() == mx.cpu and os.environ.get("NANOAGENT_NUMPY_OPS", "1") != "0"


_DEPTH = [0]  # how many `numpy_ops()` contexts are open


def _use_numpy(*arrays: mx.array) -> bool:
    return _DEPTH[0] > 0 and active() and all(a.dtype == mx.float32 for a in arrays)


def _one(x):
    """custom_function passes a lone primal, cotangent or output either bare or in a 1-tuple."""
    return x[0] if isinstance(x, (list, tuple)) else x


# ----------------------------------------------------------------------------------------------------- softmax

def _softmax_np(s: np.ndarray) -> np.ndarray:
    s -= s.max(axis=-1, keepdims=True)
    np.exp(s, out=s)
    s /= s.sum(axis=-1, keepdims=True)
    return s


def _softmax_grad(output, cotangent) -> mx.array:
    y, c = np.array(_one(output)), np.array(_one(cotangent))
    c *= y
    c -= y * c.sum(axis=-1, keepdims=True)  # dx = y * (c - sum(c * y)); masked positions have y = 0
    return mx.array(c)


@mx.custom_function
def _softmax(x):
    return mx.array(_softmax_np(np.array(x)))


@_softmax.vjp
def _softmax_vjp(primals, cotangent, output):
    return (_softmax_grad(output, cotangent),)


def softmax(x: mx.array) -> mx.array:
    """Softmax over the last axis (float32 math either way)."""
    return _softmax(x) if _use_numpy(x) else mx.softmax(x, axis=-1, precise=True)


# ----------------------------------------------------------------------------------------------------- SwiGLU

@mx.custom_function
def _swiglu(gate, up):
    g, u = np.array(gate), np.array(up)
    with np.errstate(over="ignore"):  # exp(-g) overflows to inf for very negative g: silu(g) -> -0.0, correct
        return mx.array(g / (1.0 + np.exp(-g)) * u)


@_swiglu.vjp
def _swiglu_vjp(primals, cotangent, output):
    g, u, c = np.array(primals[0]), np.array(primals[1]), np.array(_one(cotangent))
    with np.errstate(over="ignore"):
        s = 1.0 / (1.0 + np.exp(-g))
    silu = g * s
    return mx.array(c * u * (s + silu * (1.0 - s))), mx.array(c * silu)  # d silu/dg = s + silu * (1 - s)


def swiglu(gate: mx.array, up: mx.array) -> mx.array:
    """silu(gate) * up, as mlx-lm's `swiglu`."""
    return _swiglu(gate, up) if _use_numpy(gate, up) else nn.silu(gate) * up


# -------------------------------------------------------------------------------------------------- logsumexp

@mx.custom_function
def _logsumexp(x):
    a = np.array(x)
    m = a.max(axis=-1, keepdims=True)
    a -= m
    np.exp(a, out=a)
    return mx.array(np.log(a.sum(axis=-1)) + m[..., 0])


@_logsumexp.vjp
def _logsumexp_vjp(primals, cotangent, output):
    a = np.array(_one(primals))
    a -= np.array(_one(output))[..., None]
    np.exp(a, out=a)  # softmax of the input
    a *= np.array(_one(cotangent))[..., None]
    return (mx.array(a),)


def logsumexp(x: mx.array) -> mx.array:
    """log(sum(exp(x))) over the last axis."""
    return _logsumexp(x) if _use_numpy(x) else mx.logsumexp(x, axis=-1)


# -------------------------------------------------------------------------------------------------- attention

@mx.custom_function
def _causal_softmax(x):
    """Softmax of (..., L, S) scores where query i sees key positions up to S - L + i (the last L are the new ones);
    the mask is applied in numpy, so MLX runs no element-wise pass over the scores for it."""
    s = np.array(x)
    length, positions = s.shape[-2:]
    hidden = np.arange(positions)[None] > (positions - length + np.arange(length))[:, None]
    np.copyto(s, -np.inf, where=hidden)
    return mx.array(_softmax_np(s))


@_causal_softmax.vjp
def _causal_softmax_vjp(primals, cotangent, output):
    return (_softmax_grad(output, cotangent),)


@mx.custom_function
def _masked_softmax(x, visible):
    s = np.array(x)
    np.copyto(s, -np.inf, where=~np.array(visible))
    return mx.array(_softmax_np(s))


@_masked_softmax.vjp
def _masked_softmax_vjp(primals, cotangent, output):
    return _softmax_grad(output, cotangent), mx.zeros(primals[1].shape, dtype=mx.bool_)  # no gradient for a mask


def attention(queries, keys, values, cache, scale: float, mask, sinks=None):
    """mlx-lm's `scaled_dot_product_attention` with the mask and softmax in numpy: (B, H, L, D) queries, grouped KV
    heads; the score and output products stay in MLX.

    `mask` as mlx-lm passes it: None, "causal" (the last L of the S key positions), or a bool/additive array that
    broadcasts to (B, H, L, S).
    """
    if sinks is not None or hasattr(cache, "bits") or not _use_numpy(queries, keys, values):
        return mlx_patches.own_attention()(queries, keys, values, cache=cache, scale=scale, mask=mask, sinks=sinks)
    b, heads, length, dim = queries.shape
    kv_heads = keys.shape[1]
    q = (queries * scale).reshape(b, kv_heads, heads // kv_heads, length, dim)
    scores = q @ keys[:, :, None].swapaxes(-1, -2)  # (B, kv_heads, group, L, S)
    if isinstance(mask, str):
        if mask != "causal":
            raise ValueError(f"unknown attention mask {mask!r}")
        weights = _causal_softmax(scores)
    elif mask is None:
        weights = _softmax(scores)
    else:
        m = mask[:, :, None] if mask.ndim == 4 else mask  # (B, H or 1, L, S) -> with the group axis
        if m.ndim == 5 and m.shape[1] == heads and heads != kv_heads:
            m = mask.reshape(mask.shape[0], kv_heads, heads // kv_heads, *mask.shape[2:])
        weights = _masked_softmax(scores, m) if m.dtype == mx.bool_ else _softmax(scores + m)
    return (weights @ values[:, :, None]).reshape(b, heads, length, dim)


def using_numpy_ops(fn):
    """`fn`, run inside `numpy_ops()` on every call (for a `value_and_grad` function: the backward runs within
    the call, so it is covered too)."""
    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        with numpy_ops():
            return fn(*args, **kwargs)

    return wrapped


@contextmanager
def numpy_ops():
    """While inside (and `active()`), mlx-lm's llama attention and MLP run their exp-family ops in numpy."""
    if not active():
        yield
        return
    _DEPTH[0] += 1
    try:
        with mlx_patches.replaced(mlx_patches.llama(), scaled_dot_product_attention=attention, swiglu=swiglu):
            yield
    finally:
        _DEPTH[0] -= 1
