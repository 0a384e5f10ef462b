"""Streamed tool calls of `nanoagent serve` (issue 80): OpenAI's `tool_calls` deltas while a call is written, and
`stream_options.include_usage`.

First the splitter alone (nanoagent/server_stream.py: text in, deltas out), then the official `openai` client's
streaming against a real server on loopback with scripted backends: one that writes a call piece by piece and
waits, after the call's name, until the client has seen the call's first delta (so a server that sends calls at the
end fails), one without a grammar (calls checked as they close), and the usage chunk.

Run: .venv/bin/python -m pytest tests/test_server_stream.py -q
"""

import json
import threading
from types import SimpleNamespace

import pytest

from nanoagent.server import serve
from nanoagent.server_stream import CallDeltas
from nanoagent.toolcall import format_tool_call

openai = pytest.importorskip("openai")

TOOLS = [{"type": "function", "function": {"name": "set_unit", "description": "choose the unit", "parameters": {
    "type": "object", "properties": {"unit": {"type": "string", "enum": ["c", "f"]}, "note": {"type": "string"}},
    "required": ["unit"]}}}]
ASK = [{"role": "user", "content": "use celsius"}]
CALL = format_tool_call("set_unit", {"unit": "c", "note": "a {brace} and \"quotes\""})


def run(deltas: CallDeltas, text: str, finish: str = "stop", step: int = 1) -> tuple[list[dict], str]:
    out = []
    for i in range(0, len(text), step):
        out += deltas.feed(text[i:i + step])
    rest, reason = deltas.close(finish)
    return out + rest, reason


def calls_of(deltas: list[dict]) -> list[dict]:
    """The calls a client assembles from the deltas (by index, arguments concatenated)."""
    calls: dict[int, dict] = {}
    for d in deltas:
        for tc in d.get("tool_calls", []):
            call = calls.setdefault(tc["index"], {"name": None, "arguments": ""})
            call["name"] = tc["function"].get("name") or call["name"]
            call["arguments"] += tc["function"].get("arguments", "")
    return [calls[i] for i in sorted(calls)]


def content_of(deltas: list[dict]) -> str:
    return "".join(d.get("content", "") for d in deltas)


@pytest.mark.parametrize("live", [True, False])
def test_a_call_fed_a_character_at_a_time_comes_out_as_openai_deltas(live):
    deltas, reason = run(CallDeltas(TOOLS, live=live), "Sure. \n" + CALL + "\n" + CALL.replace('"c"', '"f"'))
    assert reason == "tool_calls" and content_of(deltas) == "Sure."
    calls = calls_of(deltas)
    assert [c["name"] for c in calls] == ["set_unit", "set_unit"]
    assert [json.loads(c["arguments"])["unit"] for c in calls] == ["c", "f"]
    first = next(d["tool_calls"][0] for d in deltas if "tool_calls" in d)
    assert first["type"] == "function" and first["id"].startswith("call_") and first["function"]["arguments"] == ""
    pieces = [d for d in deltas if "tool_calls" in d and "name" not in d["tool_calls"][0]["function"]]
    assert len(pieces) > (20 if live else 1)  # live: the arguments go out as they are written


def test_live_sends_the_name_before_the_arguments_are_written():
    deltas = CallDeltas(TOOLS, live=True)
    assert deltas.feed("<tool_call>\n{\"name\": \"set_u") == []
    head = deltas.feed('nit", "arguments": {"un')
    assert head[0]["tool_calls"][0]["function"]["name"] == "set_unit" and head[1]["tool_calls"][0]["function"] == {
        "arguments": '{"un'}


def test_a_call_cut_off_while_streamed_live_ends_with_length():
    deltas, reason = run(CallDeltas(TOOLS, live=True), CALL[:-25], finish="length")
    assert reason == "length" and calls_of(deltas)[0]["name"] == "set_unit"


def test_without_a_grammar_a_broken_call_goes_out_as_text_and_a_good_one_as_a_call():
    broken = '<tool_call>\n{"name": "set_unit", "arguments": {"unit": "kelvin"}}\n</tool_call>'
    deltas, reason = run(CallDeltas(TOOLS), CALL + "\n" + broken, step=3)
    assert reason == "tool_calls" and len(calls_of(deltas)) == 1 and content_of(deltas) == "\n" + broken


def test_text_without_calls_streams_unchanged():
    text = "  a < b, and <tool is not a tag \n"
    for tools in (TOOLS, []):
        deltas, reason = run(CallDeltas(tools), text)
        assert content_of(deltas) == text and reason == "stop"
    deltas, _ = run(CallDeltas(TOOLS), "see <tool_call>\n{\"na", finish="length")
    assert content_of(deltas) == "see <tool_call>\n{\"na"  # a cut-off call and no other: the text is kept


class Writer:
    """Writes `text` a few characters per piece, as a model does; with `wait_for`, pauses once the call's name is
    written until the event is set (the test sets it when its client has seen the call's first delta)."""

    def __init__(self, text: str, constrained: bool, wait_for: threading.Event | None = None):
        self.text, self.constrained, self.wait_for, self.waited = text, constrained, wait_for, None

    def complete(self, messages, tools, *, max_tokens, on_text=None, **kw):
        pause = self.text.index('"arguments": ') + len('"arguments": ')
        for i in range(0, len(self.text), 4):
            if self.wait_for is not None and i >= pause and self.waited is None:
                self.waited = self.wait_for.wait(10)
            on_text(self.text[i:i + 4])
        return SimpleNamespace(text=self.text, finish_reason="stop", prompt_tokens=7, completion_tokens=11)


@pytest.fixture
def server():
    servers = []

    def start(backend) -> "openai.OpenAI":
        found = {}
        httpd = serve(backend, "scripted", port=0, ready=lambda u: found.setdefault("url", u), log=lambda _: None)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        servers.append(httpd)
        return openai.OpenAI(base_url=found["url"], api_key="unused", max_retries=0, timeout=30)

    yield start
    for httpd in servers:
        httpd.shutdown()
        httpd.server_close()


def test_the_openai_client_sees_the_call_while_it_is_written(server):
    """Issue 80: calls came in one chunk at the end, so a streaming UI saw nothing for the whole reply."""
    seen_head = threading.Event()
    backend = Writer("On it.\n" + CALL, constrained=True, wait_for=seen_head)
    client = server(backend)
    chunks, names, pieces = [], [], []
    for chunk in client.chat.completions.create(model="scripted", messages=ASK, tools=TOOLS, stream=True):
        chunks.append(chunk)
        for tc in (chunk.choices[0].delta.tool_calls or []) if chunk.choices else []:
            if tc.function.name:
                assert tc.index == 0 and tc.id.startswith("call_") and tc.type == "function"
                names.append(tc.function.name)
                seen_head.set()
            pieces.append(tc.function.arguments or "")
    assert backend.waited is True  # the first delta arrived while the backend was still writing the call
    assert names == ["set_unit"] and len([p for p in pieces if p]) > 3
    assert json.loads("".join(pieces)) == {"unit": "c", "note": "a {brace} and \"quotes\""}
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == "On it."
    assert chunks[-1].choices[0].finish_reason == "tool_calls" and chunks[-1].usage is None


def test_without_a_grammar_calls_go_out_checked_when_they_close(server):
    client = server(Writer(CALL, constrained=False))
    chunks = list(client.chat.completions.create(model="scripted", messages=ASK, tools=TOOLS, stream=True))
    calls = [tc for c in chunks for tc in (c.choices[0].delta.tool_calls or [])]
    assert calls[0].function.name == "set_unit" and json.loads(calls[1].function.arguments)["unit"] == "c"


def test_include_usage_adds_a_last_chunk_with_the_token_counts(server):
    """Issue 80: stream_options.include_usage was ignored."""
    client = server(Writer("Hello there, " + CALL, constrained=True))
    chunks = list(client.chat.completions.create(model="scripted", messages=ASK, tools=TOOLS, stream=True,
                                                 stream_options={"include_usage": True}))
    assert chunks[-1].choices == [] and chunks[-1].usage.prompt_tokens == 7
    assert chunks[-1].usage.completion_tokens == 11 and chunks[-1].usage.total_tokens == 18
    assert all(c.usage is None for c in chunks[:-1]) and chunks[-2].choices[0].finish_reason == "tool_calls"


@pytest.mark.parametrize("kwargs, words", [
    (dict(stream_options={"include_usage": True}), "only allowed when 'stream' is true"),
    (dict(stream=True, stream_options={"include_usage": "yes"}), "'stream_options.include_usage' must be a JSON"),
    (dict(stream=True, stream_options=[1]), "'stream_options' must be an object"),
])
def test_bad_stream_options_get_a_400(server, kwargs, words):
    client = server(Writer(CALL, constrained=False))
    with pytest.raises(openai.BadRequestError) as err:
        client.chat.completions.create(model="scripted", messages=ASK, **kwargs)
    assert words in str(err.value)
