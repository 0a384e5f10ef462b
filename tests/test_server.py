"""`nanoagent serve`: the official `openai` client against a real server on loopback (a tiny random MLX model behind
it): listing, plain replies, constrained tool calls with and without streaming, 400s that say what is wrong, a
client that hangs up mid-stream (its reply stops), generation on one worker thread, and the agent
(`nanoagent run --model http://...`) driving it.

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
    calls = [tc for ch in chunks for tc in (ch.choices[0].delta.tool_calls or [])]
    assert calls and calls[0].function.name == "set_unit"
    assert json.loads(calls[0].function.arguments)["unit"] in ("c", "f")
    assert chunks[-1].choices[0].finish_reason in ("tool_calls", "length")


def test_streamed_text(client):
    chunks = list(client.chat.completions.create(model="tiny", messages=ASK, max_tokens=12, stream=True))
    text = "".join(ch.choices[0].delta.content or "" for ch in chunks)
    whole = client.chat.completions.create(model="tiny", messages=ASK, max_tokens=12).choices[0].message.content
    assert text == whole  # greedy: the stream adds up to the same reply


@pytest.mark.parametrize("kwargs, message", [
    (dict(messages=[]), "'messages' must be a non-empty list"),
    (dict(messages=[{"role": "robot", "content": "hi"}]), "messages[0]: 'role'"),
    (dict(messages=ASK, tools=TOOLS, tool_choice={"type": "function", "function": {"name": "nope"}}), "'nope'"),
    (dict(messages=ASK, tool_choice="required"), "needs 'tools'"),
    (dict(messages=ASK, max_tokens=0), "'max_tokens' must be >= 1"),
    (dict(messages=ASK, temperature=5), "'temperature' must be between"),
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
    """A backend that streams text until its reply is stopped, recording the thread each generation runs on."""

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
