"""The one small interface between the agent loop and a model, plus a scripted model for tests.

A backend turns the conversation so far (canonical messages + tool specs) into the model's next reply:

    class Backend(Protocol):
        def complete(self, messages, tools, *, max_tokens, temperature, seed) -> Completion

`Completion.text` is the raw reply (tool calls still inside <tool_call> tags: the loop parses them with
nanoagent.toolcall). Backends that sample tokens themselves (MLX in-process) also return the exact
`prompt_ids`, `completion_ids` and their `logprobs`, so RL never re-tokenizes text; others leave them None.
Token counts come from the model's real tokenizer. Implementations: nanoagent/agent/backends/ (MLX,
llama-cpp-python, OpenAI-compatible) and `ScriptedBackend` here.

A backend may also offer `complete_batch(list_of_messages, tools, ...) -> list[Completion]` (several rollouts of one
task as one batch); `nanoagent.agent.loop.run_agents` uses it when present.

Usage (tests):
    backend = ScriptedBackend(['<tool_call>\\n{"name": "shell", "arguments": {"cmd": "ls"}}\\n</tool_call>', "Done."])

Left out: streaming (the loop prints whole steps), sampling options beyond temperature and seed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from nanoagent.render import format_named


@dataclass
class Completion:
    text: str
    prompt_ids: list[int] | None = None
    completion_ids: list[int] | None = None
    logprobs: list[float] | None = None   # one per completion id: log p of the sampled token
    finish_reason: str = "stop"           # "stop" (end of turn), "length" (hit max_tokens), "repeat" (repeat_stop.py)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0


@runtime_checkable
class Backend(Protocol):
    def complete(self, messages: list[dict], tools: list[dict], *, max_tokens: int, temperature: float,
                 seed: int | None) -> Completion: ...


class ScriptExhausted(RuntimeError):
    """The scripted model was asked for more replies than it has."""


class ScriptedBackend:
    """A model that answers with a fixed list of replies, in order (STYLE.md item 7).

    With a tokenizer, token counts (and prompt/completion ids) are real, rendered with nanoagent.render; without
    one, tokens are counted as whitespace-separated words, which is enough to test the budgets.
    """

    name = "scripted"

    def __init__(self, replies: list[str], tokenizer=None, prompt_format=None):
        if not isinstance(replies, list) or not all(isinstance(r, str) for r in replies):
            raise TypeError("ScriptedBackend needs a list of reply strings")
        self.replies = list(replies)
        self.tokenizer = tokenizer
        self.fmt = format_named(prompt_format)  # how prompts are rendered when a tokenizer is given
        self.calls: list[list[dict]] = []  # the messages each call saw, for tests

    def complete(self, messages: list[dict], tools: list[dict], *, max_tokens: int = 512, temperature: float = 0.0,
                 seed: int | None = None) -> Completion:
        start = time.perf_counter()
        self.calls.append([dict(m) for m in messages])
        if len(self.calls) > len(self.replies):
            raise ScriptExhausted(f"the script has only {len(self.replies)} replies and call "
                                  f"{len(self.calls)} asked for another")
        text = self.replies[len(self.calls) - 1]
        if self.tokenizer is None:
            prompt_n = sum(len(str(m.get("content", "")).split()) for m in messages)
            out_n = len(text.split())
            prompt_ids = completion_ids = None
        else:
            from nanoagent.render import IM_END, backend_tokenizer, render_prompt

            prompt_ids = render_prompt(messages, tools, self.tokenizer, self.fmt)
            completion_ids = list(backend_tokenizer(self.tokenizer).encode(text + IM_END,
                                                                           add_special_tokens=False).ids)
            prompt_n, out_n = len(prompt_ids), len(completion_ids)
        finish = "stop"
        if out_n > max_tokens:
            finish, out_n = "length", max_tokens
            if completion_ids is not None:
                completion_ids = completion_ids[:max_tokens]
        return Completion(text=text, prompt_ids=prompt_ids, completion_ids=completion_ids, logprobs=None,
                          finish_reason=finish, prompt_tokens=prompt_n, completion_tokens=out_n,
                          seconds=time.perf_counter() - start)
