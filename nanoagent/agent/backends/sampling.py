"""Temperature / top-p sampling that also says how likely each sampled token was, for MLX arrays and for numpy.

Every backend that sees logits samples through these functions, so "the sampling policy" means one thing:

    raw log-probs       log_softmax(logits)                      the model at temperature 1 (GRPO's pi_theta)
    sampling log-probs  log_softmax(raw / T) restricted to the smallest set of tokens whose probability adds up
                        to at least top_p, renormalised          the distribution the token was actually drawn from

`temperature <= 0` is greedy (argmax; the sampling log-prob of the chosen token is 0). The backends return the
raw log-probs in `Completion.logprobs`: that is what a trainer recomputes with a forward pass over the same ids, so
the GRPO ratio starts at exactly 1 for on-policy data. The sampling log-probs come alongside for importance
corrections (MLX and llama.cpp backends: `Completion.sampling_logprobs` when the Completion type carries it).

Usage:
    tokens, raw, sampled = sample_mlx(logprobs_BxV, temperature=0.7, top_p=0.95)   # mx arrays of shape (B,)
    token, raw, sampled = sample_numpy(logits_V, 0.7, 0.95, np.random.default_rng(seed))

Left out: top-k, min-p, repetition penalties (none is used by the agent or GRPO here). Grammars mask the logits
before these functions see them (nanoagent.constrain, applied by the backends).
"""

from __future__ import annotations

import math

import numpy as np


def check_sampling(temperature: float, top_p: float) -> None:
    if not (isinstance(temperature, (int, float)) and math.isfinite(temperature) and temperature >= 0):
        raise ValueError(f"temperature must be a finite number >= 0 (0 = greedy), got {temperature!r}")
    if not (isinstance(top_p, (int, float)) and 0 < top_p <= 1):
        raise ValueError(f"top_p must be in (0, 1] (1 = no nucleus cut), got {top_p!r}")


def check_request(temperature: float, top_p: float, max_tokens: int) -> None:
    """What every backend's complete() checks before generating."""
    check_sampling(temperature, top_p)
    if max_tokens < 1:
        raise ValueError(f"max_tokens must be >= 1, got {max_tokens}")


# ---------------------------------------------------------------------------------------------------- MLX, batched

def sampling_logprobs_mlx(logprobs, temperature: float, top_p: float):
    """(B, V) raw log-probs -> (B, V) log-probs of the sampling distribution (-inf outside the nucleus)."""
    import mlx.core as mx

    scaled = logprobs.astype(mx.float32) / temperature
    scaled = scaled - mx.logsumexp(scaled, axis=-1, keepdims=True)
    if top_p >= 1.0:
        return scaled
    order = mx.argsort(-scaled, axis=-1)
    sorted_lp = mx.take_along_axis(scaled, order, axis=-1)
    before = mx.cumsum(mx.exp(sorted_lp), axis=-1) - mx.exp(sorted_lp)  # mass of strictly more likely tokens
    keep_sorted = before < top_p                                         # always keeps the top token
    keep = mx.put_along_axis(mx.zeros(scaled.shape, dtype=mx.bool_), order, keep_sorted, axis=-1)
    cut = mx.where(keep, scaled, -mx.inf)
    return cut - mx.logsumexp(cut, axis=-1, keepdims=True)


def make_mlx_sampler(temperature: float, top_p: float):
    """A sampler for mlx-lm (`(B, V) log-probs -> (B,) token ids`) drawing from `sampling_logprobs_mlx`."""
    import mlx.core as mx

    check_sampling(temperature, top_p)
    if temperature <= 0:
        return lambda logprobs: mx.argmax(logprobs, axis=-1)
    return lambda logprobs: mx.random.categorical(sampling_logprobs_mlx(logprobs, temperature, top_p), axis=-1)


def chosen_logprobs_mlx(logprobs, tokens, temperature: float, top_p: float):
    """(B, V) raw log-probs and (B,) chosen ids -> ((B,) raw log-probs, (B,) sampling log-probs) of those ids."""
    import mlx.core as mx

    idx = tokens.reshape(-1, 1).astype(mx.int32)
    raw = mx.take_along_axis(logprobs.astype(mx.float32), idx, axis=-1).squeeze(-1)
    if temperature <= 0:
        return raw, mx.zeros_like(raw)
    sampled = mx.take_along_axis(sampling_logprobs_mlx(logprobs, temperature, top_p), idx, axis=-1).squeeze(-1)
    return raw, sampled


def sample_mlx(logprobs, temperature: float, top_p: float):
    """Sample one token per row of (B, V) raw log-probs; returns (tokens, raw log-probs, sampling log-probs)."""
    import mlx.core as mx

    check_sampling(temperature, top_p)
    if temperature <= 0:
        tokens = mx.argmax(logprobs, axis=-1)
        return (tokens, *chosen_logprobs_mlx(logprobs, tokens, temperature, top_p))
    dist = sampling_logprobs_mlx(logprobs, temperature, top_p)  # computed once, used to draw and to score
    tokens = mx.random.categorical(dist, axis=-1)
    idx = tokens.reshape(-1, 1).astype(mx.int32)
    raw = mx.take_along_axis(logprobs.astype(mx.float32), idx, axis=-1).squeeze(-1)
    return tokens, raw, mx.take_along_axis(dist, idx, axis=-1).squeeze(-1)


# ---------------------------------------------------------------------------------------------------- numpy, one row

NUCLEUS_CANDIDATES = 1024  # sort only this many top tokens when they already hold top_p of the mass


def log_softmax_numpy(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    m = x.max()
    return x - (m + np.log(np.exp(x - m).sum()))


def sampling_logprobs_numpy(raw: np.ndarray, temperature: float, top_p: float) -> np.ndarray:
    """(V,) raw log-probs -> (V,) log-probs of the sampling distribution (-inf outside the nucleus)."""
    scaled = np.asarray(raw, dtype=np.float64) if temperature == 1.0 else log_softmax_numpy(raw / temperature)
    if top_p >= 1.0:
        return scaled
    k = min(NUCLEUS_CANDIDATES, scaled.size)
    cand = np.argpartition(-scaled, k - 1)[:k] if k < scaled.size else np.arange(scaled.size)
    order = cand[np.argsort(-scaled[cand], kind="stable")]
    probs = np.exp(scaled[order])
    if probs.sum() < top_p and k < scaled.size:  # a flat distribution: sort everything
        order = np.argsort(-scaled, kind="stable")
        probs = np.exp(scaled[order])
    before = np.cumsum(probs) - probs
    kept = order[before < top_p]
    out = np.full_like(scaled, -np.inf)
    out[kept] = log_softmax_numpy(scaled[kept])
    return out


def sample_numpy(logits: np.ndarray, temperature: float, top_p: float,
                 rng: np.random.Generator) -> tuple[int, float, float]:
    """Sample one token from (V,) logits; returns (token id, raw log-prob, sampling log-prob)."""
    check_sampling(temperature, top_p)
    if temperature == 1.0 and top_p >= 1.0:  # the model's own distribution (GRPO's rollouts): one exp pass
        x = np.asarray(logits, dtype=np.float64)
        top = x.max()
        cdf = np.cumsum(np.exp(x - top))
        token = min(int(np.searchsorted(cdf, rng.random() * cdf[-1], side="right")), x.size - 1)
        while token and cdf[token] == cdf[token - 1]:  # a float tie at a zero-probability edge
            token -= 1
        lp = float(x[token] - top - np.log(cdf[-1]))
        return token, lp, lp
    raw = log_softmax_numpy(logits)
    if temperature <= 0:
        token = int(np.argmax(raw))
        return token, float(raw[token]), 0.0
    dist = sampling_logprobs_numpy(raw, temperature, top_p)
    cdf = np.cumsum(np.exp(dist))  # inverse CDF: one uniform draw per token
    token = min(int(np.searchsorted(cdf, rng.random() * cdf[-1], side="right")), dist.size - 1)
    while dist[token] == -np.inf:  # a float tie at a zero-probability edge: step back to a kept token
        token -= 1
    return token, float(raw[token]), float(dist[token])
