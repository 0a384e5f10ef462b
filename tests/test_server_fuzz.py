"""`nanoagent serve` against a hostile client: a few hundred seeded malformed requests (bad JSON, wrong types, huge
numbers, NaN, bad headers, truncated bodies, bad tool schemas, unknown roles) sent over raw sockets to a real
server on a scripted backend, every odd tool schema under every tool_choice first. Each must get a 2xx or 4xx
with a well-formed JSON body: an OpenAI error object for a 4xx, server-sent events of JSON chunks for a stream
(HTTP/9.9 gets the status HTTP defines for it, 505). The server must log no traceback, and a good request must
still succeed at the end. The counts are printed (pytest -s) and returned by `fuzz()`.

Run: .venv/bin/python -m pytest tests/test_server_fuzz.py -q -s
"""

import json
import random
import socket
import threading
from collections import Counter
from types import SimpleNamespace

import pytest

from nanoagent.render import format_named
from nanoagent.server import serve
from nanoagent.testing import tiny_tokenizer

SEED, CASES = 81, 400
READ_TIMEOUT = 0.3  # short, so the truncated bodies that wait for their missing bytes end quickly
TOOL = {"type": "function", "function": {"name": "set_unit", "description": "choose the unit", "parameters": {
    "type": "object", "properties": {"unit": {"type": "string", "enum": ["c", "f"]}}, "required": ["unit"]}}}
GOOD = {"model": "scripted", "messages": [{"role": "system", "content": "be brief"},
                                          {"role": "user", "content": "use celsius"}],
        "tools": [TOOL], "tool_choice": "auto", "max_tokens": 16, "temperature": 0.5, "seed": 1, "stream": False}
ODD = [None, True, False, 0, -1, 1.5, 10**9, 10**30, -10**30, 1e308, "", "abc", "false", "required", [], {}, [1],
       {"a": 1}, [[]], "\u00e9\u4e2d", float("nan"), float("inf"), float("-inf")]
ODD_SCHEMAS = [[], "object", 5, {"type": 5}, {"type": ["string", 3]}, {"properties": []},
               {"properties": {"a": "string"}}, {"properties": {"a": {"type": "strin"}}}, {"required": "a"},
               {"required": [1]}, {"items": "x", "type": "array"}, {"anyOf": {"type": "string"}},
               {"enum": "abc"}, {"type": "object", "properties": {"a": {"$ref": "#/nope"}}},
               {"type": "object", "properties": {"a": {"type": "string", "pattern": "("}}},
               {"type": "object", "properties": {"a": {"type": "integer", "minimum": "zero"}}},
               {"type": "object", "properties": {"a": {"anyOf": []}}}, {"not": {}},
               {"type": "object", "properties": {"a": {"type": "string", "maxLength": "x"}}},
               {"type": "object", "properties": {"a": {"$ref": "http://example.com/schema"}}},
               {"type": "object", "additionalProperties": 7}, {"$defs": [], "type": "object"}]


class Scripted:
    """Answers with a call of the first offered tool (so the reply is checked against hostile schemas) or a
    sentence, a word per piece; it measures prompts with the tiny tokenizer against a small context."""

    constrained = True  # tool_choice "required" checks that the schemas compile
    context_length = 2048

    def __init__(self):
        self.tokenizer, self.fmt = tiny_tokenizer(), format_named(None)

    def complete(self, messages, tools, *, max_tokens, on_text=None, **kw):
        text = "it is done"
        if tools:  # a value for every declared argument, so each one's schema is checked
            fn = tools[0]["function"]
            names = ((fn.get("parameters") or {}).get("properties") or {"unit": {}}) if isinstance(
                fn.get("parameters"), dict) else {"unit": {}}
            call = {"name": fn["name"], "arguments": {name: "c" for name in names}}
            text = f"<tool_call>\n{json.dumps(call)}\n</tool_call>"
        for word in text.split(" "):
            on_text(word + " ")
        return SimpleNamespace(text=text, finish_reason="stop", prompt_tokens=5, completion_tokens=3)


def with_field(body: dict, path: list, value) -> dict:
    out = json.loads(json.dumps(body))
    target = out
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return out


def mutated_body(rng: random.Random) -> bytes:
    """A JSON body (sometimes not JSON at all) with one thing wrong."""
    kind = rng.choice(["field", "field", "message", "tool", "schema", "required", "raw", "deep", "extra"])
    if kind == "field":
        key = rng.choice(["messages", "tools", "tool_choice", "max_tokens", "max_completion_tokens", "temperature",
                          "seed", "stream", "n", "model"])
        body = with_field(GOOD, [key], rng.choice(ODD))
    elif kind == "message":
        key = rng.choice(["role", "content", "tool_calls", "tool_call_id"])
        value = rng.choice(ODD + ["robot", "developer", [{"type": "text", "text": 5}], [{"type": "image_url"}],
                                  [{"function": {"name": "f", "arguments": "{not json"}}], "\ud800", [7]])
        body = with_field(GOOD, ["messages", 1, key], value)
    elif kind == "tool":
        body = with_field(GOOD, ["tools", 0, rng.choice(["type", "function"])], rng.choice(ODD))
    elif kind in ("schema", "required"):
        body = with_field(GOOD, ["tools", 0, "function", "parameters"], rng.choice(ODD_SCHEMAS))
        body["tool_choice"] = "required" if kind == "required" else rng.choice(["auto", "required", "none"])
    elif kind == "deep":
        depth = rng.choice([70, 2000, 100_000])
        return b'{"messages": ' + b"[" * depth + b"]" * depth + b"}"
    elif kind == "extra":
        body = {**GOOD, "messages": [{"role": "user", "content": "x" * rng.choice([10, 30_000])}],
                "stream": rng.choice([True, False]), rng.choice(["top_p", "stop", "logprobs"]): rng.choice(ODD)}
    else:
        return rng.choice([b"", b"{", b"[]", b"null", b"1", b'"text"', b"{not json", b"\xff\xfe{}", b"{}",
                           b'{"messages": [{"role": "user", "content": "hi"}], "max_tokens": ' + b"9" * 5000 + b"}",
                           b'{"messages": [{"role": "user", "content": "hi"}], "seed": -Infinity}',
                           json.dumps(GOOD).encode()[:rng.randrange(1, 200)]])
    return json.dumps(body).encode()  # NaN and Infinity come out as Python writes them


def request_bytes(rng: random.Random) -> tuple[bytes, bool]:
    """(what to send, whether to close our sending side after it): a request with a bad body, or bad headers."""
    body = mutated_body(rng) if rng.random() < 0.8 else json.dumps(GOOD).encode()
    length = f"Content-Length: {len(body)}\r\n"
    start, half_close = "POST /v1/chat/completions HTTP/1.1", False
    kind = rng.choice(["plain"] * 8 + ["length", "short", "headers", "line"])
    if kind == "length":
        length = rng.choice(["Content-Length: abc\r\n", "Content-Length: -1\r\n", "", "Content-Length: 1e3\r\n",
                             f"Content-Length: {len(body)}\r\nContent-Length: {len(body) + 1}\r\n",
                             "Content-Length: 99999999999\r\n", "Transfer-Encoding: chunked\r\n",
                             f"Content-Length: +{len(body)}\r\n"])
    elif kind == "short":  # the body is shorter than announced: we stop sending, or close our side
        length = f"Content-Length: {len(body) + rng.randrange(1, 50)}\r\n"
        half_close = rng.random() < 0.7
    elif kind == "headers":
        length += rng.choice(["X-Long: " + "a" * 70_000 + "\r\n", "".join(f"X-{i}: y\r\n" for i in range(150)),
                              "no colon here\r\n", "Expect: 100-continue\r\n"])
    elif kind == "line":
        start = rng.choice(["PUT /v1/chat/completions HTTP/1.1", "POST /v1/nowhere HTTP/1.1", "GARBAGE",
                            "POST /v1/chat/completions HTTP/9.9", "POST /v1/chat/completions HTTX/1.1",
                            "GET /v1/models HTTP/1.1", "POST " + "/a" * 40_000 + " HTTP/1.1"])
    head = f"{start}\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n{length}\r\n"
    return head.encode("latin-1") + body, half_close


def exchange(address, data: bytes, half_close: bool) -> bytes:
    with socket.create_connection(address, timeout=10) as s:
        try:
            s.sendall(data)
            if half_close:
                s.shutdown(socket.SHUT_WR)
        except OSError:
            pass  # the server answered and closed before taking it all (a refused header, say): read the answer
        out = b""
        try:
            while chunk := s.recv(65536):
                out += chunk
        except ConnectionResetError:
            pass
        return out


def check_response(raw: bytes) -> int:
    """The response's status, once its body is checked: a 4xx carries an OpenAI error object, a 2xx JSON (or
    server-sent events of JSON chunks)."""
    assert raw, "no response at all"
    head, _, body = raw.partition(b"\r\n\r\n")
    while head.startswith(b"HTTP/1.1 100"):  # the interim answer to Expect: 100-continue
        head, _, body = body.partition(b"\r\n\r\n")
    status = int(head.split()[1])
    assert 200 <= status < 300 or 400 <= status < 500 or status == 505, (status, body[:300])  # 505: HTTP/9.9
    if b"text/event-stream" in head:
        events = [line[6:] for line in body.split(b"\n") if line.startswith(b"data: ")]
        assert events[-1] == b"[DONE]" and all(json.loads(e)["object"] == "chat.completion.chunk" for e in events[:-1])
        return status
    obj = json.loads(body)
    if status >= 400:
        error = obj["error"]
        assert set(error) == {"message", "type", "param", "code"} and error["code"] == status and error["message"]
    return status


def every_schema() -> list[tuple[bytes, bool]]:
    """Each odd schema under each tool_choice, so none is left to chance."""
    out = []
    for schema in ODD_SCHEMAS:
        for choice in ("auto", "required", {"type": "function", "function": {"name": "set_unit"}}):
            body = with_field(GOOD, ["tools", 0, "function", "parameters"], schema)
            out.append((request_for({**body, "tool_choice": choice}), False))
    return out


def fuzz(address, log: list, cases: int = CASES, seed: int = SEED) -> dict:
    """Send the seeded requests; the counts: requests sent, responses per status code, tracebacks in the log."""
    rng = random.Random(seed)
    statuses = Counter()
    fixed = every_schema()
    for i in range(cases):
        data, half_close = fixed[i] if i < len(fixed) else request_bytes(rng)
        try:
            statuses[check_response(exchange(address, data, half_close))] += 1
        except AssertionError as e:
            raise AssertionError(f"case {i}: {data[:300]!r}: {e}") from None
    tracebacks = sum("Traceback" in line for line in log)
    return {"requests": cases, "statuses": dict(sorted(statuses.items())), "tracebacks": tracebacks}


@pytest.fixture
def server():
    log, found = [], {}
    httpd = serve(Scripted(), "scripted", port=0, ready=lambda u: found.setdefault("url", u), log=log.append,
                  read_timeout=READ_TIMEOUT)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    host, port = found["url"].split("//")[1].split("/")[0].split(":")
    yield (host, int(port)), log
    httpd.shutdown()
    httpd.server_close()


def test_hostile_requests_get_answers_and_no_tracebacks(server, capsys):
    address, log = server
    counts = fuzz(address, log)
    stray = capsys.readouterr().err
    with capsys.disabled():
        print(f"\nfuzz: {json.dumps(counts)}")
    assert counts["tracebacks"] == 0 and "Traceback" not in stray, "\n".join(log)
    assert set(counts["statuses"]) & {400, 200} and sum(counts["statuses"].values()) == CASES
    good = json.loads(check_body(exchange(address, request_for(GOOD), False)))
    assert good["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "set_unit"


def request_for(body: dict) -> bytes:
    data = json.dumps(body).encode()
    return (b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
            + f"Content-Length: {len(data)}\r\n\r\n".encode() + data)


def check_body(raw: bytes) -> bytes:
    assert check_response(raw) == 200
    return raw.partition(b"\r\n\r\n")[2]
