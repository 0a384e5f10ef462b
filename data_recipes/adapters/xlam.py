"""Adapter for Salesforce/xlam-function-calling-60k.

Row as published: `{"id": int, "query": str, "tools": JSON str, "answers": JSON str}` where `tools` is a list of
`{"name", "description", "parameters": {param: {"type": "str, optional", "description", "default"}}}` (Python
type names, not JSON Schema) and `answers` a list of `{"name", "arguments": {...}}` calls, all made in one turn.
The record is user query -> one assistant turn with those calls (no tool results: the dataset has none).

Left out: xLAM has no final answer after the calls; we don't invent one.
"""

from __future__ import annotations

from data_recipes.convert import Drop, call, loads_objects, tool_spec
from data_recipes.turns import finish


def xlam(row: dict) -> dict:
    query = row.get("query")
    if not isinstance(query, str) or not query.strip():
        raise Drop("missing_query")
    if row.get("tools") is None or row.get("answers") is None:
        raise Drop("missing_tools_or_answers")
    tools = [tool_spec(t) for t in loads_objects(row["tools"], "tools")]
    calls = [call(c) for c in loads_objects(row["answers"], "answers")]
    if not calls:
        raise Drop("no_calls")
    messages = [{"role": "user", "content": query.strip()},
                {"role": "assistant", "content": "", "tool_calls": calls}]
    return finish(messages, tools, source="xlam", row_id=row.get("id"))
