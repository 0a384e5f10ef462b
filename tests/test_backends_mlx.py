"""The MLX backend on a tiny random llama: exact ids and log-probs, stop on <|im_end|>, prompt cache, batches.

Run: .venv/bin/python -m pytest tests/test_backends_mlx.py -q
The log-prob checks recompute every completion with one full forward pass over prompt + completion ids, which is
what the GRPO trainer does: the backend's numbers must be those.
"""

import nanoagent  # noqa: F401  (OpenBLAS before mlx)

import mlx.core as mx
import mlx.nn as nn
import numpy as np
import pytest
from mlx_lm import load as mlx_load

from nanoagent.agent.backends.mlx_backend import MLXBackend
from nanoagent.agent.backend import Backend
from nanoagent.render import render_prompt
from nanoagent.testing import save_tiny_model

TOOLS = [{"type": "function", "function": {"name": "shell", "description": "run a command",
                                            "parameters": {"type": "object",
                                                           "properties": {"cmd": {"type": "string"}},
                                                           "required": ["cmd"]}}}]
CHAT = [{"role": "system", "content": "You fix code."}, {"role": "user", "content": "list the files"}]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    model, tok = mlx_load(str(save_tiny_model(tmp_path_factory.mktemp("tiny"))))
    return model, tok


@pytest.fixture
def backend(tiny):
    return MLXBackend(*tiny)


def forward_logprobs(model, prompt_ids, completion_ids):
    """Raw log-probs of completion_ids given prompt_ids, from one full forward pass (no cache)."""
    ids = mx.array([prompt_ids + completion_ids])
    logits = model(ids)[0].astype(mx.float32)
    lp = logits - mx.logsumexp(logits, axis=-1, keepdims=True)
    n = len(prompt_ids)
    rows = lp[n - 1:n - 1 + len(completion_ids)]
    return np.array(mx.take_along_axis(rows, mx.array(completion_ids)[:, None], axis=-1)[:, 0])


class ForceToken(nn.Module):
    """A model wrapper that makes `token` overwhelmingly likely from the `after`-th generated step on."""

    def __init__(self, inner, token, after=0):
        super().__init__()
        self.inner, self.token, self.after, self.calls = inner, token, after, 0

    @property
    def layers(self):
        return self.inner.layers

    def __call__(self, inputs, cache=None):
        logits = self.inner(inputs, cache=cache)
        self.calls += 1
        if self.calls > self.after:
            logits = logits + 100.0 * (mx.arange(logits.shape[-1]) == self.token)
        return logits


def test_is_a_backend(backend):
    assert isinstance(backend, Backend)


def test_prompt_ids_are_the_renderer_ids(backend, tiny):
    c = backend.complete(CHAT, TOOLS, max_tokens=3, temperature=0.0, seed=0)
    assert c.prompt_ids == render_prompt(CHAT, TOOLS, tiny[1])
    assert c.prompt_tokens == len(c.prompt_ids)


def test_greedy_logprobs_match_a_full_forward_pass(backend, tiny):
    c = backend.complete(CHAT, TOOLS, max_tokens=12, temperature=0.0, seed=0)
    assert len(c.completion_ids) == len(c.logprobs) == c.completion_tokens == 12
    assert c.finish_reason == "length"
    ref = forward_logprobs(tiny[0], c.prompt_ids, c.completion_ids)
    assert np.allclose(c.logprobs, ref, atol=1e-4)
    assert c.sampling_logprobs == [0.0] * 12  # greedy: the chosen token had probability 1 under the sampler


def test_sampled_logprobs_match_a_full_forward_pass_and_seed_repeats(tiny):
    a = MLXBackend(*tiny, top_p=0.9).complete(CHAT, TOOLS, max_tokens=10, temperature=1.2, seed=3)
    b = MLXBackend(*tiny, top_p=0.9).complete(CHAT, TOOLS, max_tokens=10, temperature=1.2, seed=3)
    assert a.completion_ids == b.completion_ids
    assert np.allclose(a.logprobs, forward_logprobs(tiny[0], a.prompt_ids, a.completion_ids), atol=1e-4)
    # nucleus + temperature: the sampled distribution is sharper than the raw one, never less likely
    assert all(s <= 0.0 for s in a.sampling_logprobs)
    assert a.sampling_logprobs != a.logprobs


def test_stops_on_im_end_and_keeps_it_in_the_ids(tiny):
    model, tok = tiny
    im_end = tok.convert_tokens_to_ids("<|im_end|>")
    c = MLXBackend(ForceToken(model, im_end, after=4), tok).complete(CHAT, [], max_tokens=50, temperature=0.0,
                                                                     seed=0)
    assert c.finish_reason == "stop"
    assert c.completion_ids[-1] == im_end and im_end not in c.completion_ids[:-1]
    assert len(c.completion_ids) == 4  # 3 free tokens (prefill call + 2 steps), then <|im_end|>
    assert "<|im_end|>" not in c.text
    assert c.text == tok.decode(c.completion_ids[:-1])


def test_prompt_cache_reuse_gives_the_same_tokens_as_a_fresh_cache(tiny):
    reused = MLXBackend(*tiny)
    first = reused.complete(CHAT, TOOLS, max_tokens=8, temperature=0.0, seed=0)
    turn2 = CHAT + [{"role": "assistant", "content": first.text},
                    {"role": "user", "content": "now run the tests"}]
    held_before = len(reused._cache_ids)
    again = reused.complete(turn2, TOOLS, max_tokens=8, temperature=0.0, seed=0)
    fresh = MLXBackend(*tiny, reuse_prompt_cache=False).complete(turn2, TOOLS, max_tokens=8, temperature=0.0,
                                                                  seed=0)
    assert held_before > len(first.prompt_ids)  # the cache held prompt + completion...
    assert again.completion_ids == fresh.completion_ids  # ...and reusing its prefix changes nothing
    assert np.allclose(again.logprobs, fresh.logprobs, atol=1e-4)
    # going back to a shorter conversation trims the cache instead of reusing stale entries
    back = reused.complete(CHAT, TOOLS, max_tokens=8, temperature=0.0, seed=0)
    assert back.completion_ids == first.completion_ids


def test_batch_matches_one_by_one_under_greedy(backend, tiny):
    convs = [CHAT, CHAT[:1] + [{"role": "user", "content": "a much longer request that pads the batch " * 3}],
             [{"role": "user", "content": "hi"}]]
    batch = backend.complete_batch(convs, TOOLS, max_tokens=9, temperature=0.0, seed=0)
    assert len(batch) == 3
    for conv, got in zip(convs, batch):
        one = MLXBackend(*tiny).complete(conv, TOOLS, max_tokens=9, temperature=0.0, seed=0)
        assert got.prompt_ids == one.prompt_ids
        assert got.completion_ids == one.completion_ids
        assert np.allclose(got.logprobs, one.logprobs, atol=1e-4)
        assert np.allclose(got.logprobs, forward_logprobs(tiny[0], got.prompt_ids, got.completion_ids), atol=1e-4)


def test_batch_rows_finish_independently(tiny):
    model, tok = tiny
    im_end = tok.convert_tokens_to_ids("<|im_end|>")
    backend = MLXBackend(ForceToken(model, im_end, after=3), tok)
    out = backend.complete_batch([(CHAT, TOOLS), (CHAT[1:], [])], max_tokens=20, temperature=0.0, seed=0)
    assert [c.finish_reason for c in out] == ["stop", "stop"]
    assert all(c.completion_ids[-1] == im_end for c in out)
    assert out[0].prompt_ids == render_prompt(CHAT, TOOLS, tok) and out[1].prompt_ids == render_prompt(CHAT[1:], [], tok)


def test_sampled_group_differs_between_rows_and_repeats_with_the_seed(backend):
    a = backend.complete_batch([CHAT] * 4, TOOLS, max_tokens=8, temperature=1.0, seed=11)
    b = backend.complete_batch([CHAT] * 4, TOOLS, max_tokens=8, temperature=1.0, seed=11)
    assert [c.completion_ids for c in a] == [c.completion_ids for c in b]
    assert len({tuple(c.completion_ids) for c in a}) > 1  # rows are independent samples
    for c in a:
        assert np.allclose(c.logprobs, c.sampling_logprobs, atol=1e-5)  # T=1, top_p=1: same distribution


def test_bad_requests_are_refused(backend):
    with pytest.raises(ValueError, match="max_tokens"):
        backend.complete(CHAT, TOOLS, max_tokens=0, temperature=0.0, seed=0)
    with pytest.raises(ValueError, match="temperature"):
        backend.complete(CHAT, TOOLS, max_tokens=2, temperature=-1.0, seed=0)
    with pytest.raises(TypeError, match="conversations\\[0\\]"):
        backend.complete_batch(["not a conversation"], TOOLS, max_tokens=2, temperature=0.0, seed=0)
    assert backend.complete_batch([], TOOLS, max_tokens=2, temperature=0.0, seed=0) == []


def test_a_group_prefills_its_shared_prompt_once_and_matches_single_runs(backend, tiny):
    prompts = [render_prompt(CHAT, TOOLS, tiny[1])] * 3
    caches, rests = backend._shared_prefix(prompts)
    assert caches is not None and caches[0][0].offset == len(prompts[0]) - 1 and rests == [prompts[0][-1:]] * 3
    group = backend.complete_batch([CHAT] * 3, TOOLS, max_tokens=7, temperature=0.0, seed=0)
    one = MLXBackend(*tiny).complete(CHAT, TOOLS, max_tokens=7, temperature=0.0, seed=0)
    for c in group:
        assert c.completion_ids == one.completion_ids
        assert np.allclose(c.logprobs, forward_logprobs(tiny[0], c.prompt_ids, c.completion_ids), atol=1e-4)


class StopFirstRow(nn.Module):
    """A model wrapper that makes batch row 0 write `token` at generation step `at` (and leaves other rows alone)."""

    def __init__(self, inner, token, at):
        super().__init__()
        self.inner, self.token, self.at, self.calls = inner, token, at, 0

    @property
    def layers(self):
        return self.inner.layers

    def __call__(self, inputs, cache=None):
        logits = self.inner(inputs, cache=cache)
        if inputs.shape[1] == 1:  # a decode step
            self.calls += 1
            if self.calls == self.at:
                row0 = (mx.arange(logits.shape[0]) == 0)[:, None, None]
                logits = logits + 100.0 * (row0 & (mx.arange(logits.shape[-1]) == self.token))
        return logits


def test_group_rows_that_stop_early_leave_the_others_exact(tiny):
    model, tok = tiny
    im_end = tok.convert_tokens_to_ids("<|im_end|>")
    backend = MLXBackend(StopFirstRow(model, im_end, at=3), tok)
    group = backend.complete_batch([CHAT] * 4, TOOLS, max_tokens=8, temperature=1.0, seed=5)
    assert group[0].finish_reason == "stop" and len(group[0].completion_ids) == 3
    for c in group[1:]:  # these kept generating after row 0 was sliced out of the batch cache
        assert c.completion_tokens == 8 or c.finish_reason == "stop"
        assert np.allclose(c.logprobs, forward_logprobs(model, c.prompt_ids, c.completion_ids), atol=1e-4)
        assert np.allclose(c.logprobs, c.sampling_logprobs, atol=1e-5)


def first_call_probability(model, tok, conv, tools=TOOLS) -> float:
    """P(call opening) after the rendered prompt, from one full forward pass."""
    from nanoagent.agent.backends.reply_rules import open_call_id

    logits = model(mx.array([render_prompt(conv, tools, tok)]))[0, -1].astype(mx.float32)
    return mx.softmax(logits)[open_call_id(tok)].item()


@pytest.mark.parametrize("path", ["single", "equal rows", "different rows", "single with a gate",
                                  "different rows with a gate"])
def test_every_path_reports_the_first_tokens_call_probability(tiny, path):
    """What eval records per item to derive a call threshold's figures: the model's own P(<) at the first token,
    unmasked, whichever decoding path made the reply."""
    model, tok = tiny
    convs = {"single": [CHAT], "single with a gate": [CHAT], "equal rows": [CHAT, CHAT],
             "different rows": [CHAT, [{"role": "user", "content": "a longer request " * 4}]]}
    convs = convs.get(path) or convs["different rows"]
    backend = MLXBackend(model, tok, call_threshold=0.5 if "gate" in path else None)
    if path.startswith("single"):
        got = [backend.complete(convs[0], TOOLS, max_tokens=3, temperature=0.0, seed=0)]
    else:
        got = backend.complete_batch(convs, TOOLS, max_tokens=3, temperature=0.0, seed=0)
    for conv, c in zip(convs, got):
        assert c.call_probability == pytest.approx(first_call_probability(model, tok, conv), rel=1e-3, abs=1e-9)
