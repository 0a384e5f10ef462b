"""Score one model reply on one eval item: did it call, is the call well-formed and schema-valid, is it right.

    outcome = score_reply(text, item)   # {"has_call", "valid", "correct", "kind", "message", "calls"}

`item` is anything with eval's item fields (eval.suites.EvalItem): `tools` (the offered specs), `answers` (BFCL
possible-answer form), `functions` (the specs the checker reads types from) and `expect` ("calls", "no_call" or
"any_call"). It lives in the library so eval and GRPO's tool-call rewards (nanoagent.tasks.toolcall_rewards) share
one verdict.

`has_call`: the reply tries a tool call (a <tool_call> tag is in it, broken or not).
`valid`: the reply parses with nanoagent.toolcall.parse against the offered tools (known tool names, arguments
fitting each JSON Schema) and holds at least one call.
`correct`: nanoagent.checker against the item's answers (BFCL's conventions decide accuracy). A reply the parser
rejects is never a crash: broken structure (unclosed_tag, not_json, unknown_tool) is never correct and its `kind` is the
parser's; well-formed calls whose arguments break the offered JSON Schema (bad_arguments: e.g. a value outside an
enum, which BFCL does not check) are not `valid`, the checker still decides `correct`, and `schema_error` says why.

Stricter than BFCL on purpose: for irrelevance, BFCL counts output it cannot decode as abstaining; here a broken
tool call is still an attempt to call, so it is wrong.

Left out: partial credit.
"""

from __future__ import annotations

from nanoagent.checker import check_calls
from nanoagent.toolcall import OPEN, BadArgumentsError, ToolCallError, parse


def score_reply(text: str, item) -> dict:
    has_call = OPEN in text
    try:
        reply, valid = parse(text, item.tools), True
    except BadArgumentsError as e:  # well-formed calls whose arguments break the JSON Schema: the checker decides
        try:
            reply, valid, schema_error = parse(text, None), False, e
        except ToolCallError as broken:  # and broken structure further on (a later unclosed tag): that decides
            return _broken(has_call, broken)
    except ToolCallError as e:
        return _broken(has_call, e)
    calls = [{"name": c["function"]["name"], "arguments": c["function"]["arguments"]} for c in reply.tool_calls]
    check = check_calls(reply.tool_calls, item.answers, item.functions, expect_call=item.expect == "any_call")
    out = {"has_call": bool(calls) or has_call, "valid": valid and bool(calls), "correct": check.correct,
           "kind": check.kind, "message": check.message, "calls": calls}
    if not valid:
        out["schema_error"] = str(schema_error)[:300]
        if not check.correct:
            out["kind"] = f"{check.kind}+bad_arguments"
    return out


def _broken(has_call: bool, e: ToolCallError) -> dict:
    return {"has_call": has_call, "valid": False, "correct": False, "kind": e.kind, "message": str(e)[:300],
            "calls": []}
