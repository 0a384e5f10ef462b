"""Exp-family ops off MLX's scalar exp on the CPU: softmax, SwiGLU and logsumexp, with their gradients, computed by
nanoagent.native's compiled kernels where they are built, else in numpy.

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

Compiled kernels (nanoagent/native, `python -m nanoagent.native.build`): the same three ops as MLX primitives with a
vectorised exp. They stay inside MLX's lazy graph, so none of the memory above is paid; their gradients are
kernels too (one fused pass each). `numpy_ops()` uses them when they are built ("auto"), and train.dft does by default
(`native_ops`; `numpy_ops`, when asked for, takes precedence). Measured in bench/results/train_speed_native.json.

Usage:
    with numpy_ops():                 # the MLX backend wraps its generation in this ("auto": native when built)
    with numpy_ops("numpy"):          # numpy's kernels even where the native ones are built
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

from nanoagent import mlx_patches, native

def active() -> bool:
    return mx.default_device() == mx.cpu and os.environ.get("NANOAGENT_NUMPY_OPS", "1") != "0"


_KERNELS = []  # what each open `numpy_ops()` context computes with: "native" or "numpy"


def _kernels(*arrays: mx.array) -> str | None:
    """The kernels the exp-family ops use now: "native", "numpy", or None (MLX's own)."""
    if not _KERNELS or not active() or not all(a.dtype == mx.float32 for a in arrays):
        return None
    return _KERNELS[-1]


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
    kernels = _kernels(x)
    if kernels is None:
        return mx.softmax(x, axis=-1, precise=True)
    return _native_softmax(x) if kernels == "native" else _softmax(x)


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
    kernels = _kernels(gate, up) if gate.shape == up.shape else None
    if kernels is None:
        return nn.silu(gate) * up
    return _native_swiglu(gate, up) if kernels == "native" else _swiglu(gate, up)


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
    kernels = _kernels(x)
    if kernels is None:
        return mx.logsumexp(x, axis=-1)
    return _native_logsumexp(x) if kernels == "native" else _logsumexp(x)


# ----------------------------------------------------------------------------------- the same, compiled (native)
# nanoagent.native's kernels compute the forward inside MLX's graph, and each op's gradient as one fused pass.

def _native_softmax_op(kernel: str):
    """An mx.custom_function over one of the native softmax kernels, with the fused gradient y * (c - sum(c * y))
    (masked positions have y = 0, so the causal kernel's gradient is the same)."""
    @mx.custom_function
    def op(x):
        return getattr(native.load(), kernel)(x)

    @op.vjp
    def op_vjp(primals, cotangent, output):
        return (native.load().softmax_grad(_one(output), _one(cotangent)),)

    return op


_native_softmax = _native_softmax_op("softmax")
_native_causal_softmax = _native_softmax_op("causal_softmax")


@mx.custom_function
def _native_swiglu(gate, up):
    return native.load().swiglu(gate, up)


@_native_swiglu.vjp
def _native_swiglu_vjp(primals, cotangent, output):
    return tuple(native.load().swiglu_grad(primals[0], primals[1], _one(cotangent)))


@mx.custom_function
def _native_logsumexp(x):
    return native.load().logsumexp(x)


@_native_logsumexp.vjp
def _native_logsumexp_vjp(primals, cotangent, output):
    return (native.load().logsumexp_grad(_one(primals), _one(output), _one(cotangent)),)


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
    kernels = _kernels(queries, keys, values)
    if sinks is not None or hasattr(cache, "bits") or kernels is None:
        return mlx_patches.own_attention()(queries, keys, values, cache=cache, scale=scale, mask=mask, sinks=sinks)
    plain, causal = (_native_softmax, _native_causal_softmax) if kernels == "native" else (_softmax, _causal_softmax)
    b, heads, length, dim = queries.shape
    kv_heads = keys.shape[1]
    q = (queries * scale).reshape(b, kv_heads, heads // kv_heads, length, dim)
    scores = q @ keys[:, :, None].swapaxes(-1, -2)  # (B, kv_heads, group, L, S)
    if isinstance(mask, str):
        if mask != "causal":
            raise ValueError(f"unknown attention mask {mask!r}")
        weights = causal(scores)
    elif mask is None:
        weights = plain(scores)
    else:
        m = mask[:, :, None] if mask.ndim == 4 else mask  # (B, H or 1, L, S) -> with the group axis
        if m.ndim == 5 and m.shape[1] == heads and heads != kv_heads:
            m = mask.reshape(mask.shape[0], kv_heads, heads // kv_heads, *mask.shape[2:])
        if m.dtype != mx.bool_:
            weights = plain(scores + m)
        elif kernels == "native":
            weights = plain(mx.where(m, scores, -mx.inf))
        else:
            weights = _masked_softmax(scores, m)
    return (weights @ values[:, :, None]).reshape(b, heads, length, dim)


def using_numpy_ops(fn, kernels: str = "auto"):
    """`fn`, run inside `numpy_ops(kernels)` on every call (for a `value_and_grad` function: the backward runs
    within the call, so it is covered too)."""
    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        with numpy_ops(kernels):
            return fn(*args, **kwargs)

    return wrapped


def training_kernels(numpy: bool, native_ops: bool) -> str | None:
    """What a trainer's loss runs its exp-family ops with: "numpy" when asked (`numpy_ops`), else "native" when
    allowed and built, else None (MLX's own ops)."""
    if not active():
        return None
    if numpy:
        return "numpy"
    return "native" if native_ops and native.load() is not None else None


@contextmanager
def numpy_ops(kernels: str = "auto"):
    """While inside (and `active()`), mlx-lm's llama attention and MLP run their exp-family ops outside MLX's scalar
    exp: with nanoagent.native's compiled kernels ("native"; "auto" picks them when built) or in numpy ("numpy")."""
    if kernels not in ("auto", "native", "numpy"):
        raise ValueError(f"kernels must be 'auto', 'native' or 'numpy', got {kernels!r}")
    if not active():
        yield
        return
    if kernels != "numpy" and native.load() is None:
        if kernels == "native":
            raise RuntimeError(f"nanoagent's native ops are not usable here: run `{native.BUILD_COMMAND}`")
        kernels = "numpy"
    elif kernels == "auto":
        kernels = "native"
    _KERNELS.append(kernels)
    try:
        with mlx_patches.replaced(mlx_patches.llama(), scaled_dot_product_attention=attention, swiglu=swiglu):
            yield
    finally:
        _KERNELS.pop()
