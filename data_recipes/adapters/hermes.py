"""Adapters for the Hermes-format sources.

Rows as published:
- NousResearch/hermes-function-calling-v1 (configs func_calling_singleturn, func_calling, glaive_func_calling,
  json_mode_*): `{"id", "conversations": [{"from": "system"|"human"|"gpt"|"tool", "value": str}], "category",
  "subcategory", "task"}`; tools in the system prompt inside `<tools>`, often as Python literals
  (`{'type': 'function', ...}`), calls as `<tool_call>\n{'arguments': {...}, 'name': ...}\n</tool_call>`,
  results as `<tool_response>` blocks in `tool` turns.
- Jofthomas/hermes-function-calling-thinking-V1: `{"conversations": [{"role": "system"|"human"|"model"|"tool",
  "content": str}]}`, same tags, with `<think>` reasoning before the calls.
- Locutusque/function-calling-chatml: `{"system_message": str, "function_description": str, "conversations":
  [{"from": "system"|"human"|"gpt"|"function-call"|"function-response", "value": str}]}`;
  `function_description` holds several JSON objects written back to back, a `function-call` value is the call's
  JSON (its `arguments` often a single-quoted JSON string: a Python literal). `conversations` opens with a
  `system` turn repeating `system_message`; with tools it is glaive's "Use them if required -" boilerplate and is
  dropped.

Left out: json_mode rows are converted as plain chat (the schema stays in the system prompt).
"""

from __future__ import annotations

from data_recipes.convert import Drop, loads_objects, tool_spec
from data_recipes.turns import finish, messages_from_turns


def hermes_v1(row: dict) -> dict:
    messages, tools = messages_from_turns(row.get("conversations"), "from", "value")
    return finish(messages, tools, source="hermes_v1", row_id=row.get("id"),
                  **({"category": row["category"]} if row.get("category") else {}))


def hermes_thinking(row: dict) -> dict:
    turns = row.get("conversations", row.get("messages"))
    messages, tools = messages_from_turns(turns, "role", "content")
    return finish(messages, tools, source="hermes_thinking", row_id=row.get("id"))


def chatml_fc(row: dict) -> dict:
    desc = row.get("function_description")
    tools = [tool_spec(t) for t in loads_objects(desc, "function_description")] if desc and desc.strip() else []
    messages, _ = messages_from_turns(row.get("conversations"), "from", "value", tools=tools)
    if tools:  # the system turn only announces the functions; our renderer writes the tool instructions
        messages = [m for m in messages if m["role"] != "system"]
    system = (row.get("system_message") or "").strip()
    if system and not tools and not (messages and messages[0]["role"] == "system"):
        messages.insert(0, {"role": "system", "content": system})
    if not messages:
        raise Drop("no_messages")
    return finish(messages, tools, source="chatml_fc", row_id=row.get("id"))
