"""`nanoagent serve MODEL`: a local OpenAI-compatible server for a GGUF (llama.cpp) or an MLX model, with
schema-constrained tool calls.

    nanoagent serve exports/model-q8_0.gguf --port 8080           # http://127.0.0.1:8080/v1
    nanoagent serve embedded --no-constrain

Endpoints: `GET /v1/models`, `POST /v1/chat/completions` (messages with system/user/assistant/tool roles,
`tools`, `tool_choice` "auto" | "none" | "required" | {"type": "function", "function": {"name": ...}},
`max_tokens` or `max_completion_tokens`, `temperature`, `seed`, `stream`), `GET /health`. The prompt is rendered
with our renderer (nanoagent.render), exactly as in training; the reply's `<tool_call>` blocks come back as
OpenAI `tool_calls` (arguments as a JSON string) with finish_reason "tool_calls". With constraints on (the
default), every call names an offered tool and fits its schema (nanoagent.constrain); "required" and a named
function make the grammar demand a call; "none" offers no tools. With `stream`, text is sent as it is generated
(server-sent events) and the calls in one final delta (text from a "<" on is held back until the reply ends, in
case it opens a call).

One model, one request at a time: every generation runs on one worker thread (llama.cpp holds one context, and MLX
makes a stream, and an OS thread, per thread that uses it: nanoagent/mlx_streams.py); requests wait their turn on
their own threads. A malformed request gets a 400 with a message that says what is wrong; a client that
disconnects mid-stream stops its reply at the next piece the server sends it (text that may open a call is held
back, so a hang-up inside a call is noticed when the reply ends). `server_close()` (Ctrl-C) cancels the queued
requests and stops the reply in progress at its next piece of text (both answered 503), then releases the worker's
MLX streams.
Any OpenAI-compatible agent can use it: base URL http://127.0.0.1:PORT/v1, any API key, model name as listed.
Left out: /v1/completions, logprobs in responses, n > 1, authentication (it binds to 127.0.0.1 by default).
"""

from __future__ import annotations

import json
import sys
import threading
import time
import uuid
from concurrent.futures import CancelledError, ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from nanoagent.mlx_streams import release_streams
from nanoagent.toolcall import CLOSE, ToolCallError, parse

MAX_BODY = 8 * 1024 * 1024
ROLES = ("system", "user", "assistant", "tool")


class RequestError(ValueError):
    """A request the server refuses with 400; the message names the field."""


def _arguments(raw, where: str) -> dict:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            value = json.loads(raw or "{}")
        except json.JSONDecodeError:
            raise RequestError(f"{where}: arguments must be a JSON object string") from None
        if isinstance(value, dict):
            return value
    raise RequestError(f"{where}: arguments must be a JSON object (or its JSON string)")


def canonical_messages(messages) -> list[dict]:
    """OpenAI chat messages -> our canonical messages (nanoagent.record); RequestError names a bad one."""
    if not isinstance(messages, list) or not messages:
        raise RequestError("'messages' must be a non-empty list")
    out = []
    for i, m in enumerate(messages):
        where = f"messages[{i}]"
        if not isinstance(m, dict) or m.get("role") not in ROLES:
            raise RequestError(f"{where}: 'role' must be one of {', '.join(ROLES)}")
        content = m.get("content")
        if isinstance(content, list):  # content parts: keep the text ones
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
        if content is not None and not isinstance(content, str):
            raise RequestError(f"{where}: 'content' must be a string, a list of text parts, or null")
        msg = {"role": m["role"], "content": content or ""}
        if m["role"] == "assistant" and m.get("tool_calls"):
            calls = []
            for j, c in enumerate(m["tool_calls"]):
                fn = c.get("function") if isinstance(c, dict) else None
                if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
                    raise RequestError(f"{where}.tool_calls[{j}]: needs function.name")
                calls.append({"type": "function", "function": {
                    "name": fn["name"], "arguments": _arguments(fn.get("arguments", {}), f"{where}.tool_calls[{j}]")}})
            msg["tool_calls"] = calls
        if m["role"] == "tool" and m.get("tool_call_id"):
            msg["tool_call_id"] = str(m["tool_call_id"])
        out.append(msg)
    return out


def request_tools(body: dict, default_tools: list[dict] | None = None) -> tuple[list[dict], bool]:
    """(tools to offer, whether a call is required) from `tools` and `tool_choice`; a request without tools gets
    `default_tools` (the server's own, `nanoagent serve --tools`)."""
    tools = body.get("tools") or list(default_tools or [])
    if not isinstance(tools, list):
        raise RequestError("'tools' must be a list of {\"type\": \"function\", \"function\": {...}}")
    for i, t in enumerate(tools):
        fn = t.get("function") if isinstance(t, dict) else None
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
            raise RequestError(f"tools[{i}]: needs {{\"type\": \"function\", \"function\": {{\"name\": ...}}}}")
        if "parameters" in fn and not isinstance(fn["parameters"], dict):
            raise RequestError(f"tools[{i}] ({fn['name']}): 'parameters' must be a JSON Schema object")
    choice = body.get("tool_choice", "auto")
    if choice in (None, "auto"):
        return tools, False
    if choice == "none":
        return [], False
    if choice == "required":
        if not tools:
            raise RequestError("tool_choice 'required' needs 'tools'")
        return tools, True
    if isinstance(choice, dict) and isinstance(choice.get("function"), dict):
        name = choice["function"].get("name")
        picked = [t for t in tools if t["function"]["name"] == name]
        if not picked:
            raise RequestError(f"tool_choice names {name!r}, which is not in 'tools'")
        return picked, True
    raise RequestError("tool_choice must be 'auto', 'none', 'required' or {\"type\": \"function\", "
                       "\"function\": {\"name\": ...}}")


def _number(body, key, default, kind, low, high=None):
    value = body.get(key, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (kind is int and value != int(value)):
        raise RequestError(f"'{key}' must be {'an integer' if kind is int else 'a number'}")
    if value < low or (high is not None and value > high):
        raise RequestError(f"'{key}' must be between {low} and {high}" if high is not None
                           else f"'{key}' must be >= {low}")
    return kind(value)


def reply_message(text: str, tools: list[dict]) -> tuple[dict, str]:
    """The OpenAI assistant message and finish_reason for a model reply. A reply cut off inside a call keeps the
    calls it finished; one whose calls do not parse comes back as plain text (nothing is lost)."""
    reply = None
    for candidate in (text, text[:text.rfind(CLOSE) + len(CLOSE)] if CLOSE in text else None):
        try:
            reply = parse(candidate, tools) if tools and candidate else None
            break
        except ToolCallError:
            continue
    if reply is None or not reply.tool_calls:
        return {"role": "assistant", "content": text}, "stop"
    calls = [{"id": f"call_{uuid.uuid4().hex[:24]}", "type": "function",
              "function": {"name": c["function"]["name"],
                           "arguments": json.dumps(c["function"]["arguments"], ensure_ascii=False)}}
             for c in reply.tool_calls]
    return {"role": "assistant", "content": reply.content or None, "tool_calls": calls}, "tool_calls"


class ClientGone(Exception):
    """Raised into a streamed generation when its client has disconnected: the reply stops there."""


class ServerClosing(Exception):
    """The server is shutting down: a queued request is cancelled and the reply in progress stops (503)."""


class ModelServer:
    """The model behind the HTTP handler: one backend, one worker thread that runs every generation in turn, the
    request -> response logic."""

    def __init__(self, backend, model_name: str, max_tokens_default: int = 512, default_tools: list | None = None):
        self.backend, self.model_name, self.max_tokens_default = backend, model_name, max_tokens_default
        self.default_tools = list(default_tools or [])  # offered when a request brings none
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="nanoagent-model")
        self.lock = threading.Lock()  # orders submissions against close(): nothing is queued after the release
        self.queued: set = set()      # the generations not yet finished, cancelled by close()
        self.closed = False
        self.created = int(time.time())

    def prepare(self, body) -> dict:
        if not isinstance(body, dict):
            raise RequestError("the request body must be a JSON object")
        tools, required = request_tools(body, self.default_tools)
        return {
            "messages": canonical_messages(body.get("messages")),
            "tools": tools, "tool_choice": "required" if required else "auto",
            "max_tokens": _number(body, "max_completion_tokens", None, int, 1)
            or _number(body, "max_tokens", self.max_tokens_default, int, 1),
            "temperature": _number(body, "temperature", 0.0, float, 0.0, 2.0),
            "seed": _number(body, "seed", 0, int, 0),
            "stream": bool(body.get("stream", False)),
        }

    def generate(self, req: dict, on_text=None):
        """Run one request's generation on the worker (after those queued before it) and wait for it. Raises
        ServerClosing once close() has begun: before the generation starts, or at its next piece of text."""
        def checked(piece: str) -> None:
            if self.closed:
                raise ServerClosing
            if on_text is not None:
                on_text(piece)

        with self.lock:
            if self.closed:
                raise ServerClosing
            future = self.worker.submit(self.backend.complete, req["messages"], req["tools"],
                                        max_tokens=req["max_tokens"], temperature=req["temperature"],
                                        seed=req["seed"], tool_choice=req["tool_choice"], on_text=checked)
            self.queued.add(future)
        try:
            return future.result()
        except CancelledError:
            raise ServerClosing from None
        finally:
            with self.lock:
                self.queued.discard(future)

    def close(self) -> None:
        """Stop at once: cancel the queued generations, stop the one in progress at its next piece of text, release
        the worker's MLX streams on the worker, stop it. Requests that arrive later get 503; later calls do
        nothing."""
        with self.lock:
            if self.closed:
                return
            self.closed = True
            for future in self.queued:
                future.cancel()
            release = self.worker.submit(release_streams)
        release.result()
        self.worker.shutdown()

    def response(self, req: dict, completion) -> dict:
        message, finish = reply_message(completion.text, req["tools"])
        if completion.finish_reason == "length" and finish == "stop":
            finish = "length"
        return {"id": f"chatcmpl-{uuid.uuid4().hex[:24]}", "object": "chat.completion", "created": int(time.time()),
                "model": self.model_name, "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": {"prompt_tokens": completion.prompt_tokens, "completion_tokens": completion.completion_tokens,
                          "total_tokens": completion.prompt_tokens + completion.completion_tokens}}


def make_handler(server: ModelServer):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *args):  # one line per request on stderr
            sys.stderr.write(f"{self.address_string()} {fmt % args}\n")

        def _json(self, status: int, obj: dict) -> None:
            data = json.dumps(obj).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _error(self, status: int, message: str) -> None:
            self._json(status, {"error": {"message": message, "type": "invalid_request_error", "code": status}})

        def do_GET(self):
            if self.path.rstrip("/") in ("/v1/models", "/models"):
                self._json(200, {"object": "list", "data": [{"id": server.model_name, "object": "model",
                                                             "created": server.created, "owned_by": "nanoagent"}]})
            elif self.path.rstrip("/") == "/health":
                self._json(200, {"status": "ok"})
            else:
                self._error(404, f"no route GET {self.path}; try /v1/models or POST /v1/chat/completions")

        def do_POST(self):
            if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
                return self._error(404, f"no route POST {self.path}; use /v1/chat/completions")
            try:
                length = int(self.headers.get("Content-Length") or 0)
                if length <= 0 or length > MAX_BODY:
                    raise RequestError(f"the body must be a JSON object of at most {MAX_BODY} bytes "
                                       "(set Content-Length)")
                try:
                    body = json.loads(self.rfile.read(length))
                except (json.JSONDecodeError, UnicodeDecodeError) as e:
                    raise RequestError(f"the body is not valid JSON ({e})") from None
                req = server.prepare(body)
            except RequestError as e:
                return self._error(400, str(e))
            if req["stream"]:
                return self._stream(req)
            try:
                completion = server.generate(req)
            except ServerClosing:
                return self._error(503, "the server is shutting down")
            except Exception as e:  # a backend failure is the server's, not the client's
                return self._error(500, f"generation failed: {type(e).__name__}: {e}")
            self._json(200, server.response(req, completion))

        def _stream(self, req: dict) -> None:
            cid, created = f"chatcmpl-{uuid.uuid4().hex[:24]}", int(time.time())
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            gone = threading.Event()
            pending = []  # text held back while a <tool_call> may be starting

            def send(delta: dict, finish=None) -> None:
                if gone.is_set():
                    return
                chunk = {"id": cid, "object": "chat.completion.chunk", "created": created, "model": server.model_name,
                         "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
                try:
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                except OSError:  # the client went away: stop generating for it
                    gone.set()

            def on_text(piece: str) -> None:
                if gone.is_set():
                    raise ClientGone
                pending.append(piece)
                text = "".join(pending)
                if "<" in text and req["tools"]:
                    return  # may be the start of a call: sent (or parsed) at the end
                pending.clear()
                send({"content": text})

            send({"role": "assistant", "content": ""})
            try:
                completion = server.generate(req, on_text=on_text)
            except ClientGone:
                return
            except ServerClosing:
                send({"content": "[the server is shutting down]"}, "stop")
                return
            except Exception as e:
                send({"content": f"[generation failed: {type(e).__name__}]"}, "stop")
                return
            message, finish = reply_message("".join(pending), req["tools"]) if pending else ({}, "stop")
            if completion.finish_reason == "length" and finish == "stop":
                finish = "length"
            if message.get("tool_calls"):
                if message.get("content"):
                    send({"content": message["content"]})
                send({"tool_calls": [{**c, "index": i} for i, c in enumerate(message["tool_calls"])]})
            elif message.get("content"):
                send({"content": message["content"]})
            send({}, finish)
            if not gone.is_set():
                try:
                    self.wfile.write(b"data: [DONE]\n\n")
                    self.wfile.flush()
                except OSError:
                    pass

    return Handler


class ModelHTTPServer(ThreadingHTTPServer):
    """A thread per connection (they only parse, wait and write); `server_close()` also closes the model's worker."""

    def __init__(self, address, model: ModelServer):
        self.model = model
        super().__init__(address, make_handler(model))

    def server_close(self) -> None:
        super().server_close()
        self.model.close()


def serve(backend, model_name: str, host: str = "127.0.0.1", port: int = 8080, ready=None,
          default_tools: list | None = None) -> ModelHTTPServer:
    """Build the HTTP server (call `.serve_forever()`, or run it on a thread in tests); `ready(url)` is told where.
    `default_tools`: offered to every request that brings no `tools` of its own."""
    httpd = ModelHTTPServer((host, port), ModelServer(backend, model_name, default_tools=default_tools))
    if ready:
        ready(f"http://{host}:{httpd.server_address[1]}/v1")
    return httpd


__all__ = ["ClientGone", "ModelHTTPServer", "ModelServer", "RequestError", "canonical_messages", "reply_message",
           "request_tools", "serve"]
