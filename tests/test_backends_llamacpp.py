"""The llama-cpp-python backend on the embedded SmolLM2-135M Q4_1 GGUF (few tokens per test).

Run: .venv/bin/python -m pytest tests/test_backends_llamacpp.py -q
Only the real GGUF proves these points (our ids fed to llama.cpp, its logits turned into our log-probs), so these
tests use it; each generates at most a few dozen tokens.
"""

import nanoagent  # noqa: F401  (OpenBLAS before mlx)

import numpy as np
import pytest

pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")

from nanoagent.agent.backend import Backend  # noqa: E402
from nanoagent.agent.backends import BackendError, load_backend  # noqa: E402
from nanoagent.agent.backends.llamacpp import LlamaCppBackend  # noqa: E402
from nanoagent.render import render_prompt  # noqa: E402

pytestmark = pytest.mark.slow

QUESTION = [{"role": "user", "content": "What is the capital of France?"}]


@pytest.fixture(scope="module")
def gguf_backend():
    backend = load_backend("embedded-gguf", n_ctx=2048, n_threads=1)  # 1 thread: robust on a shared CPU
    yield backend
    backend.close()


def test_is_a_backend(gguf_backend):
    assert isinstance(gguf_backend, Backend)


def test_greedy_answer_with_our_prompt_ids(gguf_backend, embedded_tokenizer):
    c = gguf_backend.complete(QUESTION, [], max_tokens=24, temperature=0.0, seed=0)
    assert c.prompt_ids == render_prompt(QUESTION, [], embedded_tokenizer)
    assert "Paris" in c.text
    assert c.finish_reason == "stop" and c.completion_ids[-1] == embedded_tokenizer.convert_tokens_to_ids("<|im_end|>")
    assert c.text == embedded_tokenizer.decode(c.completion_ids[:-1])
    assert len(c.logprobs) == len(c.sampling_logprobs) == c.completion_tokens == len(c.completion_ids)
    assert all(lp <= 0 for lp in c.logprobs) and c.sampling_logprobs == [0.0] * len(c.logprobs)


def test_logprobs_are_llama_cpp_logits_for_the_same_ids(gguf_backend):
    gguf_backend.llm.reset()  # same evaluation order as the reference below: whole prompt, then one id at a time
    c = gguf_backend.complete(QUESTION, [], max_tokens=6, temperature=0.0, seed=0)
    llm = gguf_backend.llm
    llm.reset()
    expected = []
    for i, token in enumerate(c.completion_ids):
        llm.eval(c.prompt_ids if i == 0 else [c.completion_ids[i - 1]])
        logits = gguf_backend._logits()
        expected.append(logits[token] - (logits.max() + np.log(np.exp(logits - logits.max()).sum())))
        assert token == int(np.argmax(logits))
    assert np.allclose(c.logprobs, expected, atol=1e-6)


def test_next_turn_reuses_the_cache_and_matches_a_fresh_context(gguf_backend):
    first = gguf_backend.complete(QUESTION, [], max_tokens=16, temperature=0.0, seed=0)
    turn2 = QUESTION + [{"role": "assistant", "content": first.text},
                        {"role": "user", "content": "And of Germany?"}]
    again = gguf_backend.complete(turn2, [], max_tokens=16, temperature=0.0, seed=0)
    gguf_backend.llm.reset()
    fresh = gguf_backend.complete(turn2, [], max_tokens=16, temperature=0.0, seed=0)
    assert again.completion_ids == fresh.completion_ids
    # llama.cpp's quantized matmuls round differently for other batch splits: close, not bitwise equal
    assert np.allclose(again.logprobs, fresh.logprobs, atol=2e-2)


def test_sampling_with_seed(gguf_backend):
    gguf_backend.top_p = 0.9
    try:
        a = gguf_backend.complete(QUESTION, [], max_tokens=10, temperature=1.0, seed=5)
        b = gguf_backend.complete(QUESTION, [], max_tokens=10, temperature=1.0, seed=5)
    finally:
        gguf_backend.top_p = 1.0
    assert a.completion_ids == b.completion_ids
    assert all(s >= r - 1e-9 for s, r in zip(a.sampling_logprobs, a.logprobs))  # nucleus renormalises upward


def test_max_tokens_gives_length(gguf_backend):
    c = gguf_backend.complete([{"role": "user", "content": "Write a long poem about the sea."}], [], max_tokens=3,
                              temperature=0.0, seed=0)
    assert c.finish_reason == "length" and len(c.completion_ids) == 3


def test_a_mismatched_tokenizer_is_refused(embedded_gguf, tiny_tok):
    with pytest.raises(BackendError, match="does not match"):
        LlamaCppBackend(embedded_gguf, tokenizer=tiny_tok, n_ctx=256)


def test_missing_gguf_is_a_clear_error(tmp_path):
    with pytest.raises(BackendError, match="does not exist"):
        LlamaCppBackend(tmp_path / "nope.gguf")


def test_a_call_threshold_makes_the_reply_text(embedded_gguf):
    """The same tool-offering prompt: a threshold the call opening can't reach gives a text reply; the first
    token's logit is the only one touched, and a threshold outside (0, 1) is refused."""
    from nanoagent.agent.backends.llamacpp import LlamaCppBackend
    from nanoagent.record import DEMO_RECORD

    backend = LlamaCppBackend(embedded_gguf, n_ctx=2048, call_threshold=0.999)
    c = backend.complete(DEMO_RECORD["messages"], DEMO_RECORD["tools"], max_tokens=24, temperature=0.0, seed=0)
    assert "<" not in c.text and backend.gate.open_id not in c.completion_ids  # declined: no call anywhere in the reply
    assert "call threshold 0.999" in backend.describe()
    backend.close()
    with pytest.raises(BackendError, match="between 0 and 1"):
        LlamaCppBackend(embedded_gguf, n_ctx=512, call_threshold=1.5)


def test_a_declined_reply_never_opens_a_call_later(embedded_gguf, monkeypatch):
    """The first-token-only rule let the model write "One moment." and open the call on the next line. Here the
    call opening is the most likely token at every step (probability 0.5, below the 0.9 threshold at the first):
    a declined reply must still never hold it."""
    from nanoagent.record import DEMO_RECORD

    backend = LlamaCppBackend(embedded_gguf, n_ctx=2048, call_threshold=0.9)
    logits = np.zeros(backend.n_vocab)
    logits[backend.gate.open_id] = np.log(backend.n_vocab - 1)  # half the probability mass, and the argmax
    monkeypatch.setattr(backend, "_logits", lambda: logits.copy())
    c = backend.complete(DEMO_RECORD["messages"], DEMO_RECORD["tools"], max_tokens=5, temperature=0.0, seed=0)
    assert backend.gate.open_id not in c.completion_ids and "<" not in c.text
    backend.gate.threshold = 0.3  # 0.5 is enough now: the model's own choice stands
    c = backend.complete(DEMO_RECORD["messages"], DEMO_RECORD["tools"], max_tokens=1, temperature=0.0, seed=0)
    assert c.completion_ids == [backend.gate.open_id]
    backend.close()


def test_the_reply_reports_the_first_tokens_call_probability(embedded_gguf):
    """What eval derives a threshold's figures from: P(call opening) on the very logits the gate reads."""
    from nanoagent.agent.backends.reply_rules import call_probability
    from nanoagent.record import DEMO_RECORD
    from nanoagent.render import render_prompt

    backend = LlamaCppBackend(embedded_gguf, n_ctx=2048)
    c = backend.complete(DEMO_RECORD["messages"], DEMO_RECORD["tools"], max_tokens=3, temperature=0.0, seed=0)
    fresh = LlamaCppBackend(embedded_gguf, n_ctx=2048)  # the same prompt from an empty cache, as the reply had
    fresh._feed_prompt(render_prompt(DEMO_RECORD["messages"], DEMO_RECORD["tools"], fresh.tokenizer))
    assert c.call_probability == call_probability(fresh._logits(), fresh.open_id)
    fresh.close()
    assert 0.0 < c.call_probability < 1.0
    batch = backend.complete_batch([DEMO_RECORD["messages"]], DEMO_RECORD["tools"], max_tokens=3, temperature=0.0,
                                   seed=0)
    # the batch context evaluates the prompt in other chunks: Q4_1 rounds differently, within ~10% here
    assert batch[0].call_probability == pytest.approx(c.call_probability, rel=0.15)
    backend.close()


@pytest.mark.parametrize("batch", [False, True])
def test_a_reply_stops_at_its_first_repeated_call(embedded_gguf, embedded_tokenizer, monkeypatch, batch):
    """Whatever the model says, the script writes call A, call B, then A again and on: with stop_repeats the reply
    ends after the first B (ids, log-probs and text cut together); the batch path the same, per row."""
    from nanoagent.agent.backends import llamacpp_batch
    from nanoagent.record import DEMO_RECORD
    from nanoagent.toolcall import format_tool_call

    a, b = format_tool_call("f", {"x": 1}), format_tool_call("f", {"x": 2})
    script = embedded_tokenizer.encode("\n".join([a, b] * 3), add_special_tokens=False)
    backend = LlamaCppBackend(embedded_gguf, n_ctx=2048, stop_repeats=True)
    if batch:
        rows, calls = 2, [0]

        def scripted(logits, temperature, top_p, rng):
            token = script[min(calls[0] // rows, len(script) - 1)]
            calls[0] += 1
            return token, -1.0, 0.0

        monkeypatch.setattr(llamacpp_batch, "sample_numpy", scripted)
        out = backend.complete_batch([DEMO_RECORD["messages"]] * rows, DEMO_RECORD["tools"], max_tokens=len(script),
                                     temperature=0.0, seed=0)
    else:
        step = [0]

        def logits():
            z = np.zeros(backend.n_vocab)
            z[script[min(step[0], len(script) - 1)]] = 50.0
            step[0] += 1
            return z

        monkeypatch.setattr(backend, "_logits", logits)
        out = [backend.complete(DEMO_RECORD["messages"], DEMO_RECORD["tools"], max_tokens=len(script),
                                temperature=0.0, seed=0)]
    for c in out:
        assert c.text == a + "\n" + b and c.finish_reason == "repeat"
        assert len(c.completion_ids) == len(c.logprobs) == len(c.sampling_logprobs) == c.completion_tokens
        assert embedded_tokenizer.decode(c.completion_ids) == c.text
    backend.close()


def test_an_amx_build_is_refused_with_the_fix(monkeypatch):
    from nanoagent.agent.backends.llamacpp import check_no_amx

    info = "CPU : AVX512 = 1 | AVX512_BF16 = 1 | AMX_INT8 = 1 | OPENMP = 1 | "
    monkeypatch.delenv("NANOAGENT_LLAMA_AMX", raising=False)
    with pytest.raises(BackendError, match="scripts/setup.sh"):
        check_no_amx(info)
    check_no_amx(info.replace("AMX_INT8 = 1 | ", ""))  # a build without AMX passes
    monkeypatch.setenv("NANOAGENT_LLAMA_AMX", "1")
    check_no_amx(info)  # the user's override
