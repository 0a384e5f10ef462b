"""Any OpenAI-compatible endpoint (vLLM, llama.cpp's server, llama-cpp-python's server, a hosted API) over plain HTTP.

Two ways to ask, chosen by `mode`:
    "chat"         POST {base_url}/chat/completions with the messages and tools in the OpenAI format. Our canonical
                   tool calls become OpenAI `tool_calls` (arguments as JSON strings, ids `call_N`, each tool turn
                   answering the oldest unanswered id); the reply's `tool_calls` are written back into our text
                   convention (`<tool_call>` blocks after the content), so the agent loop parses every backend's
                   reply the same way. The server's chat template decides the prompt text.
    "completions"  POST {base_url}/completions with OUR rendered prompt text (nanoagent.render, in the
                   `prompt_format` the served model was trained in; default standard) and stop `<|im_end|>`: the
                   prompt is byte-identical to training whatever the server's template is.

Usage:
    backend = OpenAIBackend("http://127.0.0.1:8080/v1", model="smollm2")
    completion = backend.complete(messages, tools, max_tokens=256, temperature=0.0, seed=0)

An API key is read from `api_key` or the OPENAI_API_KEY environment variable (sent only when set). Standard
library only (urllib): no `openai` package needed. Left out: streaming, token ids and log-probs (an endpoint's
tokens are its own; the MLX and llama.cpp backends give exact ids), retries (a failed request raises
BackendError with the URL and the server's message).
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request

from nanoagent.agent.backends.common import BackendError, SampledCompletion
from nanoagent.render import IM_END, format_named, render_text
from nanoagent.toolcall import CLOSE, OPEN, format_tool_call

MODES = ("chat", "completions")


def to_openai_messages(messages: list[dict]) -> list[dict]:
    """Canonical messages -> OpenAI chat messages (tool call ids made up and matched in order)."""
    out, pending, next_id = [], [], 0
    for msg in messages:
        role = msg["role"]
        if role == "assistant" and msg.get("tool_calls"):
            calls = []
            for call in msg["tool_calls"]:
                fn = call.get("function", call)
                args = fn.get("arguments", {})
                calls.append({"id": f"call_{next_id}", "type": "function",
                              "function": {"name": fn["name"],
                                           "arguments": args if isinstance(args, str) else
                                           json.dumps(args, ensure_ascii=False)}})
                next_id += 1
            pending = [c["id"] for c in calls]
            out.append({"role": "assistant", "content": msg.get("content") or None, "tool_calls": calls})
        elif role == "tool":
            # A tool turn with no call to answer (the loop's feedback on a malformed call) keeps a fresh id:
            # the conversation stays in the shape the model saw.
            if pending:
                call_id = pending.pop(0)
            else:
                call_id, next_id = f"call_{next_id}", next_id + 1
            entry = {"role": "tool", "tool_call_id": call_id, "content": msg.get("content") or ""}
            if msg.get("name"):
                entry["name"] = msg["name"]
            out.append(entry)
        else:
            out.append({"role": role, "content": msg.get("content") or ""})
    return out


def call_text(name: str, arguments) -> str:
    """One returned OpenAI tool call in our text convention; unparsable arguments stay visible to our parser."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError:
            return f'{OPEN}\n{{"name": {json.dumps(name)}, "arguments": {arguments}}}\n{CLOSE}'
    if not isinstance(arguments, dict):
        return f'{OPEN}\n{{"name": {json.dumps(name)}, "arguments": {json.dumps(arguments)}}}\n{CLOSE}'
    return format_tool_call(name, arguments)


def reply_text(message: dict) -> str:
    """An OpenAI assistant message -> our assistant text (content, then one <tool_call> block per call)."""
    text = message.get("content") or ""
    for call in message.get("tool_calls") or []:
        fn = call.get("function") or {}
        text += ("\n" if text else "") + call_text(fn.get("name", ""), fn.get("arguments", {}))
    return text


class OpenAIBackend:
    """An OpenAI-compatible endpoint. `base_url` ends with the API root, e.g. `http://127.0.0.1:8080/v1`."""

    def __init__(self, base_url: str, model: str = "default", *, mode: str = "chat", api_key: str | None = None,
                 top_p: float = 1.0, tool_choice: str | dict | None = None, timeout: float = 300.0,
                 tokenizer=None, prompt_format=None):
        if not base_url.startswith(("http://", "https://")):
            raise BackendError(f"endpoint URL {base_url!r} must start with http:// or https://, "
                               "e.g. http://127.0.0.1:8080/v1")
        if mode not in MODES:
            raise BackendError(f"mode {mode!r} is not one of {MODES}")
        if prompt_format is not None and mode == "chat":
            raise BackendError("a prompt format applies to completions mode only: in chat mode the server's chat "
                               "template renders the prompt")
        self.fmt = format_named(prompt_format) if mode == "completions" else None  # chat: the server's template
        self.base_url = base_url.rstrip("/")
        self.model, self.mode, self.top_p, self.timeout = model, mode, top_p, timeout
        self.tool_choice = tool_choice  # chat mode: "auto", "required" or {"type": "function", ...}; None: not sent
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        self.tokenizer = tokenizer  # only to count tokens when a server sends no `usage`

    def _post(self, path: str, body: dict) -> dict:
        url = f"{self.base_url}/{path}"
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                raw = response.read()
        except urllib.error.HTTPError as e:
            detail = e.read().decode(errors="replace")[:500]
            raise BackendError(f"{url} answered HTTP {e.code}: {detail}") from None
        except (urllib.error.URLError, TimeoutError, ConnectionError) as e:
            reason = getattr(e, "reason", e)
            raise BackendError(f"could not reach {url} ({reason}). Is the server running and is the URL the API "
                               "root (ending in /v1 for most servers)?") from None
        try:
            return json.loads(raw)
        except json.JSONDecodeError:
            raise BackendError(f"{url} did not answer JSON: {raw[:200]!r}") from None

    def _count(self, text: str) -> int:
        if self.tokenizer is None:
            return 0
        return len(self.tokenizer.encode(text, add_special_tokens=False))

    def complete(self, messages: list[dict], tools: list[dict], *, max_tokens: int, temperature: float,
                 seed: int | None) -> SampledCompletion:
        body = {"model": self.model, "max_tokens": max_tokens, "temperature": temperature, "top_p": self.top_p}
        if seed is not None:
            body["seed"] = seed
        start = time.perf_counter()
        if self.mode == "chat":
            body["messages"] = to_openai_messages(messages)
            if tools:
                body["tools"] = tools
                if self.tool_choice is not None:
                    body["tool_choice"] = self.tool_choice
            data = self._post("chat/completions", body)
            choice = self._first_choice(data)
            text = reply_text(choice.get("message") or {})
            prompt_text = None
        else:
            prompt_text = render_text(messages, tools, add_generation_prompt=True, fmt=self.fmt)
            body.update(prompt=prompt_text, stop=[IM_END])
            data = self._post("completions", body)
            choice = self._first_choice(data)
            text = choice.get("text") or ""
        seconds = time.perf_counter() - start
        usage = data.get("usage") or {}
        finish = choice.get("finish_reason") or "stop"
        prompt_tokens = usage.get("prompt_tokens")
        if prompt_tokens is None:
            prompt_tokens = self._count(prompt_text or json.dumps(messages))
        completion_tokens = usage.get("completion_tokens")
        if completion_tokens is None:
            completion_tokens = self._count(text)
        return SampledCompletion(text=text, prompt_ids=None, completion_ids=None, logprobs=None,
                                 finish_reason="stop" if finish == "tool_calls" else finish,
                                 prompt_tokens=int(prompt_tokens), completion_tokens=int(completion_tokens),
                                 seconds=seconds)

    def _first_choice(self, data: dict) -> dict:
        choices = data.get("choices")
        if not choices:
            raise BackendError(f"{self.base_url} answered without choices: {json.dumps(data)[:300]}")
        return choices[0]

    def describe(self) -> str:
        return f"OpenAI-compatible endpoint {self.base_url} (model {self.model!r}, {self.mode} mode)"
