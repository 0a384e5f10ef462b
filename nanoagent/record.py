"""The one conversation record every stage reads and writes.

A record is OpenAI-style chat data plus the tools that were offered:

    {"messages": [{"role": "system" | "user" | "assistant" | "tool", "content": str,
                   "tool_calls": [{"type": "function",
                                   "function": {"name": str, "arguments": {...}}}]},  # assistant only
                  ...],
     "tools": [{"type": "function",
                "function": {"name": str, "description": str, "parameters": {JSON Schema}}}],
     "meta": {...}}                                                            # free-form: source, id, ...

`Record.from_dict` accepts the common spellings (bare `{"name", "arguments"}` calls, arguments as a JSON
string, bare tool specs without the `function` wrapper) and returns the canonical form above; anything it
cannot make sense of raises `RecordError`, whose message names the field and the problem. Records are JSON
round-trippable (`to_dict`) so data files, trajectories and eval results share one shape.

Usage:
    rec = Record.from_dict(json.loads(line))
    rec.tool_names()  # {"get_weather", ...}

Deliberately left out: rendering to text (nanoagent.render) and parsing model output (nanoagent.toolcall).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

ROLES = ("system", "user", "assistant", "tool")


class RecordError(ValueError):
    """A record that does not fit the canonical format; `field` is a path like `messages[2].role`."""

    def __init__(self, field: str, problem: str):
        self.field = field
        self.problem = problem
        super().__init__(f"{field}: {problem}")


def jsonl_lines(path):
    """(line number, text) for each line of a JSONL file; a RecordError names the file and line of bytes that are
    not UTF-8 (a binary or wrongly encoded file), instead of a decoding traceback."""
    with open(path, "rb") as fh:
        for n, raw in enumerate(fh, 1):
            try:
                yield n, raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise RecordError(f"{path}:{n}", f"not UTF-8 text (byte {raw[e.start]:#04x} at column "
                                  f"{e.start + 1}); give a JSONL file of records") from None


def normalize_tool_spec(spec: Any, where: str = "tools[?]") -> dict:
    """Return `{"type": "function", "function": {name, description, parameters}}` for a tool spec."""
    if not isinstance(spec, dict):
        raise RecordError(where, f"a tool spec must be an object, got {type(spec).__name__}")
    fn = spec.get("function", spec) if spec.get("type", "function") == "function" else None
    if fn is None:
        raise RecordError(f"{where}.type", f"only 'function' tools are supported, got {spec.get('type')!r}")
    if not isinstance(fn, dict):
        raise RecordError(f"{where}.function", "must be an object with 'name' and 'parameters'")
    name = fn.get("name")
    if not isinstance(name, str) or not name.strip():
        raise RecordError(f"{where}.function.name", "a tool needs a non-empty string name")
    params = fn.get("parameters", {"type": "object", "properties": {}})
    if params is None:
        params = {"type": "object", "properties": {}}
    if not isinstance(params, dict):
        raise RecordError(f"{where}.function.parameters", "must be a JSON Schema object")
    out = {"name": name, "description": str(fn.get("description") or ""), "parameters": params}
    return {"type": "function", "function": out}


def normalize_tool_call(call: Any, where: str = "tool_calls[?]") -> dict:
    """Return `{"type": "function", "function": {"name": str, "arguments": dict}}` for a call."""
    if not isinstance(call, dict):
        raise RecordError(where, f"a tool call must be an object, got {type(call).__name__}")
    fn = call.get("function", call)
    if not isinstance(fn, dict):
        raise RecordError(f"{where}.function", "must be an object with 'name' and 'arguments'")
    name = fn.get("name")
    if not isinstance(name, str) or not name.strip():
        raise RecordError(f"{where}.name", "a tool call needs a non-empty string name")
    args = fn.get("arguments", {})
    if isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except json.JSONDecodeError as e:
            raise RecordError(f"{where}.arguments", f"arguments string is not JSON ({e.msg})") from None
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise RecordError(f"{where}.arguments", f"arguments must be an object, got {type(args).__name__}")
    return {"type": "function", "function": {"name": name, "arguments": args}}


@dataclass
class Record:
    messages: list[dict]
    tools: list[dict] = field(default_factory=list)
    meta: dict = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: Any) -> "Record":
        if not isinstance(data, dict):
            raise RecordError("record", f"must be an object, got {type(data).__name__}")
        tools_in = data.get("tools") or []
        if isinstance(tools_in, str):
            try:
                tools_in = json.loads(tools_in)
            except json.JSONDecodeError as e:
                raise RecordError("tools", f"string is not JSON ({e.msg})") from None
        if not isinstance(tools_in, list):
            raise RecordError("tools", "must be a list of tool specs")
        tools = [normalize_tool_spec(t, f"tools[{i}]") for i, t in enumerate(tools_in)]
        names = [t["function"]["name"] for t in tools]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise RecordError("tools", f"tool names must be unique, repeated: {sorted(dup)}")
        meta = data.get("meta") or {}
        if not isinstance(meta, dict):
            raise RecordError("meta", "must be an object")
        messages = _normalize_messages(data.get("messages"), set(names))
        return cls(messages=messages, tools=tools, meta=dict(meta))

    def to_dict(self) -> dict:
        return {"messages": self.messages, "tools": self.tools, "meta": self.meta}

    def tool_names(self) -> set[str]:
        return {t["function"]["name"] for t in self.tools}


def _normalize_messages(messages: Any, tool_names: set[str]) -> list[dict]:
    if not isinstance(messages, list) or not messages:
        raise RecordError("messages", "must be a non-empty list of messages")
    out = []
    for i, msg in enumerate(messages):
        where = f"messages[{i}]"
        if not isinstance(msg, dict):
            raise RecordError(where, f"a message must be an object, got {type(msg).__name__}")
        role = msg.get("role")
        if role not in ROLES:
            raise RecordError(f"{where}.role", f"{role!r} is not one of {', '.join(ROLES)}")
        if role == "system" and i != 0:
            raise RecordError(f"{where}.role", "a system message may only come first")
        content = msg.get("content")
        if content is None:
            content = ""
        if not isinstance(content, str):
            raise RecordError(f"{where}.content", f"must be a string, got {type(content).__name__}")
        norm: dict = {"role": role, "content": content}
        calls = msg.get("tool_calls") or []
        if calls and role != "assistant":
            raise RecordError(f"{where}.tool_calls", f"only assistant messages carry tool calls, not {role}")
        if calls:
            if not isinstance(calls, list):
                raise RecordError(f"{where}.tool_calls", "must be a list")
            norm_calls = []
            for j, c in enumerate(calls):
                call = normalize_tool_call(c, f"{where}.tool_calls[{j}]")
                name = call["function"]["name"]
                if name not in tool_names:
                    offered = ", ".join(sorted(tool_names)) or "none"
                    raise RecordError(f"{where}.tool_calls[{j}].name",
                                      f"calls unknown tool {name!r} (offered: {offered})")
                norm_calls.append(call)
            norm["tool_calls"] = norm_calls
        if role == "assistant" and not content and not calls:
            raise RecordError(where, "an assistant message needs content or tool calls")
        if role == "tool":
            prev = next((m for m in reversed(out) if m["role"] != "tool"), None)
            # A malformed call stays as text in the content and the harness answers it with the parser's error,
            # so agent trajectories have tool turns after assistant turns without parsed calls.
            answered = prev is not None and prev["role"] == "assistant" and (
                prev.get("tool_calls") or "<tool_call>" in prev["content"])
            if not answered:
                raise RecordError(f"{where}.role", "a tool message must follow an assistant message with tool calls")
            if isinstance(msg.get("name"), str):
                norm["name"] = msg["name"]
        out.append(norm)
    if not any(m["role"] == "assistant" for m in out) and not any(m["role"] == "user" for m in out):
        raise RecordError("messages", "needs at least one user or assistant message")
    return out


# A tool-calling conversation up to the model's turn: the smoke run (python -m pipeline --stages smoke), the export
# parity check and the quickstart notebook show what the model does with it.
DEMO_RECORD = {
    "messages": [
        {"role": "system", "content": "You are a helpful assistant with access to tools."},
        {"role": "user", "content": "What's the weather like in Paris right now, in celsius?"},
    ],
    "tools": [
        {"type": "function", "function": {
            "name": "get_weather", "description": "Get the current weather for a city.",
            "parameters": {"type": "object", "properties": {
                "city": {"type": "string", "description": "City name, e.g. Berlin"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
                "required": ["city"]}}},
        {"type": "function", "function": {
            "name": "convert_currency", "description": "Convert an amount between two currencies.",
            "parameters": {"type": "object", "properties": {
                "amount": {"type": "number"}, "from": {"type": "string"}, "to": {"type": "string"}},
                "required": ["amount", "from", "to"]}}},
    ],
}
