"""Conversation assembly for the adapters: source turns -> canonical messages, and the final record check.

`messages_from_turns` reads chat turns in any of the sources' spellings (role/content or from/value; human, gpt,
model, function-call, function-response, ...), takes tools from a system `<tools>` block, splits assistant text
into content and calls and tool turns into one message per `<tool_response>`. `finish` validates the result:
calls to tools that were not offered drop the row (`calls_unknown_tool`), empty turns are named, and
`Record.from_dict` must accept it.

Usage (in an adapter):
    messages, tools = messages_from_turns(row["conversations"], "from", "value")
    return finish(messages, tools, source="hermes_v1", row_id=row["id"])

Left out: merging consecutive user turns; such rows pass through as the source wrote them.
"""

from __future__ import annotations

import re
from typing import Any

from data_recipes.convert import (Drop, call, dropping, loads_lenient, loads_objects, split_tool_responses,
                                  tools_from_text)
from nanoagent.record import Record, RecordError
from nanoagent.toolcall import parse


ROLE_NAMES = {
    "system": "system", "user": "user", "human": "user", "assistant": "assistant", "gpt": "assistant",
    "model": "assistant", "bot": "assistant", "tool": "tool", "ipython": "tool", "function": "tool",
    "observation": "tool", "function-response": "tool", "function_response": "tool",
}


def finish(messages: list[dict], tools: list[dict], source: str, row_id: Any = None, **meta) -> dict:
    """Validate and return the canonical record dict; drops calls to tools that were not offered."""
    offered = {t["function"]["name"] for t in tools}
    for m in messages:
        for c in m.get("tool_calls") or []:
            if c["function"]["name"] not in offered:
                raise Drop("calls_unknown_tool", c["function"]["name"])
    if not any(m["role"] == "assistant" for m in messages):
        raise Drop("no_assistant_turn")
    for m in messages:
        if m["role"] == "assistant" and not (m.get("content") or "").strip() and not m.get("tool_calls"):
            raise Drop("empty_assistant_turn")
        if m["role"] == "user" and not (m.get("content") or "").strip():
            raise Drop("empty_user_turn")
    info = {"source": source, **({"id": str(row_id)} if row_id is not None else {}), **meta}
    try:
        rec = Record.from_dict({"messages": messages, "tools": tools, "meta": info})
    except RecordError as e:
        raise Drop("invalid_record:" + re.sub(r"\[\d+\]", "[]", e.field), e.problem) from None
    return rec.to_dict()


def messages_from_turns(turns: Any, role_key: str = "role", content_key: str = "content",
                        tools: list[dict] | None = None) -> tuple[list[dict], list[dict]]:
    """Canonical messages (and tools) from a list of chat turns in any of the sources' spellings.

    Roles are mapped through ROLE_NAMES (`human`/`gpt`/`model`/`function-call`/...). A system prompt that lists
    `<tools>` gives the tools when `tools` is None; its remaining text is the other convention's format
    boilerplate and is dropped (our renderer writes its own). Assistant text is split into content and calls,
    a `function-call` turn becomes the calls of the assistant turn before it, and a tool turn holding several
    `<tool_response>` blocks becomes one tool message per block.
    """
    if isinstance(turns, str):
        turns = loads_lenient(turns, "messages")
    if not isinstance(turns, list) or not turns:
        raise Drop("no_messages")
    found_tools = list(tools) if tools is not None else []
    out: list[dict] = []
    for turn in turns:
        if not isinstance(turn, dict):
            raise Drop("bad_turn", f"a turn is {type(turn).__name__}")
        # Arrow-loaded rows carry every key seen in the file, with None where a row lacks it.
        raw_role = next((turn[k] for k in (role_key, "role", "from") if turn.get(k) is not None), "")
        raw_role = str(raw_role).strip().lower()
        text = next((turn[k] for k in (content_key, "content", "value") if turn.get(k) is not None), "")
        if not isinstance(text, str):
            raise Drop("bad_turn", f"content is {type(text).__name__}")
        if raw_role in ("function-call", "function_call", "tool_call", "tool-call"):
            calls = [call(c) for c in loads_objects(text.replace("<functioncall>", ""), "tool_call")]
            if out and out[-1]["role"] == "assistant" and not out[-1].get("tool_calls"):
                out[-1]["tool_calls"] = calls
            else:
                out.append({"role": "assistant", "content": "", "tool_calls": calls})
            continue
        role = ROLE_NAMES.get(raw_role)
        if role is None:
            raise Drop("unknown_role", raw_role)
        if role == "user" and "<tool_response>" in text and out and out[-1].get("tool_calls"):
            role = "tool"
        if role == "system":
            if "<tools>" in text:
                specs, _ = tools_from_text(text)
                if tools is None:
                    found_tools = specs
                continue
            if not text.strip() or out:
                continue  # empty prompts carry nothing; a late system turn has no place in ChatML training data
            out.append({"role": "system", "content": text.strip()})
        elif role == "assistant":
            if "<functioncall>" in text:  # glaive style: free text, then `<functioncall> {json}`
                head, _, body = text.partition("<functioncall>")
                content, calls = head.strip(), [call(c) for c in loads_objects(body, "tool_call")]
            else:
                reply = dropping(parse)(text, lenient=True)
                content, calls = reply.content, reply.tool_calls
            msg = {"role": "assistant", "content": content}
            if calls:
                msg["tool_calls"] = calls
            out.append(msg)
        elif role == "tool":
            for payload in split_tool_responses(text):
                out.append({"role": "tool", "content": payload})
        else:
            out.append({"role": role, "content": text.strip()})
    return out, found_tools
