"""Adapters for the sources without tools: orca-agentinstruct and gsm8k_decomposed.

Rows as published:
- microsoft/orca-agentinstruct-1M-v1 (splits named by task: creative_content, text_modification, rc, ...):
  `{"messages": JSON str of [{"role", "content"}]}`; the system message is often empty.
- weijie210/gsm8k_decomposed (train 7.12k, test 200): GSM8K questions with step-by-step answers. We read
  `question` and `answer` (GSM8K's `#### <number>` ending kept) and, when present, a decomposition column
  (`decomposition`, `decomposed`, `sub_questions`, `subquestions`) written as numbered steps before the answer.
  Public code reads `question` and `sub_questions` (a list of str); that `answer` exists is not confirmed (see
  data_recipes/fixtures/README.md). Rows with `messages` are read as chat.

Left out: orca's per-split task names are recorded in meta only when the loader passes them.
"""

from __future__ import annotations

from data_recipes.convert import Drop
from data_recipes.turns import finish, messages_from_turns

DECOMPOSITION_COLUMNS = ("decomposition", "decomposed", "sub_questions", "subquestions")


def orca_agentinstruct(row: dict) -> dict:
    messages, tools = messages_from_turns(row.get("messages"))
    if tools or any(m.get("tool_calls") for m in messages):
        raise Drop("unexpected_tool_calls")
    return finish(messages, [], source="orca_agentinstruct", row_id=row.get("id"))


def gsm8k_decomposed(row: dict) -> dict:
    if row.get("messages"):
        messages, _ = messages_from_turns(row["messages"])
        return finish(messages, [], source="gsm8k_decomposed", row_id=row.get("id"))
    question, answer = row.get("question"), row.get("answer")
    if not isinstance(question, str) or not question.strip():
        raise Drop("missing_question")
    if not isinstance(answer, str) or not answer.strip():
        raise Drop("missing_answer")
    steps = next((row[c] for c in DECOMPOSITION_COLUMNS if row.get(c)), None)
    if isinstance(steps, list):
        steps = "\n".join(f"{i}. {str(s).strip()}" for i, s in enumerate(steps, 1))
    reply = answer.strip() if not steps else f"Steps:\n{str(steps).strip()}\n\n{answer.strip()}"
    messages = [{"role": "user", "content": question.strip()}, {"role": "assistant", "content": reply}]
    return finish(messages, [], source="gsm8k_decomposed", row_id=row.get("id"))
