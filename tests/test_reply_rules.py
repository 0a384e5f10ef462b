"""The call threshold (nanoagent/agent/backends/reply_rules.py) on its own and wired into the MLX backend's three
decoding paths; the llama.cpp wiring is tested in test_backends_llamacpp.py.

A tiny random llama whose logits are biased towards the call-opening token (half the probability mass, the argmax
at every step) stands in for a trained model that opens a call on every prompt: a threshold above that probability
must keep every reply free of "<", and one below it must leave the model's own choice.

Run: .venv/bin/python -m pytest tests/test_reply_rules.py -q
"""

import nanoagent  # noqa: F401  (OpenBLAS before mlx)

import mlx.core as mx
import numpy as np
import pytest
from mlx_lm import load as mlx_load

from nanoagent.agent.backends.common import BackendError
from nanoagent.agent.backends.mlx_backend import MLXBackend
from nanoagent.agent.backends.reply_rules import CallGate, ReplyRules, angle_ids, call_probability
from nanoagent.testing import save_tiny_model

TOOLS = [{"type": "function", "function": {"name": "shell", "description": "run a command",
                                            "parameters": {"type": "object",
                                                           "properties": {"cmd": {"type": "string"}},
                                                           "required": ["cmd"]}}}]
CHAT = [{"role": "user", "content": "list the files"}]
OTHER = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "what is two and two?"}]


@pytest.fixture(scope="module")
def biased(tmp_path_factory):
    """The tiny model with its logits pushed towards the call opening, and its tokenizer."""
    model, tok = mlx_load(str(save_tiny_model(tmp_path_factory.mktemp("tiny"))))
    open_id = CallGate(tok, 0.5).open_id
    vocab = model.args.vocab_size
    base = type(model)

    class Biased(base):
        def __call__(self, *args, **kwargs):
            logits = base.__call__(self, *args, **kwargs)
            # about half the mass on the opening whatever the other logits are: it dominates them by log(vocab)
            bump = mx.zeros((vocab,)).at[open_id].add(float(np.log(vocab)))
            return logits.astype(mx.float32) * 0.01 + bump

    model.__class__ = Biased
    return model, tok, open_id


def test_call_probability_and_a_gate_that_decides_once():
    logits = np.log(np.array([0.6, 0.3, 0.1]))
    assert call_probability(logits, 0) == pytest.approx(0.6)
    gate = CallGate.__new__(CallGate)  # a 3-token vocabulary: token 0 opens a call, token 1 holds "<"
    gate.threshold, gate.open_id, gate.banned = 0.7, 0, np.array([0, 1])
    reply = gate.reply()
    first = reply.mask(logits)
    assert reply.declined and np.isneginf(first[:2]).all() and np.isfinite(first[2])
    later = reply.mask(np.log(np.array([0.98, 0.01, 0.01])))  # decided at the first token: still text
    assert np.isneginf(later[:2]).all()
    kept = CallGate.__new__(CallGate)
    kept.threshold, kept.open_id, kept.banned = 0.5, 0, np.array([0, 1])
    assert np.array_equal(ReplyRules(kept.reply()).mask(logits), logits)
    assert not ReplyRules(None, None) and ReplyRules(reply)


def test_angle_ids_are_the_tokens_holding_an_angle_bracket_but_not_the_special_ones(biased):
    """<|im_end|> must stay allowed (a declined reply still ends), so the special tokens are not banned."""
    _, tok, open_id = biased
    ids = angle_ids(tok)
    assert open_id in ids and all("<" in tok.decode([int(i)]) for i in ids)
    left = {i for i in range(len(tok.get_vocab())) if "<" in tok.decode([i])} - set(ids.tolist())
    assert left == set(tok.all_special_ids) and tok.convert_tokens_to_ids("<|im_end|>") in left


def test_a_threshold_outside_zero_and_one_is_refused(biased):
    with pytest.raises(BackendError, match="between 0 and 1"):
        MLXBackend(*biased[:2], call_threshold=1.5)


@pytest.mark.parametrize("path", ["complete", "equal-rows", "batch-generator"])
def test_mlx_threshold_keeps_declined_replies_free_of_calls(biased, path):
    model, tok, open_id = biased

    def replies(threshold, max_tokens):
        backend = MLXBackend(model, tok, call_threshold=threshold)
        if path == "complete":
            return [backend.complete(CHAT, TOOLS, max_tokens=max_tokens, temperature=0.0, seed=0)]
        convs = [CHAT, CHAT] if path == "equal-rows" else [CHAT, OTHER]
        return backend.complete_batch(convs, TOOLS, max_tokens=max_tokens, temperature=0.0, seed=0)

    for c in replies(None, 1) + replies(0.3, 1):  # the opening is the argmax: the model's own choice is a call
        assert c.completion_ids == [open_id]
    for c in replies(0.9, 6):  # below 0.9 at the first token: text to the end, though "<" stays the argmax
        assert len(c.completion_ids) == 6 and "<" not in tok.decode(c.completion_ids)
        assert all(lp < 0 for lp in c.logprobs)  # the model's own log-probs, not the masked distribution's
    assert "call threshold 0.9" in MLXBackend(model, tok, call_threshold=0.9).describe()


def test_mlx_threshold_leaves_prompts_without_tools_alone(biased):
    model, tok, open_id = biased
    c = MLXBackend(model, tok, call_threshold=0.9).complete(CHAT, [], max_tokens=1, temperature=0.0, seed=0)
    assert c.completion_ids == [open_id]


def test_a_reply_that_must_call_has_no_threshold(biased):
    """tool_choice "required" under the grammar and a declining threshold would ban every token; the call wins."""
    model, tok, open_id = biased
    backend = MLXBackend(model, tok, call_threshold=0.9, constrain=True)
    c = backend.complete(CHAT, TOOLS, max_tokens=1, temperature=0.0, seed=0, tool_choice="required")
    assert c.completion_ids == [open_id]
