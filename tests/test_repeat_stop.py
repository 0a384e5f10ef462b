"""The stop at a repeated call (nanoagent/agent/backends/repeat_stop.py): the text rule, the token cut, the held-back
stream, and every decoding path of the MLX backend; the llama.cpp paths are in test_backends_llamacpp.py.

A scripted sampler stands in for a model that loops: whatever the logits, it writes call A, call B, then A and B
again and again. With `stop_repeats` the reply must end after the first B, its ids, log-probs and text cut
together; without it, the loop runs to the token cap.

Run: .venv/bin/python -m pytest tests/test_repeat_stop.py -q
"""

import nanoagent  # noqa: F401  (OpenBLAS before mlx)

import mlx.core as mx
import pytest
from mlx_lm import load as mlx_load

from nanoagent.agent.backends import mlx_backend
from nanoagent.agent.backends.common import TextStream, copy_start, open_call_start
from nanoagent.agent.backends.mlx_backend import MLXBackend
from nanoagent.agent.backends.repeat_stop import RepeatStop
from nanoagent.testing import save_tiny_model
from nanoagent.toolcall import first_repeat, format_tool_call

A = format_tool_call("shell", {"cmd": "ls"})
B = format_tool_call("shell", {"cmd": "pwd"})
LOOP = "Sure.\n" + "\n".join([A, B] * 4)
FIRST = "Sure.\n" + A + "\n" + B  # what a reply stopped at the first repeat keeps
TOOLS = [{"type": "function", "function": {"name": "shell", "description": "run a command",
                                            "parameters": {"type": "object",
                                                           "properties": {"cmd": {"type": "string"}},
                                                           "required": ["cmd"]}}}]
CHAT = [{"role": "user", "content": "list the files"}]
OTHER = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "where am I?"}]


def test_first_repeat_finds_the_first_copy_of_an_earlier_call():
    assert first_repeat(LOOP) == len(FIRST) + 1
    assert first_repeat(FIRST) is None and first_repeat("no calls at all") is None
    swapped = format_tool_call("f", {"a": 1, "b": 2}) + "\n" + '<tool_call>\n{"arguments": {"b": 2, "a": 1}, "name": "f"}\n</tool_call>'
    assert first_repeat(swapped) == swapped.index("<tool_call>", 1)  # the same JSON, keys in another order
    broken = "<tool_call>\nnot json\n</tool_call><tool_call>\nnot json\n</tool_call>"
    assert first_repeat(broken) == broken.index("<tool_call>", 1)  # compared as text
    assert first_repeat(A + "\n" + A[:-3]) is None  # the copy is not closed yet
    assert first_repeat(format_tool_call("f", {"a": 1}) + format_tool_call("f", {"a": 2})) is None


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return mlx_load(str(save_tiny_model(tmp_path_factory.mktemp("tiny"))))


def test_cut_keeps_the_ids_before_the_repeat(tiny):
    _, tok = tiny
    stop = RepeatStop(tok)
    ids = tok.encode(LOOP, add_special_tokens=False)
    cuts = [(n, stop.cut(ids[:n])) for n in range(1, len(ids) + 1)]
    n, keep = next((n, k) for n, k in cuts if k is not None)
    assert tok.decode(ids[:n]).endswith(A) and tok.decode(ids[:n]).count(A) == 2  # it fires as the copy closes
    assert tok.decode(ids[:keep]) == FIRST
    assert all(stop.cut(ids[:m]) is None for m in range(1, n))


def test_a_token_across_the_boundary_stops_the_reply_with_the_copy_kept(tiny):
    """'><' as one token (SmolLM2 has it): no cut leaves both calls whole, so the reply stops uncut."""
    _, tok = tiny
    stop = RepeatStop(tok)
    stop.text = lambda ids: "".join(PIECES[i] for i in ids)  # a made-up vocabulary of whole pieces
    PIECES = ["<tool_call>\n", '{"name": "f", "arguments": {}}', "\n</tool_call", "><tool_call>\n", "\n</tool_call>"]
    stop.closing = frozenset({3, 4})
    ids = [0, 1, 2, 3, 1, 4]
    assert stop.cut(ids) == len(ids) and first_repeat(stop.text(ids)) is not None
    assert stop.cut(ids[:5]) is None


def test_stream_holds_a_call_only_while_it_may_be_a_copy(tiny):
    """The server streams tool calls as they are written: only a call that may still turn out a copy of an earlier
    one (its text so far starts an earlier call) is held, with the whitespace before it."""
    _, tok = tiny
    assert open_call_start("text <tool_call>\n{") == 5 and open_call_start("text <too") == 5
    assert open_call_start(A) == len(A) and open_call_start("a < b") == len("a < b")
    assert copy_start("x <tool_call>\n{") == len("x <tool_call>\n{")  # a first call: nothing to copy
    assert copy_start(A + "\n" + A[:20]) == len(A) + 1 and copy_start(A + "\n" + B[:40]) == len(A) + 1
    differs = A + "\n" + B[:B.index("pwd") + 1]  # B's text parts from A's: it can't be a copy of A
    assert copy_start(differs) == len(differs)
    ids = tok.encode(FIRST + "\n" + A, add_special_tokens=False)
    pieces = []
    stream = TextStream(tok, [], pieces.append, hold_calls=True)
    seen = []
    for n in range(1, len(ids) + 1):
        stream.push(ids[:n])
        seen.append("".join(pieces))
    assert any(s.count("<tool_call>") > s.count("</tool_call>") for s in seen)  # calls stream as written
    assert all(s.count("<tool_call>") < 3 or s.endswith(A) for s in seen)  # the copy of A: whole, once closed
    stream.push(ids, final=True)
    assert "".join(pieces) == FIRST + "\n" + A


class Script:
    """The loop's token ids, handed out one step at a time to `rows` rows in lockstep."""

    def __init__(self, tok, rows: int = 1):
        self.ids, self.rows, self.calls = tok.encode(LOOP, add_special_tokens=False), rows, 0

    def next(self) -> int:
        token = self.ids[min(self.calls // self.rows, len(self.ids) - 1)]
        self.calls += 1
        return token

    def mlx_sampler(self, *_):
        """mlx-lm's sampler: one call per step for the whole batch."""
        return lambda logprobs: mx.array([self.next()] * logprobs.shape[0])

    def numpy_sampler(self, logits, temperature, top_p, rng):
        return self.next(), 0.0, 0.0


def check(c, tok, stopped: bool):
    assert len(c.completion_ids) == len(c.logprobs) == len(c.sampling_logprobs) == c.completion_tokens
    assert c.text == tok.decode(c.completion_ids)
    if stopped:
        assert c.text == FIRST and c.finish_reason == "repeat"
    else:
        assert c.text.startswith(FIRST + "\n" + A) and c.finish_reason == "length"


@pytest.mark.parametrize("stop,room", [(True, 2), (False, 2), (True, None)], ids=["stop", "off", "at-the-cap"])
@pytest.mark.parametrize("path", ["complete", "equal-rows", "batch-generator"])
def test_mlx_paths_stop_at_the_repeat(tiny, monkeypatch, path, stop, room):
    """`room` None: the copy closes on the max_tokens-th token, which must still be cut (finish "repeat")."""
    model, tok = tiny
    backend = MLXBackend(model, tok, stop_repeats=stop)
    max_tokens = len(tok.encode(FIRST + "\n" + A + ("\n" + B if room else ""), add_special_tokens=False)) + (room or 0)
    if path == "complete":
        script = Script(tok)
        monkeypatch.setattr(mlx_backend, "make_mlx_sampler", script.mlx_sampler)
        streamed = []
        c = backend.complete(CHAT, TOOLS, max_tokens=max_tokens, temperature=0.0, seed=0, on_text=streamed.append)
        check(c, tok, stop)
        assert "".join(streamed) == c.text  # the copy was never streamed
        script.calls = 0  # again, on the cache the cut reply left behind: the same reply
        again = backend.complete(CHAT, TOOLS, max_tokens=max_tokens, temperature=0.0, seed=0)
        assert again.completion_ids == c.completion_ids and again.finish_reason == c.finish_reason
        return
    if path == "equal-rows":
        conversations = [CHAT, CHAT, CHAT]
        script = Script(tok, rows=3)
        monkeypatch.setattr(mlx_backend, "sample_numpy", script.numpy_sampler)
    else:
        conversations = [CHAT, OTHER]
        script = Script(tok)
        monkeypatch.setattr(mlx_backend, "make_mlx_sampler", script.mlx_sampler)
    for c in backend.complete_batch(conversations, TOOLS, max_tokens=max_tokens, temperature=0.0, seed=0):
        check(c, tok, stop)


def test_describe_says_it(tiny):
    model, tok = tiny
    assert "repeated call" in MLXBackend(model, tok, stop_repeats=True).describe()
    assert "repeated call" not in MLXBackend(model, tok).describe()
