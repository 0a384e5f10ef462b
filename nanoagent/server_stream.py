"""Streamed replies of `nanoagent serve`: the model's text, piece by piece, as OpenAI chat-completion chunks.

    deltas = CallDeltas(tools, live=True)
    for piece in pieces:
        send_each(deltas.feed(piece))          # {"content": ...} and {"tool_calls": [...]} deltas
    rest, finish = deltas.close("stop")        # what was held back, and the finish_reason

Text outside tool calls goes out as `content` as it comes; a tail that may open a call (`<tool_c`) or is only
whitespace waits for what follows (whitespace next to a call is dropped, as the non-streamed reply strips it). A
call goes out as OpenAI streams one: a first delta with `index`, `id`, `type` "function" and `function.name` (its
`arguments` ""), then `function.arguments` pieces, which add up to the arguments' JSON. How soon depends on whether
the request's calls are decoded under its tools' grammar (nanoagent.constrain):
- live (a constrained backend and tools whose schemas compile): the first delta as soon as the name is written, the
  arguments as they are generated. The grammar makes every call name an offered tool and fit its schema, so nothing
  sent needs taking back; a call cut off by max_tokens ends the stream with its arguments unfinished and
  finish_reason "length", as OpenAI's does.
- checked (no grammar): each call when it closes, once it parses and fits its tool's schema (nanoagent.toolcall);
  a call that does not goes out as text, as the non-streamed reply returns calls that do not parse.
A call still open when the reply ends is dropped if calls went out before it, else sent as text (nothing is lost).

`StreamedReply` writes the chunks as server-sent events on a request handler's socket (a failed write raises
ClientGone); with `stream_options: {"include_usage": true}` every chunk carries `"usage": null` and a last chunk,
with empty `choices`, the reply's token counts.

Left out: `logprobs` in chunks, and checking a live call against its schema (the grammar does that).
"""

from __future__ import annotations

import json
import re
import time
import uuid

from nanoagent.toolcall import CLOSE, OPEN, ToolCallError, parse_call_json

HEAD = re.compile(r'\s*\{\s*"name"\s*:\s*"((?:[^"\\]|\\.)*)"\s*,\s*"arguments"\s*:\s*')  # a call's JSON up to its args


class ClientGone(Exception):
    """Raised into a generation whose client has disconnected: the reply stops there."""


def _tag_start(text: str) -> int:
    """Where a trailing start of an opening tag begins in `text` (len(text) when it ends otherwise)."""
    for n in range(min(len(OPEN) - 1, len(text)), 0, -1):
        if OPEN.startswith(text[-n:]):
            return len(text) - n
    return len(text)


class ArgumentScanner:
    """Finds where a JSON value ends in text that arrives in pieces (strings and escapes honoured)."""

    def __init__(self):
        self.depth, self.in_string, self.escaped, self.started, self.done = 0, False, False, False, False

    def take(self, text: str) -> int:
        """How many characters of `text` belong to the value (all of them until it ends)."""
        for i, ch in enumerate(text):
            if self.in_string:
                self.escaped, self.in_string = (False, True) if self.escaped else (ch == "\\", ch != '"')
            elif ch == '"':
                self.in_string = True
            elif ch in "{[":
                self.depth, self.started = self.depth + 1, True
            elif ch in "}]":
                self.depth -= 1
            if self.started and self.depth == 0:
                self.done = True
                return i + 1
        return len(text)


class Call:
    """One tool call being read: its text after the opening tag, and what of it has gone out."""

    def __init__(self, index: int, lead: str = ""):
        self.index, self.lead, self.body, self.announced = index, lead, "", False  # lead: the whitespace before it
        self.args_at, self.sent, self.scanner = 0, 0, ArgumentScanner()

    def head(self, name: str) -> dict:
        return {"index": self.index, "id": f"call_{uuid.uuid4().hex[:24]}", "type": "function",
                "function": {"name": name, "arguments": ""}}

    def arguments(self, piece: str) -> dict:
        return {"index": self.index, "function": {"arguments": piece}}


class CallDeltas:
    """A reply's text in, chunk deltas out (see the module docstring). `tools`: the request's; `live`: its calls
    are decoded under their grammar."""

    def __init__(self, tools: list[dict], live: bool = False):
        self.names = {t.get("function", t).get("name") for t in tools}
        self.tools, self.live = tools, live and bool(tools)
        self.buf, self.call, self.calls = "", None, 0
        self.cut_short = False  # the last call that went out is unfinished

    def feed(self, piece: str) -> list[dict]:
        self.buf += piece
        return self._drain()

    def close(self, finish_reason: str) -> tuple[list[dict], str]:
        """The deltas still held back, and the reply's finish_reason ("tool_calls" once a call went out, unless
        the last one was cut off; else "length" when the backend ran out of tokens, else "stop")."""
        out = self._drain()
        if self.call is not None:
            if self.call.announced:
                self.cut_short = True
            elif not self.calls:
                out += self._content(self.call.lead + OPEN + self.call.body)
        elif self.buf and (not self.tools or not self.calls):
            out += self._content(self.buf)
        self.buf, self.call = "", None
        if self.calls and not self.cut_short:
            return out, "tool_calls"
        return out, "length" if finish_reason == "length" or self.cut_short else "stop"

    def _content(self, text: str) -> list[dict]:
        return [{"content": text}] if text else []

    def _drain(self) -> list[dict]:
        out = []
        while True:
            if self.call is None:
                if not self.tools:
                    out += self._content(self.buf)
                    self.buf = ""
                    return out
                start = self.buf.find(OPEN)
                if start < 0:
                    keep = len(self.buf[:_tag_start(self.buf)].rstrip())
                    out += self._content(self.buf[:keep])
                    self.buf = self.buf[keep:]
                    return out
                text = self.buf[:start].rstrip()
                out += self._content(text)
                self.call, self.buf = Call(self.calls, self.buf[len(text):start]), self.buf[start + len(OPEN):]
            self.call.body += self.buf
            self.buf = ""
            end = self.call.body.find(CLOSE)
            if end < 0:
                if self.live:
                    out += self._live(self.call)
                return out
            call, self.buf = self.call, self.call.body[end + len(CLOSE):]
            call.body = call.body[:end]
            self.call = None
            out += self._live(call, closed=True) if self.live and call.announced else self._checked(call)

    def _live(self, call: Call, closed: bool = False) -> list[dict]:
        """The call's first delta once its name is written, then its arguments as far as they go."""
        out = []
        if not call.announced:
            found = HEAD.match(call.body)
            if not found:
                return out
            try:
                name = json.loads(f'"{found.group(1)}"')
            except ValueError:
                return out
            if name not in self.names:
                return out  # can't happen under the grammar: the call is checked when it closes
            call.announced, call.args_at, call.sent = True, found.end(), found.end()
            self.calls += 1
            out.append({"tool_calls": [call.head(name)]})
        if not call.scanner.done:
            new = call.body[call.sent:]
            piece = new[:call.scanner.take(new)]
            if closed and not call.scanner.done:  # not an object after all: what stands before the call's "}"
                piece = new.rstrip()[:-1] if new.rstrip().endswith("}") else new
            call.sent += len(piece)
            if piece:
                out.append({"tool_calls": [call.arguments(piece)]})
        return out

    def _checked(self, call: Call) -> list[dict]:
        """A closed call that was not streamed live: both deltas when it parses and fits, else its text."""
        try:
            parsed = parse_call_json(call.body, self.tools)
        except ToolCallError:
            return self._content(call.lead + OPEN + call.body + CLOSE)
        call.index, self.calls = self.calls, self.calls + 1
        fn = parsed["function"]
        return [{"tool_calls": [call.head(fn["name"])]},
                {"tool_calls": [call.arguments(json.dumps(fn["arguments"], ensure_ascii=False))]}]


class StreamedReply:
    """One streamed reply as server-sent events, written on its handler's thread; a failed write raises ClientGone.
    `req` is the checked request (nanoagent.server_requests): its tools and `include_usage`."""

    def __init__(self, handler, model_name: str, req: dict, live: bool = False):
        self.handler, self.model_name = handler, model_name
        self.usage = req.get("include_usage", False)
        self.deltas = CallDeltas(req["tools"], live)
        self.cid, self.created = f"chatcmpl-{uuid.uuid4().hex[:24]}", int(time.time())
        self.started = False

    def start(self) -> None:
        h = self.handler
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.send_header("Cache-Control", "no-cache")
        h.send_header("Connection", "close")
        h.close_connection = True
        self.started = True
        try:
            h.end_headers()
        except OSError:
            raise ClientGone from None
        self._send({"role": "assistant", "content": ""})

    def text(self, piece: str) -> None:
        for delta in self.deltas.feed(piece):
            self._send(delta)

    def finish(self, completion) -> None:
        rest, finish = self.deltas.close(completion.finish_reason)
        for delta in rest:
            self._send(delta)
        self._send({}, finish)
        if self.usage:
            prompt, generated = completion.prompt_tokens, completion.completion_tokens
            self._chunk([], {"prompt_tokens": prompt, "completion_tokens": generated,
                             "total_tokens": prompt + generated})
        self._write(b"data: [DONE]\n\n")

    def fail(self, note: str) -> None:
        self._send({"content": f"[{note}]"}, "stop")

    def _send(self, delta: dict, finish=None) -> None:
        self._chunk([{"index": 0, "delta": delta, "finish_reason": finish}])

    def _chunk(self, choices: list, usage: dict | None = None) -> None:
        chunk = {"id": self.cid, "object": "chat.completion.chunk", "created": self.created, "model": self.model_name,
                 "choices": choices}
        if self.usage:
            chunk["usage"] = usage
        self._write(f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n".encode())

    def _write(self, data: bytes) -> None:
        try:
            self.handler.wfile.write(data)
            self.handler.wfile.flush()
        except OSError:
            raise ClientGone from None
