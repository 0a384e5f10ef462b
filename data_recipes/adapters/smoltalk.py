"""Adapters for HuggingFaceTB/smoltalk (apigen-80k, smol-magpie-ultra) and smoltalk2 (smolagents traces).

Rows as published:
- smoltalk `apigen-80k`: `{"messages": [{"role", "content"}]}`; the system message lists the tools inside
  `<tools>[...]</tools>` (xLAM-style parameter tables), the assistant answers with a JSON *list* of calls inside
  one `<tool_call>` (or in plain text when no tool fits).
- smoltalk `smol-magpie-ultra`: `{"messages": [...], ...}` plain multi-turn chat; extra columns are ignored.
- smoltalk2 `SFT` split `smolagents_toolcalling_traces_think`: `{"messages": [...], "chat_template_kwargs":
  {"xml_tools": [str], "python_tools": [...], "enable_thinking": bool, ...}, "source": str}`; an `xml_tools`
  string may hold several JSON tool specs, one per line (public loaders split `xml_tools[0]` on newlines);
  assistant turns write `<think>...</think>` then `<tool_call>{...}</tool_call>`, tool results come back as
  `tool` turns (or `user` turns holding `<tool_response>`).

Left out: smoltalk2's `python_tools` (code-agent prompts); only the XML tool-calling convention is converted.
"""

from __future__ import annotations

from data_recipes.convert import Drop, loads_lenient, loads_objects, tool_spec
from data_recipes.turns import finish, messages_from_turns


def smoltalk_apigen(row: dict) -> dict:
    messages, tools = messages_from_turns(row.get("messages"))
    return finish(messages, tools, source="smoltalk_apigen", row_id=row.get("id"))


def smoltalk_magpie(row: dict) -> dict:
    messages, tools = messages_from_turns(row.get("messages"))
    if tools or any(m.get("tool_calls") for m in messages):
        raise Drop("unexpected_tool_calls")
    return finish(messages, [], source="smoltalk_magpie", row_id=row.get("id"))


def smoltalk2_agents(row: dict) -> dict:
    kwargs = row.get("chat_template_kwargs") or {}
    if isinstance(kwargs, str):
        kwargs = loads_lenient(kwargs, "chat_template_kwargs")
    xml_tools = kwargs.get("xml_tools") if isinstance(kwargs, dict) else None
    tools = None
    if xml_tools:  # each string: one spec, or several written one per line
        tools = [tool_spec(t) for s in xml_tools for t in loads_objects(s, "tools")]
    messages, tools = messages_from_turns(row.get("messages"), tools=tools)
    if not tools:
        raise Drop("no_xml_tools")
    return finish(messages, tools, source="smoltalk2_agents", row_id=row.get("id"))
