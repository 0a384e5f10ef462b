"""The two training losses, with one signature: `loss(model, batch) -> (mean loss, its weight)`. The mean is over
the supervised tokens, each weighted by the batch's mask; the weight is the sum of those token weights (the number
of supervised tokens when none is weighted), so micro-batches and ranks combine exactly by it.

    sft_loss: mean cross-entropy over supervised tokens (weighted by the batch's mask: decision_weight,
              count_weight).
    dft_loss: each supervised token's cross-entropy times its probability under the model, the probability held
              constant in the gradient (Dynamic Fine-Tuning, Wu et al. 2025: "On the Generalization of SFT").

Both run the transformer once and apply the output projection only at supervised positions: the system prompt
with its tool list, user text and tool results never need logits, and the 49152-wide projection is a large part of
a 135M model's work. When a batch is packed, `hidden_states` lets each record attend only to itself, computing
only the scores it can see (nanoagent/packed_attention.py).

Works for mlx-lm models shaped like llama (`model.model.embed_tokens/layers/norm`, tied or `lm_head`); any other
model falls back to `model(inputs)` logits (no packing). Left out: label smoothing, z-loss, chunked vocab.
"""

from __future__ import annotations

import mlx.core as mx
import numpy as np

from nanoagent.numpy_ops import logsumexp
from nanoagent.packed_attention import RecordSpans, SharedPrefix, packed_rows


def _inner(model):
    inner = getattr(model, "model", None)
    if inner is not None and all(hasattr(inner, a) for a in ("embed_tokens", "layers", "norm")):
        return inner
    return None


def hidden_states(model, inputs: mx.array, spans=None, prefix: mx.array | None = None) -> mx.array:
    """Final normed hidden states (B, L, D); `spans`: a packed batch's record spans (Batch.spans), None for plain
    causal attention over each row. Either way attention runs in query blocks that skip the hidden scores.
    `prefix` (1, P): ids every row continues (a GRPO group's prompt); it is run once, its keys and values kept in
    a SharedPrefix cache per layer, and the states returned are the rows' own (B, L, D), as if each row had been
    prefixed with it. Not under gradient checkpointing: mx.checkpoint differentiates only its array arguments, so
    the gradient through the cache would be lost (train.grpo batches whole rows then)."""
    inner = _inner(model)
    if inner is None:
        raise TypeError(f"{type(model).__name__} has no model.embed_tokens/layers/norm; cannot get hidden states")
    if prefix is not None:
        if spans is not None:
            raise ValueError("a shared prefix is for plain rows, not packed ones")
        caches = [SharedPrefix() for _ in inner.layers]
        with packed_rows():
            for h_in in (inner.embed_tokens(prefix), inner.embed_tokens(inputs)):
                h = h_in
                for layer, cache in zip(inner.layers, caches):
                    h = layer(h, "causal", cache)  # query blocks over the prompt's keys and their own
        return inner.norm(h)
    h = inner.embed_tokens(inputs)
    mask = RecordSpans(spans) if spans is not None else RecordSpans.whole_rows(*inputs.shape[:2])
    with packed_rows():
        for layer in inner.layers:
            h = layer(h, mask, None)
    return inner.norm(h)


def output_logits(model, h: mx.array) -> mx.array:
    if hasattr(model, "lm_head") and not getattr(getattr(model, "args", None), "tie_word_embeddings", False):
        return model.lm_head(h)
    return _inner(model).embed_tokens.as_linear(h)


def cross_entropy(logits: mx.array, targets: mx.array) -> mx.array:
    """Per-row cross-entropy of (N, V) logits against (N,) targets, in float32."""
    logits = logits.astype(mx.float32)
    picked = mx.take_along_axis(logits, targets[:, None], axis=-1).squeeze(-1)
    return logsumexp(logits) - picked  # numpy inside nanoagent.numpy_ops.numpy_ops() on the CPU


def token_weights(batch) -> mx.array:
    """The loss weight of every supervised token (N,), in supervised_ce's order: 1, or the decision weight."""
    flat = batch.mask.reshape(-1)
    return mx.array(flat[flat > 0])


def supervised_ce(model, batch) -> tuple[mx.array, mx.array]:
    """Cross-entropy of every supervised token (N,), and N as an array."""
    flat = np.flatnonzero(batch.mask.reshape(-1) > 0)
    n = mx.array(len(flat), dtype=mx.float32)
    targets = mx.array(batch.targets.reshape(-1)[flat])
    inputs = mx.array(batch.inputs)
    if _inner(model) is None:
        if batch.spans is not None:
            raise TypeError(f"packed batches need a llama-shaped model; {type(model).__name__} is not")
        logits = model(inputs)
        logits = logits.reshape(-1, logits.shape[-1])[mx.array(flat)]
    else:
        h = hidden_states(model, inputs, batch.spans)
        h = h.reshape(-1, h.shape[-1])[mx.array(flat)]
        logits = output_logits(model, h)
    return cross_entropy(logits, targets), n


def sft_weights(ce: mx.array) -> mx.array:
    return mx.ones_like(ce)


def dft_weights(ce: mx.array) -> mx.array:
    return mx.stop_gradient(mx.exp(-ce))  # the token's probability, a constant for the gradient


def weighted_mean(ce: mx.array, weights: mx.array, n: mx.array) -> mx.array:
    return (ce * weights).sum() / mx.maximum(n, 1.0)


def sft_loss(model, batch) -> tuple[mx.array, mx.array]:
    ce, _ = supervised_ce(model, batch)
    tw = token_weights(batch)
    return weighted_mean(ce, sft_weights(ce) * tw, tw.sum()), tw.sum()


def dft_loss(model, batch) -> tuple[mx.array, mx.array]:
    ce, _ = supervised_ce(model, batch)
    tw = token_weights(batch)
    return weighted_mean(ce, dft_weights(ce) * tw, tw.sum()), tw.sum()


LOSSES = {"sft": sft_loss, "dft": dft_loss}
