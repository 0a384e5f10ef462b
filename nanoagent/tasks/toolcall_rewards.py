"""GRPO rewards of the tool-call task family: one reply per task, scored in parts (ToolRL-style) plus eval's verdict.

    parts = reply_parts(text, task)                        # {"format": 1.0, "tool_name": 0.5, ...}
    totals, parts = combine(texts, tasks, {"format": 0.2, "arg_values": 0.5})

A task is anything with eval's item fields (nanoagent.suites.EvalItem): `tools`, `answers` (BFCL possible-answer form,
one `{name: {argument: [allowed values]}}` per expected call, `[]` when no call is right), `functions` and `expect`
("calls" or "no_call"). The parts, each in [0, 1]:

    format      the reply parses with nanoagent.toolcall.parse (well-formed <tool_call> JSON), holds a call, and is
                written as the training data writes calls: nothing but its <tool_call> blocks, each exactly
                nanoagent.toolcall.format_tool_call of what it parsed to. The parser forgives a space before the
                brace or a sentence before the call; left unpaid, such spellings drift in under GRPO (a real run
                went from 0 to 55% `<tool_call>\n {`, and its calls got worse: train/results/grpo-quality-cpu)
    tool_name   share of the expected calls whose tool name was called (each call counts for one expected call)
    arg_names   per expected call matched by name, the overlap of argument names: hits / (hits + missing + extra),
                Jaccard when every argument is required (an optional argument left out is no miss); 0 unmatched
    arg_values  per matched call, the share of expected arguments whose value is allowed, compared as eval's
                checker does (nanoagent.checker: type_matches against the tool's spec, then value_matches, so 150.0
                is not an integer but "paris" is "Paris"); an optional argument left out counts as right
    call_count  1 when the reply makes exactly as many calls as expected
    correct     eval's own verdict (nanoagent.scoring.score_reply: schema-free BFCL check), for logging or as a
                Tool-N1-style exact-match reward

Calls are matched to expected calls one to one among calls of the same name, best pairs (arg_names + arg_values)
first. A no-call task (`expect == "no_call"`) scores every part 1 for a reply without a call and 0 for a reply that
calls or tries to (broken markup counts as trying, as in eval). A reply whose markup is broken scores 0 everywhere
on a call task; a missing reply (None: the rollout crashed) scores 0 everywhere.

Left out: partial credit inside one broken call (the parser stops at the first), learned or length-based rewards.
"""

from __future__ import annotations

from nanoagent.checker import OMITTABLE, spec_index, type_matches, value_matches
from nanoagent.scoring import score_reply
from nanoagent.tasks.rewards import check_weights as _check_weights
from nanoagent.toolcall import ToolCallError, format_tool_call, parse

PARTS = ("format", "tool_name", "arg_names", "arg_values", "call_count", "correct")


def read_calls(text: str) -> list[dict] | None:
    """The reply's calls as bare {"name", "arguments"} dicts, or None when its tool-call markup is broken."""
    try:
        reply = parse(text, None)
    except ToolCallError:
        return None
    return [c["function"] for c in reply.tool_calls]


def canonical(text: str, calls: list[dict]) -> bool:
    """Whether `text` is just these calls' blocks as format_tool_call writes them (whitespace between blocks
    allowed)."""
    rest = text.strip()
    for c in calls:
        block = format_tool_call(c.get("name", ""), c.get("arguments") or {})
        if not rest.startswith(block):
            return False
        rest = rest[len(block):].lstrip()
    return rest == ""


def no_call_expected(task) -> bool:
    return getattr(task, "expect", "calls") == "no_call" or not task.answers


def argument_scores(answer: dict, call: dict, params: dict | None = None) -> tuple[float, float]:
    """(arg_names, arg_values) of one call against one expected call of the same name; `params` is the tool's
    parameters schema, whose property types a value must have (as in eval's check)."""
    (_, allowed), = answer.items()
    args = call.get("arguments") or {}
    props = (params or {}).get("properties") or {}
    must = {k for k, values in allowed.items() if OMITTABLE not in values}
    hits, missing, extra = len(set(args) & set(allowed)), len(must - set(args)), len(set(args) - set(allowed))
    names = hits / (hits + missing + extra) if hits + missing + extra else 1.0
    right = sum(1 for k, values in allowed.items()
                if (k in args and type_matches(args[k], props.get(k))
                    and any(value_matches(args[k], v) for v in values if v != OMITTABLE))
                or (k not in args and OMITTABLE in values))
    return names, (right / len(allowed) if allowed else 1.0)


def match_calls(answers: list[dict], calls: list[dict], specs: dict | None = None) -> list[tuple]:
    """One-to-one (answer index, call index, arg_names, arg_values) among same-name pairs, best pairs first.

    Within one name every expected call and every call may pair, so any maximal matching has the most pairs;
    taking the best-scoring pairs first decides which ones."""
    pairs = []
    for i, answer in enumerate(answers):
        name = next(iter(answer))
        for j, call in enumerate(calls):
            if call.get("name") == name:
                pairs.append((i, j, *argument_scores(answer, call, (specs or {}).get(name))))
    pairs.sort(key=lambda p: -(p[2] + p[3]))
    used_a, used_c, out = set(), set(), []
    for i, j, names, values in pairs:
        if i not in used_a and j not in used_c:
            used_a.add(i), used_c.add(j)
            out.append((i, j, names, values))
    return out


def reply_parts(text: str | None, task) -> dict[str, float]:
    """Every part for one reply (see the module docstring)."""
    if text is None:
        return {p: 0.0 for p in PARTS}
    calls = read_calls(text)
    correct = 1.0 if score_reply(text, task)["correct"] else 0.0
    if no_call_expected(task):
        declined = 1.0 if calls == [] else 0.0
        return {**{p: declined for p in PARTS}, "correct": correct}
    if not calls:  # broken markup, or plain text where a call was expected
        return {**{p: 0.0 for p in PARTS}, "correct": correct}
    answers = task.answers
    matched = match_calls(answers, calls, spec_index(getattr(task, "functions", None) or task.tools))
    n = len(answers)
    return {"format": 1.0 if canonical(text, calls) else 0.0, "tool_name": len(matched) / n,
            "arg_names": sum(m[2] for m in matched) / n,
            "arg_values": sum(m[3] for m in matched) / n, "call_count": 1.0 if len(calls) == n else 0.0,
            "correct": correct}


def check_weights(weights: dict) -> dict[str, float]:
    """Part weights by name; unknown names, weights that are not numbers or all zero are a ValueError."""
    return _check_weights(weights, PARTS, "tool-call reward part")


def combine(texts, tasks, weights: dict) -> tuple[list[float], dict[str, list[float]]]:
    """Weighted sum of the parts per reply, and every part (weighted or not: all are logged)."""
    weights = check_weights(weights)
    rows = [reply_parts(t, task) for t, task in zip(texts, tasks)]
    parts = {p: [r[p] for r in rows] for p in PARTS}
    totals = [sum(w * r[p] for p, w in weights.items()) for r in rows]
    return totals, parts
