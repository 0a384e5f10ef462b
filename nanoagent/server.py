"""`nanoagent serve MODEL`: a local OpenAI-compatible server for a GGUF (llama.cpp) or an MLX model, with
schema-constrained tool calls.

    nanoagent serve exports/model-q8_0.gguf --port 8080           # http://127.0.0.1:8080/v1
    nanoagent serve embedded --no-constrain --max-tokens-limit 1024 --queue-timeout 30

Endpoints: `GET /v1/models`, `POST /v1/chat/completions` (messages with system/user/assistant/tool roles,
`tools`, `tool_choice` "auto" | "none" | "required" | {"type": "function", "function": {"name": ...}},
`max_tokens` or `max_completion_tokens`, `temperature`, `seed`, `stream`, `stream_options.include_usage`),
`GET /health`. The prompt is rendered with our renderer (nanoagent.render), exactly as in training; the reply's
`<tool_call>` blocks come back as OpenAI `tool_calls` (arguments as a JSON string) with finish_reason "tool_calls".
With constraints on (the default), every call names an offered tool and fits its schema (nanoagent.constrain);
"required" and a named function make the grammar demand a call, and tools whose schemas can't be compiled into a
grammar then get a 400 naming the tool ("none" offers no tools; with --no-constrain nothing enforces "required").
With `stream`, the reply goes out as server-sent events while it is generated (nanoagent/server_stream.py): text as
`content` deltas, each call as OpenAI's `tool_calls` deltas (its name first, then its arguments as they are written
when the grammar decodes it, else once it closes and parses), and with `include_usage` a last chunk of token counts.

Hostile clients. Every request gets an HTTP response; a client error is a 4xx with OpenAI's error object
(`{"error": {"message", "type", "param", "code"}}`) whose message names the field and what is wrong
(nanoagent/server_requests.py checks the body). Limits, each a `serve()` argument and a CLI flag:
- reply length: `max_tokens` is clamped to the room the model's context leaves after the prompt and to
  `max_tokens_limit` (--max-tokens-limit), as llama.cpp's server clamps n_predict to its --n-predict and stops at a
  full context (vLLM answers 400 instead); the reply then ends with finish_reason "length". A prompt that leaves
  no room at all is a 400.
- reading: a request's headers and body must arrive within `read_timeout` seconds (--read-timeout): a body
  shorter than its Content-Length gets a 408 and the connection is closed, freeing its thread.
- waiting: a request still queued after `queue_timeout` seconds (--queue-timeout) gets a 503 with Retry-After.
- hanging up: while a request waits or generates, its handler polls the socket for EOF every POLL_SECONDS; a
  client that has gone (streaming or not; shutting down only its sending side counts) stops its generation at
  the next token, through the backend's `on_text` callback, which the backends call at every token. A long
  prompt's prefill is not interrupted.

One model, one request at a time: every generation runs on one worker thread (llama.cpp holds one context, and MLX
makes a stream, and an OS thread, per thread that uses it: nanoagent/mlx_streams.py). The worker never touches a
socket: it hands each piece of text to the request's handler thread, which writes it and watches its client.
`server_close()` (Ctrl-C) cancels the queued requests and stops the reply in progress at its next token (both
answered 503), then releases the worker's MLX streams.
Any OpenAI-compatible agent can use it: base URL http://127.0.0.1:PORT/v1, any API key, model name as listed.
Left out: /v1/completions, logprobs in responses, n > 1, authentication (it binds to 127.0.0.1 by default), a cap
on connections (one thread each).
"""

from __future__ import annotations

import json
import queue
import re
import select
import socket
import sys
import threading
import time
import traceback
import uuid
from concurrent.futures import CancelledError, ThreadPoolExecutor
from functools import lru_cache
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from nanoagent.mlx_streams import release_streams
from nanoagent.server_requests import RequestError, canonical_messages, chat_request, enforceable, parse_body, \
    request_tools
from nanoagent.server_stream import ClientGone, StreamedReply
from nanoagent.toolcall import CLOSE, ToolCallError, parse

MAX_BODY = 8 * 1024 * 1024
MAX_TOKENS_LIMIT = 4096    # the longest reply a request may ask for, unless the server is started with another
READ_TIMEOUT = 10.0        # seconds for a request's headers and body to arrive
QUEUE_TIMEOUT = 300.0      # seconds a request may wait for the model before a 503
RETRY_AFTER = 5            # seconds, in a 503's Retry-After
POLL_SECONDS = 0.2         # how often a waiting handler looks for a hang-up
ERROR_TYPES = {404: "not_found_error", 405: "invalid_request_error", 408: "timeout_error",
               500: "server_error", 503: "server_unavailable_error"}


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


class ServerClosing(Exception):
    """The server is shutting down: a queued request is cancelled and the reply in progress stops (503)."""


class ServerBusy(Exception):
    """A request waited longer than the queue timeout for the model (503 with Retry-After)."""


@lru_cache(maxsize=64)
def grammar_compiles(tools_json: str, require_call: bool) -> bool:
    from nanoagent.constrain import tool_grammar

    return tool_grammar(json.loads(tools_json), require_call)[0] is not None


def prompt_length(backend, messages: list[dict], tools: list[dict]) -> int | None:
    """The prompt's length in tokens as the backend will render it, or None for a backend without a tokenizer."""
    tokenizer, fmt = getattr(backend, "tokenizer", None), getattr(backend, "fmt", None)
    if tokenizer is None or fmt is None:
        return None
    from nanoagent.render import render_prompt

    return len(render_prompt(messages, tools, tokenizer, fmt))


def peer_closed(sock) -> bool:
    """True once the client has closed or reset its end of `sock`; never blocks, and leaves the bytes it sent
    (a pipelined request) in the socket."""
    try:
        poller = select.poll()
        poller.register(sock, select.POLLIN)
        events = poller.poll(0)
        if not events:
            return False
        if events[0][1] & (select.POLLHUP | select.POLLERR | select.POLLNVAL):
            return True
        return sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


class ModelServer:
    """The model behind the HTTP handler: one backend, one worker thread that runs every generation in turn, the
    request -> response logic."""

    def __init__(self, backend, model_name: str, max_tokens_default: int = 512, default_tools: list | None = None,
                 max_tokens_limit: int = MAX_TOKENS_LIMIT, queue_timeout: float = QUEUE_TIMEOUT):
        self.backend, self.model_name = backend, model_name
        self.max_tokens_default, self.max_tokens_limit = max_tokens_default, max_tokens_limit
        self.queue_timeout = queue_timeout
        self.default_tools = list(default_tools or [])  # offered when a request brings none
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="nanoagent-model")
        self.lock = threading.Lock()  # orders submissions against close(): nothing is queued after the release
        self.queued: set = set()      # the generations not yet finished, cancelled by close()
        self.closed = False
        self.created = int(time.time())

    def prepare(self, body) -> dict:
        """The checked request (nanoagent.server_requests); RequestError names what is wrong."""
        if not isinstance(body, dict):
            raise RequestError("the request body must be a JSON object")
        req = chat_request(body, self.default_tools)
        if req["tool_choice"] == "required" and getattr(self.backend, "constrained", False):
            enforceable(req["tools"])
        return req

    def calls_under_grammar(self, req: dict) -> bool:
        """Whether the request's tool calls are decoded under its tools' grammar: a constrained backend, and
        schemas that compile (otherwise the backend decodes without one)."""
        if not req["tools"] or not getattr(self.backend, "constrained", False):
            return False
        return grammar_compiles(json.dumps(req["tools"], sort_keys=True), req["tool_choice"] == "required")

    def fit(self, req: dict) -> int:
        """The reply's token budget: what the request asks (or the default), clamped to the server's limit and to
        the room the model's context leaves after the prompt. RequestError when the prompt alone fills it."""
        wanted = min(req["max_tokens"] or self.max_tokens_default, self.max_tokens_limit)
        context = getattr(self.backend, "context_length", None)
        used = prompt_length(self.backend, req["messages"], req["tools"]) if context else None
        if used is None:
            return wanted
        if used >= context:
            raise RequestError(f"the prompt is {used} tokens and the model's context holds {context}, leaving no "
                               "room for a reply: shorten the messages or offer fewer tools", "messages")
        return min(wanted, context - used)

    def generate(self, req: dict, on_text=None, client_gone=None, on_start=None):
        """Run one request's generation on the worker (after those queued before it) and wait for it, on the
        caller's thread: `on_start()` when it begins, `on_text(piece)` with each piece of text, `client_gone()`
        asked every POLL_SECONDS. Raises ServerClosing once close() has begun, ServerBusy after queue_timeout in
        the queue, ClientGone when the client has gone (the generation stops at its next token), RequestError when
        the prompt leaves no room for a reply."""
        events, stop = queue.SimpleQueue(), threading.Event()

        def checked(piece: str) -> None:  # on the worker, at every token
            if self.closed:
                raise ServerClosing
            if stop.is_set():
                raise ClientGone
            if piece and on_text is not None:
                events.put(("text", piece))

        def job():
            if stop.is_set():
                raise ClientGone
            max_tokens = self.fit(req)
            events.put(("start", None))
            return self.backend.complete(req["messages"], req["tools"], max_tokens=max_tokens,
                                         temperature=req["temperature"], seed=req["seed"],
                                         tool_choice=req["tool_choice"], on_text=checked)

        with self.lock:
            if self.closed:
                raise ServerClosing
            future = self.worker.submit(job)
            self.queued.add(future)
        future.add_done_callback(lambda _: events.put(("done", None)))
        try:
            return self._follow(future, events, on_text, client_gone, on_start)
        except BaseException:  # nobody waits for it any more: stop it at its next token, or before it starts
            stop.set()
            future.cancel()
            raise
        finally:
            with self.lock:
                self.queued.discard(future)

    def _follow(self, future, events, on_text, client_gone, on_start):
        """Hand the worker's events to the caller's callbacks until the generation ends (see generate)."""
        give_up, next_poll = time.monotonic() + self.queue_timeout, 0.0
        while True:
            try:
                kind, piece = events.get(timeout=POLL_SECONDS)
            except queue.Empty:
                kind = piece = None
            if kind == "done":
                try:
                    return future.result()
                except CancelledError:
                    raise ServerClosing from None
            if kind == "start" and on_start is not None:
                on_start()
            elif kind == "text":
                on_text(piece)
            now = time.monotonic()
            if client_gone is not None and now >= next_poll:
                next_poll = now + POLL_SECONDS
                if client_gone():
                    raise ClientGone
            if now > give_up and future.cancel():
                raise ServerBusy(f"the server is busy: this request waited {self.queue_timeout:g} s for the model "
                                 f"without starting; retry in {RETRY_AFTER} s")

    def close(self) -> None:
        """Stop at once: cancel the queued generations, stop the one in progress at its next token, release the
        worker's MLX streams on the worker, stop it. Requests that arrive later get 503; later calls do nothing."""
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


def error_body(status: int, message: str, param: str | None = None) -> dict:
    """OpenAI's error object."""
    kind = ERROR_TYPES.get(status, "invalid_request_error" if status < 500 else "server_error")
    return {"error": {"message": message, "type": kind, "param": param, "code": status}}


class Handler(BaseHTTPRequestHandler):
    """One connection's requests. Its server is a ModelHTTPServer (`.model`, `.log`, `.read_timeout`)."""

    protocol_version = "HTTP/1.1"
    default_request_version = "HTTP/1.0"  # so an error on a broken request line still gets a status line

    def setup(self):
        self.timeout = self.server.read_timeout  # every read (and write) on the socket, keep-alive waits included
        super().setup()

    def handle_one_request(self):
        self.raw_requestline = b""  # stays empty when the connection idles out before a request
        super().handle_one_request()

    def log_message(self, fmt, *args):  # one line per request
        self.server.log(f"{self.address_string()} {fmt % args}")

    def log_error(self, fmt, *args):
        if fmt.startswith("Request timed out") and not self.raw_requestline:
            return  # an idle keep-alive connection closed after read_timeout: nothing went wrong
        self.log_message(fmt, *args)

    def send_response(self, code, message=None):
        self.responded = True
        super().send_response(code, message)

    def send_json(self, status: int, obj: dict, headers: dict | None = None) -> None:
        data = json.dumps(obj).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            if self.close_connection:
                self.send_header("Connection", "close")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)
        except OSError:  # the client went away before its answer
            self.close_connection = True

    def send_json_error(self, status: int, message: str, param: str | None = None, headers=None) -> None:
        self.send_json(status, error_body(status, message, param), headers)

    def send_error(self, code, message=None, explain=None):
        """http.server's own errors (a broken request line, too many headers, an unknown method) as JSON."""
        self.close_connection = True
        if code == HTTPStatus.NOT_IMPLEMENTED:  # an unknown method on a route that exists
            self.send_json_error(405, f"method {self.command!r} is not supported: use GET /v1/models or POST "
                                      "/v1/chat/completions", headers={"Allow": "GET, POST"})
            return
        text = message or HTTPStatus(code).phrase
        self.send_json_error(code, f"{text} ({explain})" if explain else text)

    def do_GET(self):
        self._guarded(self._get)

    def do_POST(self):
        self._guarded(self._post)

    def _guarded(self, action) -> None:
        """Run `action`; an exception it lets through is a bug: logged with its traceback, answered 500."""
        self.responded = False
        try:
            action()
        except Exception as e:
            self.server.log(f"internal error on {self.command} {self.path}:\n{traceback.format_exc().rstrip()}")
            self.close_connection = True
            if not self.responded:
                self.send_json_error(500, f"internal server error ({type(e).__name__}); the server log has details")

    def _get(self):
        model = self.server.model
        if self.path.rstrip("/") in ("/v1/models", "/models"):
            self.send_json(200, {"object": "list", "data": [{"id": model.model_name, "object": "model",
                                                             "created": model.created, "owned_by": "nanoagent"}]})
        elif self.path.rstrip("/") == "/health":
            self.send_json(200, {"status": "ok"})
        else:
            self.send_json_error(404, f"no route GET {self.path[:100]}; try /v1/models or POST /v1/chat/completions")

    def _post(self):
        if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
            self.close_connection = True  # its body is never read
            return self.send_json_error(404, f"no route POST {self.path[:100]}; use /v1/chat/completions")
        try:
            req = self.server.model.prepare(parse_body(self._read_body()))
        except RequestError as e:
            return self.send_json_error(e.status, str(e), e.param)
        if req["stream"]:
            return self._stream(req)
        model = self.server.model
        try:
            completion = model.generate(req, client_gone=self._client_gone)
        except Exception as e:
            return self._failed(e)
        self.send_json(200, model.response(req, completion))

    def _read_body(self) -> bytes:
        """The body its Content-Length announces, within the read timeout; RequestError (411, 400, 413, 408)."""
        lengths = self.headers.get_all("Content-Length") or []
        keep_open = not self.close_connection
        self.close_connection = True  # until the whole body is read: the rest of it would be read as a request
        if self.headers.get("Transfer-Encoding"):
            raise RequestError("chunked bodies are not supported: send the body with a Content-Length header",
                               status=411)
        if not lengths:
            raise RequestError("a Content-Length header is required", status=411)
        if len(set(lengths)) > 1 or not re.fullmatch(r"[0-9]{1,12}", lengths[0].strip()):
            raise RequestError(f"Content-Length must be one whole number of bytes, got {', '.join(lengths)[:40]!r}")
        length = int(lengths[0])
        if length == 0:
            raise RequestError("the body is empty: send a JSON object")
        if length > MAX_BODY:
            raise RequestError(f"the body is {length} bytes; at most {MAX_BODY} are accepted", status=413)
        body = self._read_exactly(length)
        self.close_connection = not keep_open
        return body

    def _read_exactly(self, length: int) -> bytes:
        deadline, parts, got = time.monotonic() + self.server.read_timeout, [], 0
        while got < length:
            left = deadline - time.monotonic()
            try:
                if left <= 0:
                    raise TimeoutError
                self.connection.settimeout(left)
                chunk = self.rfile.read1(min(length - got, 1 << 16))
            except TimeoutError:
                raise RequestError(f"the body did not arrive within {self.server.read_timeout:g} s: {got} of the "
                                   f"{length} bytes Content-Length announced came", status=408) from None
            if not chunk:
                raise RequestError(f"the body ended after {got} of the {length} bytes Content-Length announced")
            parts.append(chunk)
            got += len(chunk)
        self.connection.settimeout(self.server.read_timeout)
        return b"".join(parts)

    def _client_gone(self) -> bool:
        return peer_closed(self.connection)

    def _failed(self, e: Exception, reply: StreamedReply | None = None) -> None:
        """Answer a generation that did not finish: a client error, a full queue, shutdown, a backend failure."""
        if isinstance(e, ClientGone):
            self.close_connection = True
            self.server.log(f"{self.address_string()} hung up; its generation was stopped")
            return
        if isinstance(e, RequestError):
            status, message, headers = e.status, str(e), None
        elif isinstance(e, ServerBusy):
            status, message, headers = 503, str(e), {"Retry-After": str(RETRY_AFTER)}
        elif isinstance(e, ServerClosing):
            status, message, headers = 503, "the server is shutting down", None
        else:  # a backend failure is the server's, not the client's
            self.server.log(f"generation failed: {type(e).__name__}: {e}")
            status, message, headers = 500, f"generation failed: {type(e).__name__}: {e}", None
        if reply is not None and reply.started:
            try:
                reply.fail(message)
            except ClientGone:
                pass
        else:
            self.send_json_error(status, message, getattr(e, "param", None), headers)

    def _stream(self, req: dict) -> None:
        model = self.server.model
        reply = StreamedReply(self, model.model_name, req, live=model.calls_under_grammar(req))
        try:
            completion = model.generate(req, on_text=reply.text, client_gone=self._client_gone,
                                        on_start=reply.start)
            reply.finish(completion)
        except Exception as e:
            self._failed(e, reply)


class ModelHTTPServer(ThreadingHTTPServer):
    """A thread per connection (they only parse, wait and write); `server_close()` also closes the model's worker.
    `log(line)` gets one line per request and per problem (default: stderr)."""

    def __init__(self, address, model: ModelServer, read_timeout: float = READ_TIMEOUT, log=None):
        self.model, self.read_timeout = model, read_timeout
        self.log = log or (lambda line: print(line, file=sys.stderr, flush=True))
        super().__init__(address, Handler)

    def handle_error(self, request, client_address) -> None:
        """A connection that broke outside a request (a reset, a timeout between requests): one line, no
        traceback. Anything else is a bug and keeps its traceback."""
        error = sys.exc_info()[1]
        if isinstance(error, OSError):
            self.log(f"{client_address[0]}: connection dropped ({type(error).__name__}: {error})")
        else:
            self.log(f"internal error serving {client_address[0]}:\n{traceback.format_exc().rstrip()}")

    def server_close(self) -> None:
        super().server_close()
        self.model.close()


def serve(backend, model_name: str, host: str = "127.0.0.1", port: int = 8080, ready=None,
          default_tools: list | None = None, max_tokens_default: int = 512,
          max_tokens_limit: int = MAX_TOKENS_LIMIT, read_timeout: float = READ_TIMEOUT,
          queue_timeout: float = QUEUE_TIMEOUT, log=None) -> ModelHTTPServer:
    """Build the HTTP server (call `.serve_forever()`, or run it on a thread in tests); `ready(url)` is told where.
    `default_tools`: offered to every request that brings no `tools` of its own. The limits are described in the
    module docstring; `log(line)` receives the server's log lines (default: stderr)."""
    model = ModelServer(backend, model_name, max_tokens_default=max_tokens_default, default_tools=default_tools,
                        max_tokens_limit=max_tokens_limit, queue_timeout=queue_timeout)
    httpd = ModelHTTPServer((host, port), model, read_timeout=read_timeout, log=log)
    if ready:
        ready(f"http://{host}:{httpd.server_address[1]}/v1")
    return httpd


__all__ = ["ClientGone", "ModelHTTPServer", "ModelServer", "RequestError", "ServerBusy", "ServerClosing",
           "canonical_messages", "peer_closed", "reply_message", "request_tools", "serve"]
