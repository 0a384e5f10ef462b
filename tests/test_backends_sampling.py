"""Sampling with temperature / top-p and the log-probs of what was sampled (nanoagent/agent/backends/sampling.py).

Run: .venv/bin/python -m pytest tests/test_backends_sampling.py -q
"""

import nanoagent  # noqa: F401  (OpenBLAS before mlx)

import math

import mlx.core as mx
import numpy as np
import pytest

from nanoagent.agent.backends.sampling import (check_sampling, chosen_logprobs_mlx, log_softmax_numpy, sample_mlx,
                                               sample_numpy, sampling_logprobs_mlx, sampling_logprobs_numpy)

LOGITS = np.array([2.0, 1.0, 0.5, -1.0, 0.0, 3.0], dtype=np.float64)


def test_greedy_picks_argmax_and_reports_raw_logprob():
    token, raw, sampled = sample_numpy(LOGITS, 0.0, 1.0, np.random.default_rng(0))
    assert token == 5
    assert raw == pytest.approx(log_softmax_numpy(LOGITS)[5])
    assert sampled == 0.0


def test_temperature_one_no_nucleus_sampling_logprob_equals_raw():
    rng = np.random.default_rng(0)
    for _ in range(20):
        token, raw, sampled = sample_numpy(LOGITS, 1.0, 1.0, rng)
        assert sampled == pytest.approx(raw)


def test_temperature_one_draws_the_inverse_cdf_token_with_its_raw_logprob():
    raw_all = log_softmax_numpy(LOGITS)
    cdf = np.cumsum(np.exp(raw_all))
    for seed in range(50):  # the same single uniform draw as the general path's inverse CDF
        u = np.random.default_rng(seed).random()
        expected = int(np.searchsorted(cdf, u * cdf[-1], side="right"))
        token, raw, _ = sample_numpy(LOGITS, 1.0, 1.0, np.random.default_rng(seed))
        assert token == expected
        assert raw == pytest.approx(raw_all[token], abs=1e-12)


def test_nucleus_keeps_smallest_set_reaching_top_p():
    raw = log_softmax_numpy(LOGITS)
    probs = np.exp(raw)
    dist = sampling_logprobs_numpy(raw, 1.0, 0.8)
    kept = np.flatnonzero(np.isfinite(dist))
    order = np.argsort(-probs)
    need = int(np.searchsorted(np.cumsum(probs[order]), 0.8) + 1)
    assert set(kept) == set(order[:need])
    assert np.exp(dist[kept]).sum() == pytest.approx(1.0)


def test_tiny_top_p_is_greedy():
    rng = np.random.default_rng(1)
    for _ in range(10):
        token, _, sampled = sample_numpy(LOGITS, 1.5, 1e-6, rng)
        assert token == 5 and sampled == pytest.approx(0.0)


def test_samples_follow_the_sampling_distribution():
    rng = np.random.default_rng(2)
    n = 4000
    counts = np.bincount([sample_numpy(LOGITS, 0.7, 0.9, rng)[0] for _ in range(n)], minlength=LOGITS.size)
    expected = np.exp(sampling_logprobs_numpy(log_softmax_numpy(LOGITS), 0.7, 0.9))
    assert counts[expected == 0].sum() == 0
    assert np.abs(counts / n - expected).max() < 0.03


def test_seeded_numpy_sampling_repeats():
    a = [sample_numpy(LOGITS, 1.0, 0.95, np.random.default_rng(7))[0] for _ in range(5)]
    b = [sample_numpy(LOGITS, 1.0, 0.95, np.random.default_rng(7))[0] for _ in range(5)]
    assert a == b


def test_flat_distribution_larger_than_candidate_window():
    logits = np.zeros(5000)
    dist = sampling_logprobs_numpy(log_softmax_numpy(logits), 1.0, 0.3001)
    assert np.isfinite(dist).sum() == 1501  # 30.01% of 5000 equal tokens: past the 1024-token window


def test_mlx_and_numpy_agree_on_the_sampling_distribution():
    raw = log_softmax_numpy(LOGITS)
    for temperature, top_p in [(1.0, 1.0), (0.7, 0.9), (1.3, 0.5)]:
        ours = np.array(sampling_logprobs_mlx(mx.array(raw[None], dtype=mx.float32), temperature, top_p))[0]
        ref = sampling_logprobs_numpy(raw, temperature, top_p)
        assert np.array_equal(np.isfinite(ours), np.isfinite(ref))
        assert np.allclose(ours[np.isfinite(ref)], ref[np.isfinite(ref)], atol=1e-5)


def test_mlx_batch_sampling_returns_both_logprobs_per_row():
    mx.random.seed(0)
    lp = mx.array(np.stack([log_softmax_numpy(LOGITS), log_softmax_numpy(LOGITS[::-1])]), dtype=mx.float32)
    tokens, raw, sampled = sample_mlx(lp, 0.0, 1.0)
    assert tokens.tolist() == [5, 0]
    assert raw.tolist() == pytest.approx([lp[0, 5].item(), lp[1, 0].item()])
    assert sampled.tolist() == [0.0, 0.0]
    tokens, raw, sampled = sample_mlx(lp, 1.0, 1.0)
    assert np.allclose(np.array(raw), np.array(sampled), atol=1e-6)
    raw2, _ = chosen_logprobs_mlx(lp, tokens, 1.0, 1.0)
    assert np.allclose(np.array(raw2), np.array(raw))


@pytest.mark.parametrize("temperature, top_p", [(-0.1, 1.0), (math.nan, 1.0), (1.0, 0.0), (1.0, 1.5)])
def test_bad_settings_are_refused(temperature, top_p):
    with pytest.raises(ValueError, match="temperature|top_p"):
        check_sampling(temperature, top_p)
