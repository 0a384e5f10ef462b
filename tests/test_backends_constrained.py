"""Both in-process backends under the tool-call grammar (nanoagent.constrain): a tiny random model, which never
writes a call on its own, writes only schema-valid calls when the grammar requires one, on every decoding path
(MLX `complete`, the equal-rows batch, the BatchGenerator batch; llama.cpp on the embedded GGUF), and the
log-probs the backends report stay the model's own.

Run: .venv/bin/python -m pytest tests/test_backends_constrained.py -q
"""

import nanoagent  # noqa: F401  (OpenBLAS before mlx)

import numpy as np
import pytest
from mlx_lm import load as mlx_load

from nanoagent.agent.backends.mlx_backend import MLXBackend
from nanoagent.testing import save_tiny_model
from nanoagent.toolcall import OPEN, ToolCallError, parse

TOOLS = [{"type": "function", "function": {"name": "set_unit", "description": "choose the unit",
                                            "parameters": {"type": "object",
                                                           "properties": {"unit": {"type": "string",
                                                                                   "enum": ["c", "f"]}},
                                                           "required": ["unit"]}}}]
CHAT = [{"role": "user", "content": "use celsius"}]
OTHER = [{"role": "system", "content": "You are terse and exact."}, {"role": "user", "content": "fahrenheit, please"}]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return mlx_load(str(save_tiny_model(tmp_path_factory.mktemp("tiny"))))


def assert_valid_calls(c):
    """A finished reply parses into schema-valid calls; a cut-off one is a prefix of such calls."""
    if c.finish_reason == "stop":
        reply = parse(c.text, TOOLS)
        assert reply.tool_calls and reply.content == ""
    else:
        blocks = [b for b in c.text.split("</tool_call>")[:-1] if b.strip()]
        assert c.text.startswith(OPEN)
        for b in blocks:
            parse(b + "</tool_call>", TOOLS)


def test_unconstrained_tiny_model_writes_no_valid_call(tiny):
    c = MLXBackend(*tiny).complete(CHAT, TOOLS, max_tokens=40, temperature=0.0, seed=0)
    with pytest.raises((ToolCallError, AssertionError)):
        assert parse(c.text, TOOLS).tool_calls


def test_mlx_complete_writes_only_valid_calls(tiny):
    backend = MLXBackend(*tiny, constrain="required")
    for seed in range(3):
        c = backend.complete(CHAT, TOOLS, max_tokens=120, temperature=1.0, seed=seed)
        assert_valid_calls(c)
    assert "constrained" in backend.describe()


@pytest.mark.parametrize("conversations", [[CHAT, CHAT, CHAT], [CHAT, OTHER]], ids=["equal-rows", "batch-generator"])
def test_mlx_batches_write_only_valid_calls(tiny, conversations):
    for c in MLXBackend(*tiny, constrain="required").complete_batch(conversations, TOOLS, max_tokens=120,
                                                                    temperature=1.0, seed=1):
        assert_valid_calls(c)


def test_reported_logprobs_are_the_models_own(tiny):
    from tests.test_backends_mlx import forward_logprobs

    model, tok = tiny
    for backend_kw, batch in [({}, False), ({}, True)]:
        backend = MLXBackend(model, tok, constrain="required", **backend_kw)
        c = (backend.complete_batch([CHAT, OTHER], TOOLS, max_tokens=30, temperature=0.0, seed=0)[0] if batch
             else backend.complete(CHAT, TOOLS, max_tokens=30, temperature=0.0, seed=0))
        ref = forward_logprobs(model, c.prompt_ids, c.completion_ids)
        assert np.allclose(c.logprobs, ref, atol=1e-3)
        assert min(c.logprobs) < -2  # the grammar forced tokens the random model finds unlikely


def test_lazy_grammar_leaves_plain_text_alone(tiny):
    plain = MLXBackend(*tiny).complete(CHAT, TOOLS, max_tokens=30, temperature=0.0, seed=0)
    lazy = MLXBackend(*tiny, constrain=True).complete(CHAT, TOOLS, max_tokens=30, temperature=0.0, seed=0)
    if OPEN not in plain.text:  # the random model writes no tag: the lazy grammar changes nothing
        assert lazy.completion_ids == plain.completion_ids


@pytest.mark.slow
def test_llamacpp_writes_only_valid_calls():
    pytest.importorskip("llama_cpp")
    from nanoagent.agent.backends import load_backend

    backend = load_backend("embedded-gguf", n_ctx=2048, n_threads=1, constrain="required")
    try:
        c = backend.complete(CHAT, TOOLS, max_tokens=60, temperature=0.0, seed=0)
        assert_valid_calls(c)  # the base model, made to call, repeats the call until max_tokens
        first = parse(c.text.split("</tool_call>")[0] + "</tool_call>", TOOLS).tool_calls[0]["function"]
        assert first == {"name": "set_unit", "arguments": {"unit": "c"}}  # and picks the unit the user asked for
    finally:
        backend.close()
