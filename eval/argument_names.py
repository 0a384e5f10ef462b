"""Argument names the called function does not have, sorted by where they came from:
`python -m eval.argument_names RESULT.json ...`

    python -m eval.argument_names eval/results/quality/toolcall_quality-cpu-b46-seed2-q8_0-parallel_multiple.json
    python -m eval.argument_names A.json B.json --suites parallel,parallel_multiple --examples 5 --json

A call that gives a key its function's schema lacks fails the item whatever its values (BFCL's checker rejects an
unexpected argument), and the schema check that `valid` counts does not always catch it (BFCL's specs do not forbid
extra properties). For every such key in the replies of the chosen suites, this names the first class that fits:

    schema word            a JSON Schema keyword (`required`, `default`, `enum`, ...): the model copied the spec's
                           structure into the arguments
    another tool's         a parameter of another function offered in the same prompt (`from_currency` on a banking
    parameter              call when a converter is also offered): the calls of a multi-tool reply ran together
    near miss              close to one of the function's own parameters that the call did not give (`details_level`
                           for `detail_level`, `class` for `_class`): the right slot, spelled wrong
    invented               none of these

It counts, per suite, the keys, the replies with at least one, and the replies that are wrong only for them: replies
that would be right with those keys dropped. Suites without expected calls (irrelevance) and the validation split
are left out.
"""

from __future__ import annotations

import difflib
import sys
from collections import Counter

from eval.optional_args import cost_of, per_suite_main
from nanoagent.checker import spec_index

SCHEMA_WORDS = frozenset({"required", "default", "enum", "properties", "type", "description", "items", "minimum",
                          "maximum", "format", "pattern", "parameters", "additionalProperties", "optional"})
CLASSES = ("schema word", "another tool's parameter", "near miss", "invented")


def _folded(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum())


def near_miss(key: str, unused: set[str]) -> str | None:
    """The function's own parameter (one the call did not give) that `key` is a misspelling of, if any: the same
    letters apart from case and separators, one name inside the other, or a close string match."""
    folded = _folded(key)
    for param in sorted(unused):
        other = _folded(param)
        if other and folded and (folded == other or folded in other or other in folded):
            return param
    close = difflib.get_close_matches(key, sorted(unused), n=1, cutoff=0.8)
    return close[0] if close else None


def classify(key: str, fn: str, given: set[str], specs: dict[str, dict]) -> str:
    """Which of CLASSES a key that `fn`'s schema lacks falls into (`given`: the keys of that call)."""
    own = set((specs.get(fn) or {}).get("properties") or {})
    others = {p for name, schema in specs.items() if name != fn for p in (schema.get("properties") or {})}
    if key in SCHEMA_WORDS:
        return "schema word"
    if key in others:
        return "another tool's parameter"
    if near_miss(key, own - given):
        return "near miss"
    return "invented"


def unknown_keys(item, reply: dict) -> list[tuple[int, str, str]]:
    """(index of the call, key, class) for every key a call gives that its function's schema lacks. Calls to a
    function the prompt does not offer are left to `unknown_tool` and not counted here."""
    specs = spec_index(item.functions)
    out = []
    for index, call in enumerate(reply.get("calls") or []):
        fn, args = call.get("name"), call.get("arguments")
        if fn not in specs or not isinstance(args, dict):
            continue
        own = set((specs[fn] or {}).get("properties") or {})
        for key in args:
            if key not in own:
                out.append((index, key, classify(key, fn, set(args), specs)))
    return out


def right_without(item, reply: dict, keys: list[tuple[int, str, str]]) -> bool:
    """Would the reply be right with those keys dropped?"""
    return cost_of(item, reply, [(index, key) for index, key, _ in keys])


def count_suite(items, replies: dict[str, dict], examples: int = 3) -> dict:
    """{"replies", "keys", "replies_with", "cost", "by_class": {class: keys}, "shown": {class: [...]}} for one
    suite's items (nanoagent.suites.EvalItem) against a result's replies by item id."""
    scored = keys_total = with_any = cost = 0
    by_class: Counter = Counter()
    shown: dict[str, list[str]] = {c: [] for c in CLASSES}
    for item in items:
        reply = replies.get(item.id)
        if reply is None:
            continue
        scored += 1
        keys = unknown_keys(item, reply)
        if not keys:
            continue
        with_any += 1
        keys_total += len(keys)
        calls = reply.get("calls") or []
        for index, key, cls in keys:
            by_class[cls] += 1
            own = ", ".join((spec_index(item.functions).get(calls[index]["name"]) or {}).get("properties") or {})
            line = f"{item.id}: {calls[index]['name']}({key}=...) has ({own})"
            if len(shown[cls]) < examples and line not in shown[cls]:
                shown[cls].append(line)
        if not reply.get("correct") and right_without(item, reply, keys):
            cost += 1
    return {"replies": scored, "keys": keys_total, "replies_with": with_any, "cost": cost,
            "by_class": {c: by_class[c] for c in CLASSES}, "shown": {c: v for c, v in shown.items() if v}}


def print_suite(suite: str, t: dict) -> None:
    print(f"  {suite}: {t['keys']} argument names the function lacks, in {t['replies_with']} of "
          f"{t['replies']} replies; replies wrong only for them: {t['cost']}")
    for cls, n in t["by_class"].items():
        print(f"      {cls:26s} {n}")
        for line in t["shown"].get(cls, []):
            print(f"          {line}")


def main(argv=None) -> int:
    return per_suite_main(argv, "python -m eval.argument_names", __doc__, count_suite,
                          "examples shown per class and suite", print_suite)


if __name__ == "__main__":
    sys.exit(main())
