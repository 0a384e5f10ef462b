"""Attention for packed training rows, computed record by record and block by block instead of over a full mask.

A packed row holds several whole records; each may attend only to itself, causally. The dense way builds a
(B, 1, L, L) block-diagonal mask and lets MLX compute every score of the (B, H, L, L) matrix, then hide most of
them. On the CPU the scores' element-wise passes (mask, softmax, its gradient) cost about as much as the products
(MLX runs them one element at a time on x86; bench/results/mlx_cpu_ops.json), so scores nobody sees are pure waste.
Here each record's queries are split into blocks of `block` rows, and each block scores only the keys it can see
(plain causal rows are one record each, so they skip the upper triangle the same way):

    record of length n, blocks of b:   scores computed  ~ n * n / 2 + n * b / 2   instead of   L * L per row

Every block goes through the attention of the moment (`numpy_ops.attention`: MLX's own, or numpy's softmax under
`train.dft --numpy-ops`) with mlx-lm's "causal" mask, which lines the last query up with the last key, so a block
of queries [s, e) over keys [0, e) is causal as it should be. The outputs are the dense path's to float rounding
(tests/test_packed_attention.py checks losses and gradients against the block-diagonal mask). The weights are not
kept for the backward pass but computed again there from q, k and v (RECOMPUTE_WEIGHTS): 30 layers of them were a
fifth of a training step's peak memory. Inside `packed_rows()` the MLP's SwiGLU output (the input of down_proj,
the widest activation a block keeps) is computed again in the backward pass from the gate and up projections too
(RECOMPUTE_SWIGLU): an element-wise pass instead of 4 x 1024 x 1536 floats per block, 0.47 GB less at packed
4 x 1024 (full 8.14 -> 7.66 GB, LoRA 5.60 -> 5.13) within the run-to-run noise of the speed
(bench/results/train_speed_swiglu*.json).

Usage:
    spans = RecordSpans([[(0, 300), (300, 700), (700, 1023)], [(0, 1023)]])  # per row: [start, end) of records
    with packed_rows():                          # mlx-lm's llama attention handles RecordSpans masks
        h = layer(h, spans, None)                # spans passed where the mask goes; other masks work as before
    loss_and_grad = using_packed_rows(nn.value_and_grad(model, loss))   # backward inside too (checkpointing)

On Metal (any device but the CPU) the spans turn back into the dense mask (or "causal" for plain rows) and MLX's
fused attention runs as before: the blocks are a CPU measure, untimed on Apple GPUs.

Measured (bench/results/train_speed_real.json, packed 4 x 1024 default-recipe rows, LoRA, 2-core AMD EPYC): 67.6 ->
105.7 tokens/s and peak memory 11.4 -> 8.9 GB against the dense mask; blocks of 128 and unblocked records were
slower than 256 on a profiled batch. Left out: generation KV caches (training only: a cache with a RecordSpans
mask is an error), attention sinks.

Rows that continue one shared prompt (a GRPO group's rollouts, train.losses.hidden_states with `prefix`) use a
SharedPrefix cache: the prompt runs once at batch 1, and the rows' queries, in blocks, attend to its keys and
causally to their own, so neither pass scores the hidden upper triangle.
"""

from __future__ import annotations

import functools
import sys
from contextlib import contextmanager
from dataclasses import dataclass

import mlx.core as mx

from nanoagent import mlx_patches, numpy_ops

BLOCK = 256  # query rows per block: smaller skips more hidden scores but makes more, smaller products
# keep only q, k, v for the backward pass and compute the attention weights again there (mx.checkpoint), instead of
# keeping every block's weights: 1.4 GB less at packed 4 x 1024 (7.05 -> 5.60 GB, LoRA), about 5% slower
RECOMPUTE_WEIGHTS = True
# keep gate_proj's and up_proj's outputs but not silu(gate) * up: down_proj runs under mx.checkpoint, whose backward
# pass computes the product again (down_proj's own forward output is not needed there, so MLX never recomputes it)
RECOMPUTE_SWIGLU = True


@dataclass(frozen=True)
class RecordSpans:
    """The [start, end) position span of every record in every row of a packed batch, in order, covering the row
    (padding at a row's end is one more span: it attends causally to itself and is never supervised)."""
    rows: tuple

    def __init__(self, rows):
        object.__setattr__(self, "rows", tuple(tuple((int(s), int(e)) for s, e in row) for row in rows))

    @classmethod
    def whole_rows(cls, batch: int, length: int) -> "RecordSpans":
        """Plain causal rows (one record each, padding after it is harmless: no real token sees it)."""
        return cls([[(0, length)]] * batch)

    def dense(self, length: int):
        """The same attention as a (B, L, L) bool block-diagonal causal mask (numpy), for checks and fallbacks;
        built once per spans and length (every layer asks for it on Metal)."""
        return _dense(self.rows, length)

    def check(self, batch: int, length: int) -> None:
        """ValueError unless there is one row of spans per batch row and each row's spans tile [0, length)."""
        if len(self.rows) != batch:
            raise ValueError(f"{len(self.rows)} rows of record spans for a batch of {batch} rows")
        for r, row in enumerate(self.rows):
            ends = [0] + [e for _, e in row]
            if not row or [s for s, _ in row] != ends[:-1] or ends[-1] != length or any(e <= s for s, e in row):
                raise ValueError(f"row {r}'s record spans {list(row)} do not tile its {length} positions in order")


@functools.lru_cache(maxsize=8)
def _dense(rows: tuple, length: int):
    import numpy as np

    out = np.zeros((len(rows), length, length), bool)
    for r, row in enumerate(rows):
        for s, e in row:
            out[r, s:e, s:e] = np.tril(np.ones((e - s, e - s), bool))
    return out


class SharedPrefix:
    """The KV cache of one prompt that every row of a batch continues: mlx-lm's layers call `update_and_fetch` as
    they would on a generation cache. The first pass (the prompt, batch 1) keeps the layer's keys and values; the
    next (the rows' own tokens, RoPE offset by the prompt's length) gets them broadcast to the batch ahead of its
    own. Everything stays in the graph, so the rows' gradients reach the prompt's pass, computed once."""

    def __init__(self, detached: bool = False):
        self.offset = 0
        self.keys = self.values = None
        self.detached = detached  # the prompt's keys and values as constants: no gradient through its pass

    def update_and_fetch(self, keys, values):
        if self.keys is None:  # the prompt
            if self.detached:
                keys, values = mx.stop_gradient(keys), mx.stop_gradient(values)
            self.keys, self.values = keys, values
            self.offset = keys.shape[2]
            return keys, values
        rows = keys.shape[0]
        return (mx.concatenate([mx.broadcast_to(self.keys, (rows,) + self.keys.shape[1:]), keys], axis=2),
                mx.concatenate([mx.broadcast_to(self.values, (rows,) + self.values.shape[1:]), values], axis=2))


def on_cpu() -> bool:
    return mx.default_device() == mx.cpu


def _blocks(start: int, end: int, block: int):
    for s in range(start, end, block):
        yield s, min(s + block, end)


def attention(queries, keys, values, cache, scale: float, mask, sinks=None, block: int | None = None):
    """mlx-lm's `scaled_dot_product_attention`, with a RecordSpans mask computed record by record (module
    docstring); any other mask goes to `numpy_ops.attention` unchanged."""
    if isinstance(cache, SharedPrefix) and isinstance(mask, str) and mask == "causal" and sinks is None and on_cpu():
        return _prompt_rows_attention(queries, keys, values, scale, block or BLOCK)
    if not isinstance(mask, RecordSpans):
        return numpy_ops.attention(queries, keys, values, cache, scale, mask, sinks)
    if cache is not None or sinks is not None:
        raise ValueError("packed-row attention is for training: no KV cache, no attention sinks")
    mask.check(queries.shape[0], queries.shape[2])
    if not on_cpu():  # Metal: MLX's fused attention over the whole mask, as before (the blocks are a CPU measure)
        length = queries.shape[2]
        whole = all(row == ((0, length),) for row in mask.rows)
        dense = "causal" if whole else mx.array(mask.dense(length))[:, None]
        return numpy_ops.attention(queries, keys, values, None, scale, dense)
    block = block or BLOCK

    def records(q, k, v):
        if len(set(mask.rows)) == 1:  # every row cut the same way (plain causal rows): one pass over the batch
            return _row_attention(q, k, v, mask.rows[0], scale, block)
        rows = [_row_attention(q[r:r + 1], k[r:r + 1], v[r:r + 1], spans, scale, block)
                for r, spans in enumerate(mask.rows)]
        return rows[0] if len(rows) == 1 else mx.concatenate(rows, axis=0)

    return (mx.checkpoint(records) if RECOMPUTE_WEIGHTS else records)(queries, keys, values)


def _row_attention(q, k, v, spans, scale: float, block: int):
    parts = []
    for start, end in spans:
        for s, e in _blocks(start, end, block):
            parts.append(numpy_ops.attention(q[:, :, s:e], k[:, :, start:e], v[:, :, start:e], None, scale, "causal"))
    return parts[0] if len(parts) == 1 else mx.concatenate(parts, axis=2)


def _prompt_rows_attention(q, k, v, scale: float, block: int):
    """Causal attention of L queries that follow S - L earlier keys (a shared prompt's, or none), in query blocks:
    block [s, e) scores keys [0, S - L + e) only."""
    before = k.shape[2] - q.shape[2]
    parts = [numpy_ops.attention(q[:, :, s:e], k[:, :, :before + e], v[:, :, :before + e], None, scale, "causal")
             for s, e in _blocks(0, q.shape[2], block)]
    return parts[0] if len(parts) == 1 else mx.concatenate(parts, axis=2)


def mlp(module, x):
    """mlx-lm's llama MLP, `down_proj(swiglu(gate_proj(x), up_proj(x)))`, with the SwiGLU output computed again in the
    backward pass (RECOMPUTE_SWIGLU, on the CPU). down_proj's trainable weights (all, or LoRA's) are passed to
    mx.checkpoint explicitly, since it differentiates only its arguments."""
    swiglu = sys.modules[type(module).__module__].swiglu  # the one of the moment: numpy_ops swaps in its kernels
    gate, up = module.gate_proj(x), module.up_proj(x)
    down = module.down_proj
    if not (RECOMPUTE_SWIGLU and on_cpu()):
        return down(swiglu(gate, up))

    def run(params, gate, up):
        down.update(params)
        return down(swiglu(gate, up))

    return mx.checkpoint(run)(down.trainable_parameters(), gate, up)


@contextmanager
def weights_kept():
    """While inside, the attention weights and the SwiGLU output are kept for the backward pass (a block under
    gradient checkpointing: its whole forward runs again in the backward pass, so recomputing them inside it would be
    a third pass)."""
    global RECOMPUTE_WEIGHTS, RECOMPUTE_SWIGLU
    before = RECOMPUTE_WEIGHTS, RECOMPUTE_SWIGLU
    RECOMPUTE_WEIGHTS = RECOMPUTE_SWIGLU = False
    try:
        yield
    finally:
        RECOMPUTE_WEIGHTS, RECOMPUTE_SWIGLU = before


@contextmanager
def packed_rows():
    """While inside, mlx-lm's llama layers accept a RecordSpans where their attention mask goes, and their MLPs
    recompute the SwiGLU output in the backward pass (`mlp`)."""
    llama = mlx_patches.llama()
    with mlx_patches.replaced(llama, scaled_dot_product_attention=attention), \
            mlx_patches.replaced(llama.MLP, __call__=mlp):
        yield


def using_packed_rows(fn):
    """`fn`, run inside `packed_rows()` on every call. For a `value_and_grad` function this covers its backward,
    which re-runs the layers' Python code under gradient checkpointing (mx.checkpoint) after the forward returned."""
    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        with packed_rows():
            return fn(*args, **kwargs)

    return wrapped
