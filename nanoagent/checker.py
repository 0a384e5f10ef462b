"""Our own checker for BFCL-style answers: does a list of parsed tool calls match the possible answers?

It lives in the library because two stages share it: eval (nanoagent.scoring, eval.toolcall) decides accuracy
with it, and GRPO's tool-call rewards (nanoagent.tasks.toolcall_rewards) reuse its verdict and value comparison.

An expected answer is BFCL's possible-answer form, one dict per expected call:

    {"calculate_triangle_area": {"base": [10], "height": [5], "unit": ["units", ""]}}

read as: call `calculate_triangle_area`; `base` must be 10, `height` 5; `unit` may be "units" or left out ("" in
the list means the argument may be omitted). The checks, following BFCL's published conventions:
- the function name matches exactly;
- every argument the function's spec marks required is present;
- no argument outside the spec or outside the possible answer;
- each argument has the spec's type: "integer", "string", "boolean", "array"/"tuple" (a JSON list), "dict"/"object",
  "any" (no check); an integer is accepted where a float/"number" is expected (not the other way round), and a
  boolean is never a number (names and meanings: nanoagent.typenames CHECKER_NAMES, BFCL_CHECKS);
- each value is among the allowed ones. Strings compare after normalisation (lower case; spaces and , . / - _ * ^
  removed; ' and " the same), as BFCL does; numbers compare numerically; lists element by element, in order;
  dicts key by key, where the allowed form is itself a dict of allowed-value lists;
- an answer argument whose list lacks "" must be given;
- several expected calls (parallel categories) are matched to the model's calls one to one, in any order; the
  number of calls must be equal.
`check_calls(calls, [])` with an empty answer list means "no call is right" (irrelevance); `expect_call=True` with
no answers means "any call is right" (BFCL's live_relevance).

Usage:
    from nanoagent.checker import check_calls
    result = check_calls(reply.tool_calls, item.answers, item.functions)   # -> Check(correct, kind, message)

Left out: BFCL's Java/JavaScript string-typed values and its executable and multi-turn (state-based) checkers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from nanoagent.typenames import BFCL_CHECKS, CHECKER_NAMES

OMITTABLE = ""  # in a possible-answer list: the argument may be left out
_STRIP = re.compile(r"[ ,./\-_*^]")


@dataclass
class Check:
    correct: bool
    kind: str = "ok"   # ok | wrong_count | wrong_name | missing_required | unexpected_argument | wrong_type |
    #                    wrong_value | missing_argument | called_irrelevant | no_call
    message: str = ""


def normalize_string(text: str) -> str:
    return _STRIP.sub("", text).lower().replace("'", '"')


def type_matches(value, schema: dict | None) -> bool:
    """Does `value` have the type `schema` (a BFCL or JSON Schema property) declares, recursing into lists/dicts."""
    if not isinstance(schema, dict):
        return True
    tag = CHECKER_NAMES.get(schema["type"]) if isinstance(schema.get("type"), str) else None
    if tag not in BFCL_CHECKS:
        return True  # "any", "null", unknown or absent type: nothing to check
    if not BFCL_CHECKS[tag](value):
        return False
    if tag == "array":
        return all(type_matches(v, schema.get("items")) for v in value)
    if tag == "object":
        props = schema.get("properties") or {}
        return all(type_matches(v, props.get(k)) for k, v in value.items())
    return True


def _is_pattern(allowed) -> bool:
    return isinstance(allowed, dict) and all(isinstance(v, list) for v in allowed.values())


def value_matches(value, allowed) -> bool:
    """Does one value equal one allowed entry, under BFCL's normalisation rules."""
    if isinstance(allowed, dict) and isinstance(value, dict):
        if _is_pattern(allowed) and dict_matches(value, allowed):
            return True
        return set(value) == set(allowed) and all(value_matches(value[k], allowed[k]) for k in value)
    if isinstance(allowed, list) and isinstance(value, list):
        return len(value) == len(allowed) and all(value_matches(v, a) for v, a in zip(value, allowed))
    if isinstance(allowed, bool) or isinstance(value, bool):
        return isinstance(allowed, bool) and isinstance(value, bool) and value == allowed
    if isinstance(allowed, (int, float)) and isinstance(value, (int, float)):
        return float(value) == float(allowed)
    if isinstance(allowed, str) and isinstance(value, str):
        return normalize_string(value) == normalize_string(allowed)
    return False


def dict_matches(value: dict, pattern: dict) -> bool:
    """A dict against a possible-answer dict whose values are lists of allowed values ("" = may be left out)."""
    for key, v in value.items():
        if key not in pattern or not any(value_matches(v, a) for a in pattern[key]):
            return False
    return all(OMITTABLE in allowed for key, allowed in pattern.items() if key not in value)


def spec_index(functions) -> dict[str, dict]:
    """Function name -> its parameters schema, from canonical or bare specs."""
    index = {}
    for f in functions or []:
        fn = f.get("function", f) if isinstance(f, dict) else {}
        if isinstance(fn.get("name"), str):
            index[fn["name"]] = fn.get("parameters") or {}
    return index


def stated_optional(answer: dict, functions: dict) -> tuple[str, dict[str, str]]:
    """(function, {argument: BFCL type}) for one expected call: the arguments its spec does not require but whose
    answers accept no '' (the request states them; eval.optional_args counts whether a reply gives them)."""
    (fn, accepted), = answer.items()
    params = (functions.get(fn) or {}).get("parameters") or {}
    required = set(params.get("required") or [])
    props = params.get("properties") or {}
    return fn, {k: str((props.get(k) or {}).get("type", "?")) for k, allowed in accepted.items()
                if k not in required and "" not in allowed}


def check_one(call: dict, answer: dict, specs: dict[str, dict]) -> Check:
    """One parsed call (canonical or bare {"name", "arguments"}) against one possible-answer dict."""
    fn = call.get("function", call)
    name, args = fn.get("name"), fn.get("arguments") or {}
    if not isinstance(answer, dict) or len(answer) != 1:
        raise ValueError("a possible answer must be one {function_name: {argument: [values]}} dict, "
                         f"got {answer!r}")
    (want_name, allowed_args), = answer.items()
    if name != want_name:
        return Check(False, "wrong_name", f"called {name!r}, expected {want_name!r}")
    params = specs.get(name, {})
    props = params.get("properties") or {}
    for req in params.get("required") or []:
        if req not in args:
            return Check(False, "missing_required", f"{name}: required argument {req!r} is missing")
    for key, value in args.items():
        if key not in props or key not in allowed_args:
            return Check(False, "unexpected_argument", f"{name}: argument {key!r} is not expected")
        if not type_matches(value, props[key]):
            return Check(False, "wrong_type", f"{name}: {key}={value!r} is not of type {props[key].get('type')!r}")
        if not any(value_matches(value, a) for a in allowed_args[key]):
            return Check(False, "wrong_value", f"{name}: {key}={value!r} is not among {allowed_args[key]!r}")
    for key, allowed in allowed_args.items():
        if key not in args and OMITTABLE not in allowed:
            return Check(False, "missing_argument", f"{name}: argument {key!r} must be given ({allowed!r})")
    return Check(True)


def _perfect_matching(ok: list[list[bool]]) -> bool:
    """Is there a one-to-one assignment of answers (rows) to calls (columns) using only ok cells? (Kuhn's method)"""
    owner = [-1] * (len(ok[0]) if ok else 0)

    def place(row: int, seen: set[int]) -> bool:
        for col, good in enumerate(ok[row]):
            if good and col not in seen:
                seen.add(col)
                if owner[col] < 0 or place(owner[col], seen):
                    owner[col] = row
                    return True
        return False

    return all(place(row, set()) for row in range(len(ok)))


def check_calls(calls: list[dict], answers: list[dict] | None, functions=None, *, expect_call: bool = False) -> Check:
    """All of a reply's calls against the expected ones (see the module docstring)."""
    calls = list(calls or [])
    answers = list(answers or [])
    if not answers:
        if expect_call:
            return Check(True) if calls else Check(False, "no_call", "a call was expected, the reply made none")
        if calls:
            names = ", ".join(c.get("function", c).get("name", "?") for c in calls)
            return Check(False, "called_irrelevant", f"no call was right here, the reply called {names}")
        return Check(True)
    if not calls:
        return Check(False, "no_call", f"expected {len(answers)} call(s), the reply made none")
    if len(calls) != len(answers):
        return Check(False, "wrong_count", f"expected {len(answers)} call(s), the reply made {len(calls)}")
    specs = spec_index(functions)
    results = [[check_one(c, a, specs) for c in calls] for a in answers]
    if len(answers) == 1:
        return results[0][0]
    if _perfect_matching([[r.correct for r in row] for row in results]):
        return Check(True)
    for i, row in enumerate(results):  # explain with the first answer no call fits, preferring a same-name call
        if not any(r.correct for r in row):
            best = next((r for r in row if r.kind != "wrong_name"), row[0])
            return Check(False, best.kind, f"expected call {i + 1}: {best.message}")
    return Check(False, "wrong_value", "each expected call fits some call, but not one to one")
