"""The OpenAI-compatible backend: message conversion, and a real server on loopback.

Run: .venv/bin/python -m pytest tests/test_backends_openai.py -q
The server is llama-cpp-python's own (`python -m llama_cpp.server`, needs `llama-cpp-python[server]`) serving the
embedded GGUF on 127.0.0.1 with its `chatml-function-calling` chat format, so chat replies can carry structured
`tool_calls`; the test starts it on a free port and stops it (terminate, then kill) whatever happens.
"""

import nanoagent  # noqa: F401  (OpenBLAS before mlx)

import json
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from nanoagent.agent.backends import BackendError, load_backend
from nanoagent.agent.backends.openai_http import OpenAIBackend, reply_text, to_openai_messages
from nanoagent.toolcall import NotJSONError, parse

SHELL = {"type": "function", "function": {"name": "shell", "description": "run a shell command",
                                          "parameters": {"type": "object", "properties": {"cmd": {"type": "string"}},
                                                         "required": ["cmd"]}}}
QUESTION = [{"role": "user", "content": "What is the capital of France?"}]
HISTORY = [
    {"role": "system", "content": "You fix code."},
    {"role": "user", "content": "what is here?"},
    {"role": "assistant", "content": "Let me look.",
     "tool_calls": [{"type": "function", "function": {"name": "shell", "arguments": {"cmd": "ls"}}}]},
    {"role": "tool", "content": "app.py\ntest_app.py"},
    {"role": "assistant", "content": "<tool_call>\n{broken\n</tool_call>"},
    {"role": "tool", "content": "The tool call is not valid JSON."},
]
SERVER_START_S = 120


# ----------------------------------------------------------------------------------------------- conversion (no server)

def test_history_becomes_openai_messages_with_matching_ids():
    out = to_openai_messages(HISTORY)
    assert [m["role"] for m in out] == ["system", "user", "assistant", "tool", "assistant", "tool"]
    call = out[2]["tool_calls"][0]
    assert call["type"] == "function" and call["function"] == {"name": "shell", "arguments": '{"cmd": "ls"}'}
    assert out[3]["tool_call_id"] == call["id"]
    assert out[4] == {"role": "assistant", "content": HISTORY[4]["content"]}  # a malformed call stays text
    assert out[5]["tool_call_id"] not in (call["id"],)  # feedback on it gets its own id


def test_returned_tool_calls_become_our_text_convention():
    message = {"content": "Checking.", "tool_calls": [
        {"id": "x", "type": "function", "function": {"name": "shell", "arguments": '{"cmd": "pytest -q"}'}}]}
    text = reply_text(message)
    assert text == 'Checking.\n<tool_call>\n{"name": "shell", "arguments": {"cmd": "pytest -q"}}\n</tool_call>'
    reply = parse(text, [SHELL])
    assert reply.content == "Checking." and reply.tool_calls[0]["function"]["arguments"] == {"cmd": "pytest -q"}


def test_unparsable_returned_arguments_reach_our_parser_as_an_error():
    text = reply_text({"content": None, "tool_calls": [{"function": {"name": "shell", "arguments": "{cmd: ls"}}]})
    with pytest.raises(NotJSONError):
        parse(text, [SHELL])


def test_bad_urls_are_clear_errors():
    with pytest.raises(BackendError, match="http"):
        OpenAIBackend("127.0.0.1:8080/v1")
    with pytest.raises(BackendError, match="mode"):
        OpenAIBackend("http://127.0.0.1:1/v1", mode="embeddings")
    with pytest.raises(BackendError, match="completions mode only"):
        OpenAIBackend("http://127.0.0.1:1/v1", prompt_format="compact")


def test_completions_mode_renders_in_the_asked_prompt_format(monkeypatch):
    from nanoagent.render import FORMATS, render_text

    tools = [{"type": "function", "function": {"name": "f", "description": "d", "parameters": {"type": "object"}}}]
    messages = [{"role": "user", "content": "hi"}]
    sent = []
    backend = OpenAIBackend("http://127.0.0.1:1/v1", mode="completions", prompt_format="compact")
    monkeypatch.setattr(backend, "_post", lambda path, body: sent.append(body) or {"choices": [{"text": "ok"}]})
    backend.complete(messages, tools, max_tokens=4, temperature=0.0, seed=0)
    assert sent[0]["prompt"] == render_text(messages, tools, add_generation_prompt=True, fmt=FORMATS["compact"])
    assert sent[0]["prompt"] != render_text(messages, tools, add_generation_prompt=True)


def test_nothing_listening_is_a_clear_error():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again before the request: nothing listens there
    backend = OpenAIBackend(f"http://127.0.0.1:{port}/v1", timeout=5)
    with pytest.raises(BackendError, match="could not reach"):
        backend.complete(QUESTION, [], max_tokens=4, temperature=0.0, seed=0)


# ----------------------------------------------------------------------------------------------- a real server

@pytest.fixture(scope="module")
def server(embedded_gguf, tmp_path_factory):
    pytest.importorskip("uvicorn", reason="llama-cpp-python[server] extras are not installed")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = tmp_path_factory.mktemp("server") / "server.log"
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(embedded_gguf),
                                 "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048",
                                 "--chat_format", "chatml-function-calling"],
                                stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + SERVER_START_S
        while True:
            if proc.poll() is not None:
                pytest.fail(f"llama_cpp.server exited with {proc.returncode}:\n{log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{url}/models", timeout=2) as r:
                    json.load(r)
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"llama_cpp.server did not answer within {SERVER_START_S} s")
                time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@pytest.mark.slow
def test_completions_mode_sends_our_rendered_prompt(server, embedded_tokenizer):
    backend = load_backend(server + "#model=smollm2", mode="completions")
    assert backend.model == "smollm2"
    c = backend.complete(QUESTION, [], max_tokens=24, temperature=0.0, seed=0)
    assert "Paris" in c.text and "<|im_end|>" not in c.text
    assert c.finish_reason == "stop" and c.completion_tokens > 0 and c.prompt_tokens > 0
    assert c.prompt_ids is None and c.logprobs is None  # an endpoint's tokens are its own


@pytest.mark.slow
def test_chat_mode_maps_structured_tool_calls_into_our_text(server):
    backend = OpenAIBackend(server, tool_choice={"type": "function", "function": {"name": "shell"}})
    c = backend.complete([{"role": "user", "content": "List the files in this folder."}], [SHELL], max_tokens=24,
                         temperature=0.0, seed=0)
    reply = parse(c.text, [SHELL])  # the server answered with OpenAI tool_calls; we see our convention
    assert len(reply.tool_calls) == 1
    assert reply.tool_calls[0]["function"]["name"] == "shell"
    assert isinstance(reply.tool_calls[0]["function"]["arguments"]["cmd"], str)
    assert c.finish_reason == "stop"


@pytest.mark.slow
def test_chat_mode_accepts_a_whole_agent_history(server):
    c = OpenAIBackend(server).complete(HISTORY, [SHELL], max_tokens=6, temperature=0.0, seed=0)
    assert isinstance(c.text, str) and c.finish_reason in ("stop", "length")
    assert c.prompt_tokens > 20


@pytest.mark.slow
def test_server_errors_are_reported_with_the_status(server):
    with pytest.raises(BackendError, match="HTTP 404"):
        OpenAIBackend(server.removesuffix("/v1") + "/nope").complete(QUESTION, [], max_tokens=2, temperature=0.0,
                                                                      seed=0)
