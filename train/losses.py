"""The two training losses, with one signature: `loss(model, batch) -> (mean loss, its weight)`. The mean is over
the supervised tokens, each weighted by the batch's mask; the weight is the sum of those token weights (the number
of supervised tokens when none is weighted), so micro-batches and ranks combine exactly by it.

    sft_loss: mean cross-entropy over supervised tokens (weighted by the batch's mask: decision_weight,
              count_weight).
    dft_loss: each supervised token's cross-entropy times its probability under the model, the probability held
              constant in the gradient (Dynamic Fine-Tuning, Wu et al. 2025: "On the Generalization of SFT").

    with_unlikelihood(loss, alpha): either loss plus `alpha` times token-level unlikelihood (Welleck et al. 2019,
              "Neural Text Generation with Unlikelihood Training"): at every supervised token, -log(1 - p) of each
              token the same assistant turn already wrote that is not the target. A reply that repeats itself (the
              same call again after the last one, "New York, New York, ...") puts probability on such tokens;
              the term pushes it down where the data says something else comes. Where the reply ends after its last
              call, the token that would open another call is one of them; where another call follows, the end of
              the reply is not (the turn has not written it yet), so the term leans against extra calls only.
              with_unlikelihood(loss, alpha, pieces) spares the tokens that end a call's argument (its ',' or
              closing '}'): there the turn's earlier ',' or '}' is the other choice, not a repeat, so the term
              would push toward closing the call (or toward going on) and only the cross-entropy decides.

Both run the transformer once and apply the output projection only at supervised positions: the system prompt
with its tool list, user text and tool results never need logits, and the 49152-wide projection is a large part of
a 135M model's work. When a batch is packed, `hidden_states` lets each record attend only to itself, computing
only the scores it can see (nanoagent/packed_attention.py).

Works for mlx-lm models shaped like llama (`model.model.embed_tokens/layers/norm`, tied or `lm_head`); any other
model falls back to `model(inputs)` logits (no packing). Left out: label smoothing, z-loss, chunked vocab,
sequence-level unlikelihood (it needs the model's own generations).
"""

from __future__ import annotations

import mlx.core as mx
import numpy as np

from nanoagent.numpy_ops import logsumexp
from nanoagent.packed_attention import RecordSpans, SharedPrefix, packed_rows
from train.data import argument_ends


def _inner(model):
    inner = getattr(model, "model", None)
    if inner is not None and all(hasattr(inner, a) for a in ("embed_tokens", "layers", "norm")):
        return inner
    return None


def hidden_states(model, inputs: mx.array, spans=None, prefix: mx.array | None = None,
                  prefix_grad: bool = True) -> mx.array:
    """Final normed hidden states (B, L, D); `spans`: a packed batch's record spans (Batch.spans), None for plain
    causal attention over each row. Either way attention runs in query blocks that skip the hidden scores.
    `prefix` (1, P): ids every row continues (a GRPO group's prompt); it is run once, its keys and values kept in
    a SharedPrefix cache per layer, and the states returned are the rows' own (B, L, D), as if each row had been
    prefixed with it. Not under gradient checkpointing: mx.checkpoint differentiates only its array arguments, so
    the gradient through the cache would be lost (train.grpo batches whole rows then). `prefix_grad` False keeps
    the prefix's keys and values out of the gradient: its pass runs forward only (the rows still learn to read it)."""
    inner = _inner(model)
    if inner is None:
        raise TypeError(f"{type(model).__name__} has no model.embed_tokens/layers/norm; cannot get hidden states")
    if prefix is not None:
        if spans is not None:
            raise ValueError("a shared prefix is for plain rows, not packed ones")
        caches = [SharedPrefix(detached=not prefix_grad) for _ in inner.layers]
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


def cross_entropy(logits: mx.array, targets: mx.array, lse: mx.array | None = None) -> mx.array:
    """Per-row cross-entropy of (N, V) logits against (N,) targets, in float32; `lse`: the rows' log-sum-exp when
    the caller has it already (one pass over the vocabulary, and one in the backward, instead of two)."""
    logits = logits.astype(mx.float32)
    picked = mx.take_along_axis(logits, targets[:, None], axis=-1).squeeze(-1)
    return (logsumexp(logits) if lse is None else lse) - picked  # numpy inside numpy_ops() on the CPU


def token_weights(batch) -> mx.array:
    """The loss weight of every supervised token (N,), in supervised_logits' order: 1, or the decision weight."""
    flat = batch.mask.reshape(-1)
    return mx.array(flat[flat > 0])


def prefixed_rows(inputs: np.ndarray, flat: np.ndarray, prefix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For a model without layers to run a shared prefix through once: every row with the prefix put back in front,
    and the flat positions (row * L + t) moved to match."""
    rows, p = inputs.shape[0], len(prefix)
    return (np.concatenate([np.tile(prefix, (rows, 1)), inputs], axis=1),
            flat + p * (flat // inputs.shape[1] + 1))


def supervised_logits(model, batch) -> tuple[mx.array, mx.array]:
    """Logits (N, V) and targets (N,) of every supervised token, in row-major order."""
    flat = np.flatnonzero(batch.mask.reshape(-1) > 0)
    targets = mx.array(batch.targets.reshape(-1)[flat])
    inputs = mx.array(batch.inputs)
    prefix = getattr(batch, "prefix", None)
    if _inner(model) is None:
        if batch.spans is not None:
            raise TypeError(f"packed batches need a llama-shaped model; {type(model).__name__} is not")
        if prefix is not None:
            inputs, flat = prefixed_rows(batch.inputs, flat, prefix)
            inputs = mx.array(inputs)
        logits = model(inputs)
        return logits.reshape(-1, logits.shape[-1])[mx.array(flat)], targets
    h = hidden_states(model, inputs, batch.spans, None if prefix is None else mx.array(prefix)[None],
                      prefix_grad=getattr(batch, "prefix_grad", True))
    h = h.reshape(-1, h.shape[-1])[mx.array(flat)]
    return output_logits(model, h), targets


def earlier_tokens(batch, pieces: list[str] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """For every supervised token (in supervised_logits' order), the distinct tokens its own assistant turn wrote
    before it, less its target: ids (N, K) padded with 0 and a (N, K) 0/1 mask, K the most any token has (at least
    1). A turn is a run of consecutive supervised positions; a packed row's records and a record's turns are
    separated by unsupervised tokens (headers, prompts), so no run crosses them. With `pieces` (each token id's
    text, train.data.token_pieces), a target that ends a call's argument (train.data.argument_ends) gets none."""
    mask, targets = batch.mask > 0, batch.targets
    per_token = []
    for row in range(mask.shape[0]):
        spared = set(argument_ends(targets[row], mask[row], pieces)) if pieces else set()
        seen: dict[int, None] = {}  # the run's tokens so far, in order
        for i in range(mask.shape[1]):
            if not mask[row, i]:
                seen = {}
                continue
            t = int(targets[row, i])
            per_token.append([] if i in spared else [x for x in seen if x != t])
            seen[t] = None
    k = max([len(c) for c in per_token] + [1])
    ids = np.zeros((len(per_token), k), dtype=np.int32)
    valid = np.zeros((len(per_token), k), dtype=np.float32)
    for j, c in enumerate(per_token):
        ids[j, :len(c)], valid[j, :len(c)] = c, 1.0
    return ids, valid


def repeat_unlikelihood(logits: mx.array, lse: mx.array, ids: np.ndarray, valid: np.ndarray) -> mx.array:
    """Per supervised token (N,): -sum log(1 - p) over its earlier tokens (earlier_tokens); `logits` in float32
    and `lse` their rows' log-sum-exp, both shared with the cross-entropy."""
    picked = mx.take_along_axis(logits, mx.array(ids), axis=-1) - lse[:, None]
    p = mx.minimum(mx.exp(picked), 1.0 - 1e-6)  # log(1 - p) stays finite where p rounds to 1
    return -(mx.log1p(-p) * mx.array(valid)).sum(axis=-1)


def sft_weights(ce: mx.array) -> mx.array:
    return mx.ones_like(ce)


def dft_weights(ce: mx.array) -> mx.array:
    return mx.stop_gradient(mx.exp(-ce))  # the token's probability, a constant for the gradient


def weighted_mean(ce: mx.array, weights: mx.array, n: mx.array) -> mx.array:
    return (ce * weights).sum() / mx.maximum(n, 1.0)


def _loss(model, batch, weights_of, unlikelihood: float = 0.0, pieces=None) -> tuple[mx.array, mx.array]:
    logits, targets = supervised_logits(model, batch)
    logits = logits.astype(mx.float32)  # once, for both terms (cross_entropy's own cast is then a no-op)
    lse = logsumexp(logits) if unlikelihood else None
    ce = cross_entropy(logits, targets, lse)
    tw = token_weights(batch)
    per_token = ce * weights_of(ce)
    if unlikelihood:
        per_token = per_token + unlikelihood * repeat_unlikelihood(logits, lse, *earlier_tokens(batch, pieces))
    return weighted_mean(per_token, tw, tw.sum()), tw.sum()


def sft_loss(model, batch) -> tuple[mx.array, mx.array]:
    return _loss(model, batch, sft_weights)


def dft_loss(model, batch) -> tuple[mx.array, mx.array]:
    return _loss(model, batch, dft_weights)


LOSSES = {"sft": sft_loss, "dft": dft_loss}
WEIGHTS = {sft_loss: sft_weights, dft_loss: dft_weights}


def with_unlikelihood(loss, alpha: float, pieces: list[str] | None = None):
    """`loss` (sft_loss or dft_loss) with `alpha` times the repeat unlikelihood added at every supervised token,
    weighted like its cross-entropy; `loss` itself when alpha is 0. With `pieces` (train.data.token_pieces) the
    tokens that end a call's argument are spared (earlier_tokens)."""
    if not alpha:
        return loss

    def loss_with_unlikelihood(model, batch) -> tuple[mx.array, mx.array]:
        return _loss(model, batch, WEIGHTS[loss], alpha, pieces)
    return loss_with_unlikelihood
