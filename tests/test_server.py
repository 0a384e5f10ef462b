"""`nanoagent serve`: the official `openai` client against a real server on loopback (a tiny random MLX model behind
it): listing, plain replies, constrained tool calls with and without streaming, 400s that say what is wrong, a
client that hangs up mid-stream (its reply stops), generation on one worker thread, and the agent
(`nanoagent run --model http://...`) driving it. Then a hostile client over raw sockets against a scripted backend
(issue 81): malformed requests get a 400 naming the field, max_tokens is clamped, an unenforceable required call is
a 400, a short body gets a 408, a hang-up stops the generation within a second, a long wait in the queue gets a 503.
tests/test_server_fuzz.py sends a few hundred more.

Run: .venv/bin/python -m pytest tests/test_server.py -q
"""

import nanoagent  # noqa: F401  (OpenBLAS before mlx)

import json
import socket
import threading
import time

import pytest
from mlx_lm import load as mlx_load

from nanoagent.agent.backends.mlx_backend import MLXBackend
from nanoagent.server import serve
from nanoagent.testing import save_tiny_model

openai = pytest.importorskip("openai")

TOOLS = [{"type": "function", "function": {"name": "set_unit", "description": "choose the unit",
                                            "parameters": {"type": "object",
                                                           "properties": {"unit": {"type": "string",
                                                                                   "enum": ["c", "f"]}},
                                                           "required": ["unit"]}}}]
ASK = [{"role": "user", "content": "use celsius"}]


@pytest.fixture(scope="module")
def url(tmp_path_factory):
    model, tok = mlx_load(str(save_tiny_model(tmp_path_factory.mktemp("tiny"))))
    found = {}
    httpd = serve(MLXBackend(model, tok, constrain=True), "tiny", port=0, ready=lambda u: found.setdefault("url", u))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield found["url"]
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def client(url):
    return openai.OpenAI(base_url=url, api_key="unused", max_retries=0, timeout=60)


def test_models_and_a_plain_reply(client):
    assert [m.id for m in client.models.list().data] == ["tiny"]
    r = client.chat.completions.create(model="tiny", messages=ASK, max_tokens=8)
    assert r.choices[0].message.role == "assistant" and r.choices[0].finish_reason in ("stop", "length")
    assert r.usage.completion_tokens <= 8 and r.usage.prompt_tokens > 0


@pytest.mark.parametrize("choice", ["required", {"type": "function", "function": {"name": "set_unit"}}])
def test_required_tool_call_is_valid(client, choice):
    r = client.chat.completions.create(model="tiny", messages=ASK, tools=TOOLS, tool_choice=choice, max_tokens=150)
    calls = r.choices[0].message.tool_calls  # the random model may repeat the call until max_tokens
    assert r.choices[0].finish_reason in ("tool_calls", "length") and calls
    assert calls[0].function.name == "set_unit"
    assert json.loads(calls[0].function.arguments)["unit"] in ("c", "f")


def test_streamed_tool_call(client):
    chunks = list(client.chat.completions.create(model="tiny", messages=ASK, tools=TOOLS, tool_choice="required",
                                                 max_tokens=150, stream=True))
    deltas = [tc for ch in chunks for tc in (ch.choices[0].delta.tool_calls or [])]
    assert deltas and deltas[0].function.name == "set_unit" and deltas[0].id  # the first delta names the call
    arguments = "".join(d.function.arguments or "" for d in deltas if d.index == 0)  # then its arguments in pieces
    assert json.loads(arguments)["unit"] in ("c", "f")
    assert chunks[-1].choices[0].finish_reason in ("tool_calls", "length")


def test_streamed_text(client):
    chunks = list(client.chat.completions.create(model="tiny", messages=ASK, max_tokens=12, stream=True))
    text = "".join(ch.choices[0].delta.content or "" for ch in chunks)
    whole = client.chat.completions.create(model="tiny", messages=ASK, max_tokens=12).choices[0].message.content
    assert text == whole  # greedy: the stream adds up to the same reply


@pytest.mark.parametrize("kwargs, message", [
    (dict(messages=[]), "'messages' must be a non-empty list"),
    (dict(messages=[{"role": "robot", "content": "hi"}]), "'messages[0].role' must be one of"),
    (dict(messages=ASK, tools=TOOLS, tool_choice={"type": "function", "function": {"name": "nope"}}), "'nope'"),
    (dict(messages=ASK, tool_choice="required"), "needs 'tools'"),
    (dict(messages=ASK, max_tokens=0), "'max_tokens' must be an integer >= 1, got 0"),
    (dict(messages=ASK, temperature=5), "'temperature' must be a number between 0 and 2, got 5"),
])
def test_bad_requests_get_a_400_that_names_the_field(client, kwargs, message):
    with pytest.raises(openai.BadRequestError) as err:
        client.chat.completions.create(model="tiny", **kwargs)
    assert message in str(err.value)


def test_not_json_and_unknown_routes(url):
    import urllib.error
    import urllib.request

    req = urllib.request.Request(url + "/chat/completions", data=b"{not json", method="POST",
                                 headers={"Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(req)
    assert err.value.code == 400 and "not valid JSON" in err.value.read().decode()
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(url.rsplit("/v1", 1)[0] + "/nowhere")
    assert err.value.code == 404


def test_a_client_hanging_up_mid_stream_leaves_the_server_healthy(url, client):
    host, port = url.split("//")[1].split("/")[0].split(":")
    body = json.dumps({"model": "tiny", "messages": ASK, "max_tokens": 64, "stream": True}).encode()
    with socket.create_connection((host, int(port))) as s:
        s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        assert s.recv(64).startswith(b"HTTP/1.1 200")
    r = client.chat.completions.create(model="tiny", messages=ASK, max_tokens=4)  # the next request is served
    assert r.choices[0].message is not None


def test_the_agent_runs_against_the_server(url, tmp_path):
    from nanoagent.cli import main

    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.txt").write_text("hello\n")
    code = main(["run", "--repo", str(repo), "--model", url, "--max-turns", "2", "--max-tokens-per-turn", "32",
                 "--out", str(tmp_path / "run"), "--quiet", "say hello"])
    assert code in (0, 1)  # answered, or stopped by its budgets: either way it talked to the server
    traj = json.loads((tmp_path / "run" / "trajectory.json").read_text())
    assert traj["steps"] and not any((s.get("error") or {}).get("kind") == "backend_error" for s in traj["steps"])


class Endless:
    """A backend that streams text until its reply is stopped, recording the thread each generation runs on. It
    pauses a little per piece, as a model does: the server never makes the worker wait for a client, so a backend
    faster than the socket would finish before a hang-up is noticed."""

    def __init__(self, pieces=100_000):
        self.limit, self.threads, self.pieces, self.done = pieces, [], 0, threading.Event()

    def complete(self, messages, tools, *, on_text=None, **kw):
        from types import SimpleNamespace

        self.threads.append(threading.current_thread().name)
        self.done.clear()
        try:
            for _ in range(self.limit):
                self.pieces += 1
                if on_text:
                    on_text("word " * 50)
                time.sleep(0.0001)
            return SimpleNamespace(text="word", finish_reason="length", prompt_tokens=1, completion_tokens=1)
        finally:
            self.done.set()


@pytest.fixture
def endless():
    backend, found = Endless(), {}
    httpd = serve(backend, "endless", port=0, ready=lambda u: found.setdefault("url", u))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield backend, found["url"], httpd
    httpd.shutdown()
    httpd.server_close()


def test_every_generation_runs_on_one_worker_thread(endless):
    from concurrent.futures import ThreadPoolExecutor

    backend, url, _ = endless
    backend.limit = 10
    client = openai.OpenAI(base_url=url, api_key="unused", max_retries=0, timeout=60)
    with ThreadPoolExecutor(4) as pool:  # four connections, each on its own handler thread
        list(pool.map(lambda _: client.chat.completions.create(model="endless", messages=ASK), range(4)))
    assert len(backend.threads) == 4 and len(set(backend.threads)) == 1  # MLX makes a stream per thread it runs on
    assert backend.threads[0] != threading.current_thread().name


def test_a_client_hanging_up_stops_its_reply(endless):
    backend, url, _ = endless
    host, port = url.split("//")[1].split("/")[0].split(":")
    body = json.dumps({"model": "endless", "messages": ASK, "stream": True}).encode()
    with socket.create_connection((host, int(port))) as s:
        s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        assert s.recv(64).startswith(b"HTTP/1.1 200")
    assert backend.done.wait(60)
    assert backend.pieces < backend.limit  # stopped at a write that failed, not after 100,000 pieces


def test_closing_the_server_releases_the_workers_streams(endless, monkeypatch):
    import nanoagent.server as server_module

    released = []
    monkeypatch.setattr(server_module, "release_streams", lambda: released.append(threading.current_thread().name))
    backend, url, httpd = endless
    backend.limit = 3
    openai.OpenAI(base_url=url, api_key="unused", max_retries=0).chat.completions.create(model="endless",
                                                                                         messages=ASK)
    httpd.shutdown()
    httpd.server_close()
    httpd.server_close()  # twice is harmless (the fixture closes it again)
    assert released == backend.threads[:1] and httpd.model.closed


def test_closing_stops_the_reply_in_progress_and_cancels_the_queued_ones(monkeypatch):
    import nanoagent.server as server_module

    monkeypatch.setattr(server_module, "release_streams", lambda: None)
    backend = Endless(pieces=10**12)  # it runs until stopped: closing must not wait for it
    model = server_module.ModelServer(backend, "endless")
    req = model.prepare({"messages": ASK})
    outcomes = []

    def ask():
        try:
            model.generate(req)
            outcomes.append("finished")
        except server_module.ServerClosing:
            outcomes.append("closing")

    running, queued = threading.Thread(target=ask), threading.Thread(target=ask)
    running.start()
    while backend.pieces == 0:
        time.sleep(0.01)
    queued.start()
    while len(model.queued) < 2:
        time.sleep(0.01)
    model.close()
    running.join(10)
    queued.join(10)
    assert outcomes == ["closing", "closing"]  # the queued one never started: one generation ran
    assert backend.done.is_set() and backend.threads == ["nanoagent-model_0"]
    with pytest.raises(server_module.ServerClosing):  # nothing is queued after the release
        model.generate(req)


# ------------------------------------------------------------------------------------ hostile clients (issue 81)

class Scripted:
    """A backend that answers "hello world" a word per piece (or runs until stopped, `endless`), recording the
    max_tokens it was given; with `context_length` and a tokenizer the server measures prompts against it."""

    def __init__(self, endless=False, context_length=None, constrained=False):
        from nanoagent.render import format_named
        from nanoagent.testing import tiny_tokenizer

        self.endless, self.context_length, self.constrained = endless, context_length, constrained
        self.tokenizer, self.fmt = (tiny_tokenizer(), format_named(None)) if context_length else (None, None)
        self.max_tokens, self.started, self.done = [], threading.Event(), threading.Event()

    def complete(self, messages, tools, *, max_tokens, on_text=None, **kw):
        from types import SimpleNamespace

        self.max_tokens.append(max_tokens)
        self.started.set()
        try:
            words = iter(int, 1) if self.endless else ["hello", " world"]  # iter(int, 1): forever
            for word in words:
                on_text(word if isinstance(word, str) else "")
                if self.endless:
                    time.sleep(0.001)
            return SimpleNamespace(text="hello world", finish_reason="stop", prompt_tokens=3, completion_tokens=2)
        finally:
            self.done.set()


@pytest.fixture
def scripted():
    servers = []

    def start(backend, **limits):
        found = {}
        httpd = serve(backend, "scripted", port=0, ready=lambda u: found.setdefault("url", u), log=lambda _: None,
                      **limits)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        servers.append(httpd)
        return found["url"].split("//")[1].split("/")[0].split(":")

    yield start
    for httpd in servers:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture(scope="module")
def plain():
    found = {}
    httpd = serve(Scripted(), "scripted", port=0, ready=lambda u: found.setdefault("url", u), log=lambda _: None)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield found["url"].split("//")[1].split("/")[0].split(":")
    httpd.shutdown()
    httpd.server_close()


def send(address, body=None, raw=None, headers="", hang_up=False, hold=False, wait=10.0):
    """POST a chat completion over a fresh socket: (status, headers text, body bytes). `hang_up` closes the socket
    right after sending, `hold` returns it open."""
    host, port = address
    data = raw if raw is not None else json.dumps(body).encode()
    head = headers or f"Content-Length: {len(data)}\r\n"
    s = socket.create_connection((host, int(port)), timeout=wait)
    s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + head.encode() + b"\r\n"
              + data)
    if hang_up or hold:
        return s.close() if hang_up else s
    out = b""
    while chunk := s.recv(65536):
        out += chunk
    s.close()
    head, _, rest = out.partition(b"\r\n\r\n")
    return int(head.split()[1]), head.decode(), rest


def error_of(response) -> dict:
    status, _, body = response
    error = json.loads(body)["error"]
    assert set(error) == {"message", "type", "param", "code"} and error["code"] == status
    return error


@pytest.mark.parametrize("body, raw, headers, param, words", [
    (None, b'{"messages": [{"role": "user", "content": "hi"}], "max_tokens": NaN}', "", "max_tokens", "NaN"),
    (None, b'{"messages": [{"role": "user", "content": "hi"}], "max_tokens": 1e999}', "", "max_tokens", "finite"),
    ({"messages": ASK}, None, "Content-Length: abc\r\n", None, "Content-Length must be one whole number"),
    ({"messages": [{"role": "user", "content": [{"type": "text", "text": 5}]}]}, None, "",
     "messages[0].content[0].text", "must be a string"),
    ({"messages": [{"role": "assistant", "content": "", "tool_calls": "set_unit"}]}, None, "",
     "messages[0].tool_calls", "must be a list"),
    ({"messages": ASK, "temperature": float("nan")}, None, "", "temperature", "NaN"),
    ({"messages": ASK, "stream": "false"}, None, "", "stream", "JSON boolean"),
    ({"messages": ASK, "tools": [{"type": "function", "function": {"name": "f", "parameters": {
        "type": "object", "properties": ["a"]}}}]}, None, "", "tools[0].function.parameters.properties",
     "must be an object mapping names to schemas"),
])
def test_malformed_requests_get_a_400_naming_the_field(plain, body, raw, headers, param, words):
    """Issue 81: these got no response at all (NaN, 1e999, Content-Length abc, a non-string text part, tool_calls
    not a list), a 500 (properties a list, NaN temperature), or a stream ("stream": "false")."""
    address = plain
    if body is not None and "NaN" in json.dumps(body):
        raw = json.dumps(body).encode()  # Python writes NaN, as a careless client would
    response = send(address, body, raw, headers)
    error = error_of(response)
    assert response[0] == 400 and error["param"] == param and words in error["message"]


def test_max_tokens_is_clamped_to_the_limit_and_the_context(scripted):
    """Issue 81: max_tokens 10^9 was accepted as asked. Clamped, as llama.cpp's server clamps n_predict."""
    from nanoagent.server import prompt_length

    backend = Scripted(context_length=2000)
    address = scripted(backend, max_tokens_limit=100)
    assert send(address, {"messages": ASK, "max_tokens": 10**9})[0] == 200
    assert backend.max_tokens[-1] == 100  # the server's limit
    long = [{"role": "user", "content": "a" * 1950}]
    used = prompt_length(backend, long, [])
    assert 1900 < used < 2000 - 1
    assert send(address, {"messages": long, "max_tokens": 10**9})[0] == 200
    assert backend.max_tokens[-1] == 2000 - used  # the room the context leaves after the prompt
    too_long = send(address, {"messages": [{"role": "user", "content": "a" * 2000}]})
    assert too_long[0] == 400 and "context holds 2000" in error_of(too_long)["message"]


def test_a_required_call_that_cannot_be_enforced_is_a_400(scripted):
    """Issue 81: an uncompilable schema with tool_choice "required" answered 200 in plain text."""
    address = scripted(Scripted(constrained=True))
    bad = [{"type": "function", "function": {"name": "broken", "parameters": {
        "type": "object", "properties": {"x": {"type": "strin"}}}}}]
    response = send(address, {"messages": ASK, "tools": bad, "tool_choice": "required"})
    assert response[0] == 400 and "'broken'" in error_of(response)["message"]
    assert send(address, {"messages": ASK, "tools": bad})[0] == 200  # "auto": decoded without the grammar


def test_a_body_shorter_than_its_content_length_gets_a_408(scripted):
    address = scripted(Scripted(), read_timeout=0.5)
    start = time.monotonic()
    response = send(address, raw=b'{"messages": ', headers="Content-Length: 100\r\n")
    assert response[0] == 408 and "did not arrive within 0.5 s" in error_of(response)["message"]
    assert time.monotonic() - start < 5
    assert send(address, {"messages": ASK})[0] == 200


@pytest.mark.parametrize("stream", [False, True])
def test_a_client_hanging_up_stops_its_generation_within_a_second(scripted, stream):
    """Issue 81: a non-streaming client that hung up held the only worker for 17 minutes."""
    backend = Scripted(endless=True)
    address = scripted(backend)
    send(address, {"messages": ASK, "stream": stream}, hang_up=True)
    assert backend.started.wait(10)
    hung_up = time.monotonic()
    assert backend.done.wait(5) and time.monotonic() - hung_up < 1.5


def test_a_request_queued_past_the_timeout_gets_a_503_with_retry_after(scripted):
    backend = Scripted(endless=True)
    address = scripted(backend, queue_timeout=0.5)
    first = send(address, {"messages": ASK}, hold=True)  # holds the worker while its client stays
    assert backend.started.wait(10)
    response = send(address, {"messages": ASK})
    assert response[0] == 503 and "Retry-After: 5" in response[1]
    assert "waited 0.5 s" in error_of(response)["message"]
    first.close()
    assert backend.done.wait(5)
    backend.endless = False
    assert send(address, {"messages": ASK})[0] == 200


@pytest.mark.parametrize("schema", [{"type": "string", "pattern": "("}, {"$ref": "#/nope"},
                                    {"type": "string", "maxLength": "x"}])
def test_a_call_against_a_schema_that_cannot_be_checked_comes_back_as_text(schema):
    """Found by tests/test_server_fuzz.py: checking the call raised (re.error, a referencing error, TypeError) and
    the reply was a 500."""
    from nanoagent.server import reply_message

    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object",
                                                                         "properties": {"a": schema}}}}]
    text = '<tool_call>\n{"name": "f", "arguments": {"a": "c"}}\n</tool_call>'
    assert reply_message(text, tools) == ({"role": "assistant", "content": text}, "stop")
