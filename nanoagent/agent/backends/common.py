"""What the three model backends share: the Completion they return, their error type, stop tokens, prompt caching.

`SampledCompletion` is the protocol's `Completion` (nanoagent/agent/backend.py) plus `sampling_logprobs`: the
log-probs of the sampled ids under the distribution they were drawn from (temperature and top-p applied), next to
`logprobs`, which are always the raw temperature-1 log-probs (see sampling.py), and `call_probability`: the model's
own probability, at the reply's first token and before any threshold or grammar, of opening a tool call (what the
call threshold compares; eval records it so one unthresholded run also gives the figures at any threshold). Code
that only knows `Completion` can ignore the extra fields.

Left out: anything backend-specific (each backend is one file: mlx_backend.py, llamacpp.py, openai_http.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from nanoagent.agent.backend import Completion
from nanoagent.render import IM_END
from nanoagent.toolcall import CLOSE, OPEN

STOP_TOKENS = (IM_END, "<|endoftext|>")  # end of an assistant turn; <|endoftext|> too, in case a model emits it


class BackendError(RuntimeError):
    """A backend that cannot be built or reached; the message says what to do."""


@dataclass
class SampledCompletion(Completion):
    sampling_logprobs: list[float] | None = None
    call_probability: float | None = None


def stop_token_ids(tokenizer) -> list[int]:
    """Ids of the end-of-turn tokens in `tokenizer` (an HF tokenizer or an mlx-lm TokenizerWrapper)."""
    vocab = tokenizer.get_vocab()
    ids = [vocab[t] for t in STOP_TOKENS if t in vocab]
    if not ids:
        raise BackendError(f"the tokenizer has none of the end-of-turn tokens {STOP_TOKENS}: generation could not "
                           "stop. Use a ChatML tokenizer (SmolLM2's, or one saved by nanoagent).")
    return ids


def common_prefix(a, b) -> int:
    """Length of the longest common prefix of two id sequences."""
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def decode(tokenizer, ids: list[int], stop_ids) -> str:
    """The completion text: ids decoded without the end-of-turn token that closed them."""
    if ids and ids[-1] in stop_ids:
        ids = ids[:-1]
    return tokenizer.decode(ids, skip_special_tokens=False)


class TextStream:
    """Calls `on_text(piece)` at every push with the text the completion ids add since the last push: "" when
    they add none yet, so a caller can stop the reply at any token by raising (a server whose client hung up).
    Nothing happens when on_text is None. The text is decoded whole each time and only a stable prefix is sent: a
    piece ending in half a UTF-8 character (decoded as U+FFFD) waits for the next token. With `hold_calls` an open
    tool call that may still become a copy of an earlier call of the reply (its text so far is the start of one,
    or of an opening tag) waits, with the whitespace before it, until it closes or differs; so a backend that cuts
    a reply at a repeated call (repeat_stop.py) never streams the copy, and every other call streams as it is
    written (a copy written another way, its keys in another order, streams before the cut; under a grammar a call
    is written one way only). `push(ids, final=True)` at the end sends whatever is left."""

    def __init__(self, tokenizer, stop_ids, on_text=None, hold_calls: bool = False):
        self.tokenizer, self.stop_ids, self.on_text, self.sent = tokenizer, stop_ids, on_text, 0
        self.hold_calls = hold_calls

    def push(self, ids: list[int], final: bool = False) -> None:
        if self.on_text is None:
            return
        text, new = decode(self.tokenizer, ids, self.stop_ids), ""
        if final or not text.endswith("\ufffd"):
            if self.hold_calls and not final:  # trailing whitespace too: a cut call takes the space before it along
                text = text[:copy_start(text)].rstrip()
            if len(text) > self.sent:
                new, self.sent = text[self.sent:], len(text)
        self.on_text(new)


def open_call_start(text: str) -> int:
    """Where a tool call that is not closed yet begins in `text` (its opening tag, or a trailing start of one);
    len(text) when every call is closed."""
    start = text.rfind(OPEN)
    if start >= 0 and text.find(CLOSE, start) < 0:
        return start
    for n in range(min(len(OPEN) - 1, len(text)), 0, -1):
        if OPEN.startswith(text[-n:]):
            return len(text) - n
    return len(text)


def copy_start(text: str) -> int:
    """Where an open tool call begins that may still turn out a copy of an earlier closed call of `text` (its text
    so far starts one of theirs), or a trailing start of an opening tag; len(text) when there is none."""
    start = open_call_start(text)
    partial = text[start:]
    if not partial.startswith(OPEN):
        return start  # a trailing start of a tag (or nothing)
    earlier, pos = [], 0
    while (begin := text.find(OPEN, pos)) >= 0 and begin < start:
        end = text.find(CLOSE, begin) + len(CLOSE)
        earlier.append(text[begin:end])
        pos = end
    return start if any(call.startswith(partial) for call in earlier) else len(text)


def conversations_with_tools(conversations, tools) -> list[tuple[list[dict], list[dict]]]:
    """Accept `[messages, ...]` with one shared `tools`, or `[(messages, tools), ...]`."""
    pairs = []
    for i, conv in enumerate(conversations):
        if isinstance(conv, tuple) and len(conv) == 2:
            pairs.append((list(conv[0]), list(conv[1] or [])))
        elif isinstance(conv, list) and all(isinstance(m, dict) for m in conv):
            pairs.append((conv, list(tools or [])))
        else:
            raise TypeError(f"conversations[{i}] must be a list of message dicts or a (messages, tools) pair, "
                            f"got {type(conv).__name__}")
    return pairs


def batch_completions(tokenizer, stop_ids, prompts: list[list[int]], rows, seconds: float) -> list[SampledCompletion]:
    """One SampledCompletion per generated row `(ids, raw log-probs, sampling log-probs, finish, call probability)`,
    in prompt order; `seconds` is the whole batch's wall time (what both backends' `complete_batch` return)."""
    return [SampledCompletion(text=decode(tokenizer, ids, stop_ids), prompt_ids=prompts[i], completion_ids=ids,
                              logprobs=raw, finish_reason=finish, prompt_tokens=len(prompts[i]),
                              completion_tokens=len(ids), seconds=seconds, sampling_logprobs=sampled,
                              call_probability=p_call)
            for i, (ids, raw, sampled, finish, p_call) in enumerate(rows)]


def batch_prompts(conversations, tools, tokenizer, fmt) -> tuple[list[list[int]], list[list[dict]]]:
    """The rendered prompt (in the model's PromptFormat `fmt`) and the offered tools of every conversation of a
    `complete_batch` call."""
    from nanoagent.render import render_prompt

    pairs = conversations_with_tools(conversations, tools)
    return [render_prompt(m, t, tokenizer, fmt) for m, t in pairs], [t for _, t in pairs]
