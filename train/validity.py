"""Held-out tool-call validity: the share of greedy replies that parse into a schema-valid call of the right tool.

    prompts = heldout_prompts(records, n=16)           # records whose first assistant turn calls a tool
    result = tool_call_validity(model, tokenizer, prompts, max_tokens=96)
    result["validity"]   # share in [0, 1]; result["kinds"] counts the failures by kind

For each held-out record the prompt is everything before its first assistant turn that makes a tool call,
rendered with `nanoagent.render.render_prompt`; the reply is generated greedily until `<|im_end|>` and parsed
with `nanoagent.toolcall.parse` against the record's tools. A reply is valid when it parses, holds at least one
call, and its first call names the tool the reference called. Kept in one small module so the eval stage can
replace it. Left out: argument-value matching, batching, constrained decoding.
"""

from __future__ import annotations

from collections import Counter

import mlx.core as mx

from nanoagent.record import Record
from nanoagent.render import render_prompt
from nanoagent.toolcall import ToolCallError, parse


def heldout_prompts(records: list[Record], n: int) -> list[dict]:
    out = []
    for rec in records:
        for i, msg in enumerate(rec.messages):
            if msg["role"] == "assistant" and msg.get("tool_calls"):
                out.append({"messages": rec.messages[:i], "tools": rec.tools,
                            "expected": msg["tool_calls"][0]["function"]["name"]})
                break
        if len(out) >= n:
            break
    return out


def greedy_reply(model, tokenizer, prompt_ids: list[int], max_tokens: int, eos_ids: set[int]) -> str:
    from mlx_lm.generate import generate_step

    out = []
    for token, _ in generate_step(mx.array(prompt_ids), model, max_tokens=max_tokens):
        token = int(token)
        if token in eos_ids:
            break
        out.append(token)
    return tokenizer.decode(out, skip_special_tokens=False)


def score_reply(text: str, tools, expected: str) -> str:
    """'valid' or the failure kind."""
    try:
        reply = parse(text, tools)
    except ToolCallError as e:
        return e.kind
    if not reply.tool_calls:
        return "no_call"
    if reply.tool_calls[0]["function"]["name"] != expected:
        return "wrong_tool"
    return "valid"


def tool_call_validity(model, tokenizer, prompts: list[dict], max_tokens: int = 96, progress=None,
                       keep_examples: int = 3) -> dict:
    eos = {tokenizer.convert_tokens_to_ids("<|im_end|>")}
    if getattr(tokenizer, "eos_token_id", None) is not None:
        eos.add(tokenizer.eos_token_id)
    kinds, examples = Counter(), []
    was_training = getattr(model, "training", False)
    model.eval()
    for p in prompts:
        ids = render_prompt(p["messages"], p["tools"], tokenizer)
        text = greedy_reply(model, tokenizer, ids, max_tokens, eos)
        kind = score_reply(text, p["tools"], p["expected"])
        kinds[kind] += 1
        if len(examples) < keep_examples:
            examples.append({"expected": p["expected"], "reply": text[:300], "result": kind})
        if progress is not None:
            progress()
    if was_training:
        model.train()
    n = len(prompts)
    return {"validity": kinds["valid"] / n if n else float("nan"), "n": n, "kinds": dict(kinds),
            "examples": examples}
