"""Optional arguments: does the model give the ones the request states, and leave out the ones it does not?
`python -m eval.optional_args RESULT.json ...`

    python -m eval.optional_args eval/results/quality/toolcall_quality-cpu-b33-q8_0-whole.json
    python -m eval.optional_args A.json B.json --suites simple_python,multiple --examples 5 --json

BFCL marks an optional argument the request leaves out by accepting '' for it; where the possible answers accept no
'' for an argument the schema does not require, the request states it ("a radius of 4 inches" -> unit='inches', "with
details" -> details=True). For every such argument of the chosen suites this counts the replies that call the
expected function (its n-th call for the n-th expected call of that function) and, of those, the ones that give the
argument at all, right value or not. The figures are given per suite and per the argument's BFCL type, with the
arguments left out most often as examples. A reply that leaves one out fails the item (`missing_argument`), so this
shows how much of a suite's loss comes from under-filling rather than from wrong values (eval.values).

The other side, over-filling: an optional argument the reply gives where the answers accept '' (the request may
leave it out) but not the value given, or that the answers do not name at all (`"unit": "seconds"` on a command
runner, `"genre": "Drama"` where any genre will do). These are counted per suite with the items they alone cost:
replies that would be right with those arguments dropped.

Left out: suites without expected calls (irrelevance, live_irrelevance) and the validation split.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict

from eval.compare import CompareError, read_result
from nanoagent.checker import OMITTABLE, check_calls, spec_index, stated_optional, value_matches
from nanoagent.config import HelpFormatter
from nanoagent.suites import SuiteError, load_suite


def overfilled(item, reply: dict) -> list[tuple[int, str]]:
    """(index of the reply's call, argument) for each optional argument of the spec that a call gives and the
    request did not ask for with that value: every expected call of that function accepts '' for it or does not
    name it, and none takes the value given. Read against all expected calls of the function at once, so a parallel
    reply's call order does not matter; keys the spec lacks are not counted (made-up arguments are another error)."""
    specs = spec_index(item.functions)
    expected: dict[str, list[dict]] = {}
    for answer in item.answers:
        (fn, accepted), = answer.items()
        expected.setdefault(fn, []).append(accepted)
    out = []
    for index, call in enumerate(reply.get("calls") or []):
        fn, args = call.get("name"), call.get("arguments")
        if fn not in expected or not isinstance(args, dict):
            continue
        params = specs.get(fn) or {}
        required, optional = set(params.get("required") or []), set(params.get("properties") or {})
        for key, value in args.items():
            if key in required or key not in optional:
                continue
            if any(key in accepted and OMITTABLE not in accepted[key] for accepted in expected[fn]):
                continue  # some expected call needs it: a wrong value there is not over-filling
            if not any(value_matches(value, a) for accepted in expected[fn] for a in accepted.get(key, [])):
                out.append((index, key))
    return out


def cost_of(item, reply: dict, extra: list[tuple[int, str]]) -> bool:
    """Would the reply be right with those arguments dropped? (It is wrong as it stands.)"""
    dropped = set(extra)
    calls = [dict(c, arguments={k: v for k, v in c["arguments"].items() if (i, k) not in dropped})
             if isinstance(c.get("arguments"), dict) else c for i, c in enumerate(reply.get("calls") or [])]
    return check_calls(calls, item.answers, item.functions).correct


def count_suite(items, replies: dict[str, dict], examples: int = 3) -> dict:
    """{"needed", "called", "given", "by_type": {type: [called, given]}, "left_out": [...]} for one suite's items
    (nanoagent.suites.EvalItem) against a result's replies by item id."""
    needed = called = given = 0
    by_type: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    missed: Counter = Counter()
    shown: list[str] = []
    over = over_replies = over_cost = 0
    over_by: Counter = Counter()
    over_shown: list[str] = []
    for item in items:
        reply = replies.get(item.id)
        if reply is None:
            continue
        extra = overfilled(item, reply)
        if extra:
            over += len(extra)
            over_replies += 1
            calls = reply.get("calls") or []
            for i, key in extra:
                over_by[f"{calls[i].get('name')}.{key}"] += 1
            if not reply.get("correct") and cost_of(item, reply, extra):
                over_cost += 1
                if len(over_shown) < examples:
                    unasked = ", ".join(f"{k}={json.dumps(calls[i]['arguments'][k], ensure_ascii=False)}"
                                        for i, k in extra)
                    over_shown.append(f"{item.id}: {unasked} given unasked")
        functions = {f.get("name"): f for f in item.functions}
        seen: Counter = Counter()
        for answer in item.answers:
            fn, wanted = stated_optional(answer, functions)
            nth = seen[fn]
            seen[fn] += 1
            if not wanted:
                continue
            needed += len(wanted)
            calls = [c for c in reply.get("calls") or [] if c.get("name") == fn]
            if nth >= len(calls):
                continue
            args = calls[nth].get("arguments") or {}
            for key, kind in wanted.items():
                called += 1
                by_type[kind][0] += 1
                if key in args:
                    given += 1
                    by_type[kind][1] += 1
                else:
                    missed[f"{fn}.{key}"] += 1
                    if len(shown) < examples:
                        prompt = " ".join(m.get("content") or "" for m in item.messages if m.get("role") == "user")
                        shown.append(f"{item.id}: {key} ({kind}) left out of: {prompt[:120]}")
    return {"needed": needed, "called": called, "given": given,
            "by_type": {k: v for k, v in sorted(by_type.items(), key=lambda kv: -kv[1][0])},
            "left_out": shown, "most_left_out": missed.most_common(examples),
            "overfilled": over, "overfilled_replies": over_replies, "overfilled_cost": over_cost,
            "most_overfilled": over_by.most_common(examples), "overfilled_shown": over_shown}


def calling_suites(result: dict, suites: list[str] | None = None, unloadable: list | None = None):
    """(suite, items, replies by id) for every suite of a result that expects calls (and is in `suites`, if given);
    a suite this checkout cannot load is left out and, with `unloadable`, named there with the reason."""
    for suite, data in result.get("suites", {}).items():
        if suites and suite not in suites:
            continue
        try:
            items = load_suite(suite)[0]
        except SuiteError as e:
            if unloadable is not None:
                unloadable.append(f"{suite}: {e}")
            continue
        if items and items[0].expect == "calls":
            yield suite, items, {r.get("id"): r for r in data.get("items", [])}


def count_result(result: dict, suites: list[str] | None = None, examples: int = 3, counter=None,
                 unloadable: list | None = None) -> dict:
    """{suite: counter(items, replies by id, examples)} for every suite of a result that expects calls (and is in
    `suites`, if given); `counter` is this module's count_suite unless another module's is given."""
    counter = counter or count_suite
    return {suite: counter(items, replies, examples)
            for suite, items, replies in calling_suites(result, suites, unloadable)}


def per_suite_main(argv, prog: str, doc: str, counter, examples_help: str, print_suite) -> int:
    """The command line that eval.optional_args and eval.argument_names share: result files in, `counter` run on
    each file's calling suites, then JSON or each suite's table printed by `print_suite(suite, table)`."""
    ap = argparse.ArgumentParser(prog=prog, description=doc.split("\n\n")[0], formatter_class=HelpFormatter)
    ap.add_argument("results", nargs="+", help="eval.toolcall result JSON files (eval/results/...)")
    ap.add_argument("--suites", help="comma-separated suites (default: every suite in each file that expects calls)")
    ap.add_argument("--examples", type=int, default=3, help=f"{examples_help} (default: 3)")
    ap.add_argument("--json", action="store_true", help="print the counts as JSON")
    args = ap.parse_args(argv)
    suites = [s.strip() for s in args.suites.split(",")] if args.suites else None
    tables, unloadable = {}, []
    for path in args.results:
        try:
            tables[path] = count_result(read_result(path), suites, args.examples, counter, unloadable)
        except CompareError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
    for line in unloadable:
        print(f"left out, not loadable here: {line}", file=sys.stderr)
    if args.json:
        print(json.dumps(tables, indent=2))
        return 0
    for path, table in tables.items():
        print(path)
        if not table:
            print("  no suite with expected calls among those asked for")
        for suite, t in table.items():
            print_suite(suite, t)
    return 0


def share(given: int, called: int) -> str:
    return f"{given}/{called} ({100 * given / called:.1f}%)" if called else "-"


def print_suite(suite: str, t: dict) -> None:
    print(f"  {suite}: {t['needed']} stated optional arguments; the expected function called for "
          f"{t['called']}; given {share(t['given'], t['called'])}")
    for kind, (n, g) in t["by_type"].items():
        print(f"      {kind:8s} given {share(g, n)}")
    for line in t["left_out"]:
        print(f"      {line}")
    print(f"    unasked optional arguments given with a value the answers do not take: {t['overfilled']} in "
          f"{t['overfilled_replies']} replies; replies wrong only for them: {t['overfilled_cost']}")
    for line in t["overfilled_shown"]:
        print(f"      {line}")


def main(argv=None) -> int:
    return per_suite_main(argv, "python -m eval.optional_args", __doc__, count_suite,
                          "arguments left out shown per suite", print_suite)


if __name__ == "__main__":
    sys.exit(main())
