"""Shared-prefix attention (nanoagent/agent/backends/shared_prefix.py) on a tiny random llama: the same logits as
attending to a per-row copy of the prefix, for one new token and for several, and the model left as it was.

Run: .venv/bin/python -m pytest tests/test_shared_prefix.py -q
"""

import nanoagent  # noqa: F401  (OpenBLAS before mlx)

import mlx.core as mx
import mlx.nn as nn
import numpy as np
import pytest
from mlx_lm.models.cache import KVCache, make_prompt_cache

from nanoagent.agent.backends import mlx_backend
from nanoagent.agent.backends.mlx_backend import MLXBackend
from nanoagent.agent.backends.shared_prefix import SharedPrefixAttention, shared_prefix_attention, supports
from nanoagent.render import render_prompt

CHAT = [{"role": "system", "content": "You fix code."}, {"role": "user", "content": "list the files"}]


@pytest.fixture
def tiny(tiny_gqa):
    return tiny_gqa


def prefilled(model, ids):
    cache = make_prompt_cache(model)
    model(mx.array([ids]), cache=cache)
    mx.eval([c.state for c in cache])
    return cache


@pytest.mark.parametrize("new_tokens", [1, 5])
def test_logits_equal_attending_to_a_copied_prefix(tiny, new_tokens):
    model, _ = tiny
    rng = np.random.default_rng(0)
    prefix_ids = rng.integers(3, 200, size=23).tolist()
    rows = rng.integers(3, 200, size=(3, new_tokens))
    prefix = prefilled(model, prefix_ids)
    reference = []  # each row on its own: the prefix, then its new tokens, through mlx-lm's own attention
    for row in rows:
        cache = prefilled(model, prefix_ids)
        reference.append(np.array(model(mx.array(row[None]), cache=cache)))
    own = [KVCache() for _ in model.layers]
    with shared_prefix_attention(model, prefix):
        got = np.array(model(mx.array(rows), cache=own))
        step = np.array(model(mx.array(rows[:, :1]), cache=own))  # and one more token after them
    assert np.abs(got - np.concatenate(reference)).max() < 1e-4
    assert own[0].offset == new_tokens + 1
    for row, s in zip(rows, step):
        cache = prefilled(model, prefix_ids + row.tolist())
        assert np.abs(np.array(model(mx.array(row[None, :1]), cache=cache))[0] - s).max() < 1e-4


def test_the_model_is_restored_even_after_an_error(tiny):
    model, _ = tiny
    before = [layer.self_attn for layer in model.layers]
    with pytest.raises(RuntimeError):
        with shared_prefix_attention(model, prefilled(model, [5, 6, 7])):
            assert all(isinstance(layer.self_attn, SharedPrefixAttention) for layer in model.layers)
            raise RuntimeError("boom")
    assert [layer.self_attn for layer in model.layers] == before


def test_supports_only_llama_style_attention(tiny):
    assert supports(tiny[0])

    class Other(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = [nn.Linear(2, 2)]

    assert not supports(Other())


def test_a_group_samples_the_same_with_and_without_the_shared_prefix(tiny, monkeypatch):
    backend = MLXBackend(*tiny)
    shared = backend.complete_batch([CHAT] * 4, [], max_tokens=10, temperature=1.0, seed=3)
    monkeypatch.setattr(mlx_backend, "supports", lambda model: False)  # the per-row copy path
    copied = backend.complete_batch([CHAT] * 4, [], max_tokens=10, temperature=1.0, seed=3)
    assert [c.completion_ids for c in shared] == [c.completion_ids for c in copied]
    for a, b in zip(shared, copied):
        assert np.allclose(a.logprobs, b.logprobs, atol=1e-4)
    assert render_prompt(CHAT, [], tiny[1]) == shared[0].prompt_ids
