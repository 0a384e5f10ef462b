"""How many calls a model made against how many each BFCL item asks for: `python -m eval.call_counts RESULT.json`.

    python -m eval.call_counts eval/results/quality/toolcall_quality-gpu-q8_0-whole.json --suites parallel
    python -m eval.call_counts A.json B.json --suites parallel,parallel_multiple --json

The parallel suites fail most often on the count (`wrong_count`), and a suite's accuracy does not say whether a model
over- or under-counts. For every item of the chosen suites this reads the number of expected calls from BFCL's
possible answers (the bfcl-eval wheel, nanoagent.bfcl_data) and the number the model made from the result file, and
prints one table per file and suite: rows are the expected count, columns the calls made ("-" when the reply held no
parsable call), with the share of items whose count was right, over and under. A run may come as one file per
suite under one label (scripts/cpu_arm.sh writes them so); a chosen suite that none of a label's files holds is named
once at the end.

It also counts one value failure: of the schema-valid replies with the right count but a wrong value, those where two
calls of a function share a value that only one of its expected calls accepts ("carried": the request changed the
value between calls, the model kept one call's); and of the replies with too many calls, those where a call repeats
an earlier call of the same reply exactly ("repeated": the model wrote a call again instead of ending the reply).

And it splits each suite's items by shape, the calls each function is asked for (sorted: (1, 1, 2) is three
functions, one of them called twice): items, right, count right, and "functions right", the reply calling each expected
function exactly as often as asked (whatever its arguments).

Left out: suites without shipped answers (irrelevance, live_irrelevance: no call expected) and the validation split.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys

from eval.compare import CompareError, read_runs
from nanoagent.bfcl_data import BFCLDataMissing, load
from nanoagent.checker import value_matches
from nanoagent.config import HelpFormatter

MULTI_CALL_SUITES = ("parallel", "parallel_multiple")


def expected_answers(suite: str) -> dict[str, list]:
    """Item id -> BFCL's possible answer: one {function: {argument: [accepted values]}} per expected call."""
    return {item.id: item.answers for item in load(suite) if item.answers}


def expected_counts(suite: str) -> dict[str, int]:
    """Item id -> number of calls BFCL's possible answer holds."""
    return {k: len(v) for k, v in expected_answers(suite).items()}


def carried(calls: list[dict], answer: list[dict]) -> bool:
    """Whether two calls of one function give an argument values that only the same one of that function's expected
    calls accepts (the request changed the value between calls; the model kept one call's). Values are compared as
    BFCL's checker does (nanoagent.checker.value_matches), and order-free, as its parallel check is."""
    for name in {next(iter(c)) for c in answer}:
        expected = [next(iter(c.values())) for c in answer if next(iter(c)) == name]
        owners = collections.Counter()  # (argument, index of the one expected call that accepts the value) -> calls
        for call in calls:
            if call.get("name") != name:
                continue
            for arg, value in (call.get("arguments") or {}).items():
                accepting = [k for k, e in enumerate(expected) if any(value_matches(value, a) for a in e.get(arg, []))]
                if len(accepting) == 1:
                    owners[(arg, accepting[0])] += 1
        if any(n >= 2 for n in owners.values()):
            return True
    return False


def carry_over(items: list[dict], answers: dict[str, list]) -> dict:
    """{"n": schema-valid, count-right, wrong replies, "carried": those of them that `carried` flags}."""
    wrong = [i for i in items if i["id"] in answers and i.get("valid") and not i.get("correct")
             and len(i.get("calls") or []) == len(answers[i["id"]])]
    return {"n": len(wrong), "carried": sum(carried(i["calls"], answers[i["id"]]) for i in wrong)}


def repeats(items: list[dict], expected: dict[str, int]) -> dict:
    """{"over": replies with more calls than expected, "repeated": those of them in which a call repeats an earlier
    call of the reply, name and arguments alike}."""
    over = [i for i in items if i["id"] in expected and len(i.get("calls") or []) > expected[i["id"]]]
    keys = [[json.dumps(c, sort_keys=True) for c in i["calls"]] for i in over]
    return {"over": len(over), "repeated": sum(len(set(k)) < len(k) for k in keys)}


def count_table(items: list[dict], expected: dict[str, int]) -> dict:
    """{"cells": {expected: {made: n}}, "right"/"over"/"under"/"no_call": shares, "n": items counted}."""
    cells: dict[int, collections.Counter] = collections.defaultdict(collections.Counter)
    tally = collections.Counter()
    for item in items:
        want = expected.get(item["id"])
        if want is None:
            continue
        made = len(item.get("calls") or [])
        cells[want]["-" if not made else made] += 1
        tally["no_call" if not made else "right" if made == want else "over" if made > want else "under"] += 1
    n = sum(tally.values())
    shares = {k: tally[k] / n if n else 0.0 for k in ("right", "over", "under", "no_call")}
    return {"n": n, **shares, "cells": {str(k): dict(v) for k, v in sorted(cells.items())}}


def shape_table(items: list[dict], answers: dict[str, list]) -> dict[str, dict]:
    """Expected shape -> {"n", "right", "count_right", "functions_right"}: items of that shape, replies right, with
    the expected number of calls, and calling each expected function exactly as often as expected."""
    rows: dict[tuple, collections.Counter] = collections.defaultdict(collections.Counter)
    for item in items:
        answer = answers.get(item["id"])
        if answer is None:
            continue
        want = collections.Counter(next(iter(c)) for c in answer)
        made = collections.Counter(c.get("name") for c in item.get("calls") or [])
        row = rows[tuple(sorted(want.values()))]  # (1, 1, 2): three functions, one of them called twice
        row["n"] += 1
        row["right"] += bool(item.get("correct"))
        row["count_right"] += sum(made.values()) == sum(want.values())
        row["functions_right"] += made == want
    order = sorted(rows, key=lambda k: (-rows[k]["n"], k))
    return {str(k): {f: rows[k][f] for f in ("n", "right", "count_right", "functions_right")} for k in order}


def render_shapes(table: dict[str, dict]) -> str:
    lines = ["| expected shape | items | right | count right | functions right |", "|---|---|---|---|---|"]
    lines += [f"| {k} | {v['n']} | {v['right']} | {v['count_right']} | {v['functions_right']} |"
              for k, v in table.items()]
    return "\n".join(lines)


def render(label: str, suite: str, table: dict, carry: dict | None = None, repeat: dict | None = None) -> str:
    made = sorted({m for row in table["cells"].values() for m in row}, key=lambda m: (m == "-", str(m).zfill(3)))
    lines = [f"{label} / {suite}: {table['n']} items; count right {table['right']:.1%}, over {table['over']:.1%}, "
             f"under {table['under']:.1%}, no parsable call {table['no_call']:.1%}",
             "| expected \\ made | " + " | ".join(str(m) for m in made) + " |",
             "|---" * (len(made) + 1) + "|"]
    for want, row in table["cells"].items():
        lines.append(f"| {want} | " + " | ".join(str(row.get(m, 0)) for m in made) + " |")
    if carry is not None:
        lines.append(f"count right, schema-valid but wrong: {carry['n']}; two calls share a value only one expected "
                     f"call accepts (carried): {carry['carried']}")
    if repeat is not None:
        lines.append(f"too many calls: {repeat['over']}; a call repeats an earlier one exactly (repeated): "
                     f"{repeat['repeated']}")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.call_counts", description=__doc__.split("\n")[0],
                                 formatter_class=HelpFormatter)
    ap.add_argument("results", nargs="+", help="eval.toolcall result JSON files")
    ap.add_argument("--suites", default=",".join(MULTI_CALL_SUITES), help="comma-separated BFCL suites")
    ap.add_argument("--json", action="store_true", help="print the tables as JSON")
    args = ap.parse_args(argv)
    suites = [s for s in args.suites.split(",") if s]
    try:
        runs = read_runs(args.results)  # a run scored suite by suite (scripts/cpu_arm.sh) is one run
        answers = {s: expected_answers(s) for s in suites}
    except (CompareError, BFCLDataMissing) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    out, text, absent = {}, [], []
    for run in runs:
        label = run["label"]
        for suite in suites:
            if suite not in run["suites"]:
                absent.append(f"{label} / {suite}: in none of its files ({', '.join(run['paths'])})")
                continue
            items = run["suites"][suite]["items"]
            counts = {k: len(v) for k, v in answers[suite].items()}
            table = count_table(items, counts)
            carry, repeat = carry_over(items, answers[suite]), repeats(items, counts)
            shapes = shape_table(items, answers[suite])
            out.setdefault(label, {})[suite] = {**table, "carry_over": carry, "repeats": repeat, "shapes": shapes}
            text.append(render(label, suite, table, carry, repeat) + "\n\n" + render_shapes(shapes))
    if args.json:  # the JSON stays parseable; what it lacks is said on stderr
        print(json.dumps(out, indent=2))
        if absent:
            print("\n".join(absent), file=sys.stderr)
    else:
        print("\n\n".join(text + absent))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
