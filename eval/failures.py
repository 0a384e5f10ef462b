"""Where replies fail first: each item's verdict from eval.toolcall, grouped by stage, for runs side by side.

    python -m eval.failures eval/results/quality/toolcall_quality-cpu-b46-seed2-q8_0-parallel_multiple.json \\
        eval/results/quality/toolcall_quality-cpu-settings-seed2-q8_0-parallel_multiple.json
    python -m eval.failures A_simple.json,A_multiple.json B_simple.json,B_multiple.json --suites multiple --json

Accuracy says how many replies were right, not where the others went wrong, and a data change often moves one
stage: a model that loops to the token cap more, declines less, or picks the wrong function. nanoagent/scoring.py
gives every item one `kind`: the parser's for a reply it cannot read, else the checker's first failure (with
"+bad_arguments" when a wrong reply also breaks the offered JSON Schema). This counts them per suite in this order:

    right                   the checker accepts the reply
    declined                no call where one was due (no_call)
    called                  a call where none was due (irrelevance suites: called_irrelevant)
    no parsable call        cut at the token cap with a call open; a call tag left open otherwise; not JSON;
                            a tool name that is not offered
    wrong number of calls   wrong_count
    wrong function          the right number of calls, but an expected function has none (wrong_name)
    argument names          a required argument left out; an argument not expected (the function lacks it, or
                            BFCL's answer has no place for it: an optional one nobody asked for)
    argument values         wrong_type; wrong_value; an optional argument the answer needs left out

(the checker's own order: a reply with the wrong count is never asked which function it missed), and under it how
many replies broke the offered JSON Schema, right or wrong (a right one keeps kind "ok"). Each argument is one run
(files with the same label are one run scored suite by suite, as in eval.compare); a run lacking a suite shows "-".
Left out: why a value was wrong (eval.values), which names were made up (eval.argument_names), the counts
themselves (eval.call_counts).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter

from eval.compare import CompareError, read_arm

SCHEMA = "+bad_arguments"
# (row label, the kinds it counts); "unclosed_tag" is split by whether the reply ran to the token cap
STAGES = [
    ("right", ("ok",)),
    ("declined", ("no_call",)),
    ("called where none was due", ("called_irrelevant",)),
    ("no parsable call: cut at the token cap", ("unclosed_tag@length",)),
    ("no parsable call: call tag left open", ("unclosed_tag",)),
    ("no parsable call: not JSON", ("not_json",)),
    ("no parsable call: tool not offered", ("unknown_tool",)),
    ("wrong number of calls", ("wrong_count",)),
    ("right count, an expected function not called", ("wrong_name",)),
    ("argument names: required one left out", ("missing_required",)),
    ("argument names: one not expected (the function lacks it, or the answer has no place for it)",
     ("unexpected_argument",)),
    ("argument values: wrong type", ("wrong_type",)),
    ("argument values: wrong value", ("wrong_value",)),
    ("argument values: an optional one the answer needs left out", ("missing_argument",)),
]
KNOWN = {k for _, kinds in STAGES for k in kinds}


def stage_of(item: dict) -> str:
    """The kind an item is counted under: its kind without the schema suffix, unclosed tags split by the cap."""
    kind = str(item.get("kind") or ("ok" if item.get("correct") else "unknown")).removesuffix(SCHEMA)
    if kind == "unclosed_tag" and item.get("finish_reason") == "length":
        return "unclosed_tag@length"
    return kind


def count_suite(items: list[dict]) -> dict:
    """{"n", "kinds": {kind: count}, "schema_invalid": replies whose calls break the offered schema, right or not}."""
    return {"n": len(items), "kinds": dict(Counter(stage_of(i) for i in items)),
            "schema_invalid": sum("schema_error" in i or str(i.get("kind", "")).endswith(SCHEMA) for i in items)}


def count_runs(runs: list[dict], suites: list[str] | None = None) -> dict:
    """{suite: {label: count_suite(...) or None}} for the suites any run holds (or those asked for)."""
    names = suites or list(dict.fromkeys(s for r in runs for s in r["suites"]))
    unknown = [s for s in names if not any(s in r["suites"] for r in runs)]
    if unknown:
        raise CompareError(f"no run holds suite(s) {', '.join(unknown)}: "
                           + "; ".join(f"{r['label']} has {sorted(r['suites'])}" for r in runs))
    return {s: {r["label"]: count_suite(r["suites"][s]["items"]) if s in r["suites"] else None for r in runs}
            for s in names}


def render(suite: str, counts: dict) -> str:
    labels = list(counts)
    head = [x if counts[x] is None else f"{x} (n={counts[x]['n']})" for x in labels]
    lines = [f"{suite}: replies by the stage where they first fail (count, % of the run's items)",
             "| stage | " + " | ".join(head) + " |", "|---" * (len(labels) + 1) + "|"]

    def cell(c: dict | None, kinds) -> str:
        if c is None:
            return "-"
        n = sum(c["kinds"].get(k, 0) for k in kinds)
        return f"{n} ({100 * n / c['n']:.1f}%)" if c["n"] else "0"

    rows = list(STAGES)
    other = sorted({k for c in counts.values() if c for k in c["kinds"]} - KNOWN)
    rows += [(f"other: {k}", (k,)) for k in other]
    for label, kinds in rows:
        if all(c is None or not sum(c["kinds"].get(k, 0) for k in kinds) for c in counts.values()):
            continue  # a stage no run reached (e.g. "called" outside the irrelevance suites)
        lines.append(f"| {label} | " + " | ".join(cell(counts[x], kinds) for x in labels) + " |")
    lines.append("| (breaks the offered schema, right or wrong) | "
                 + " | ".join("-" if counts[x] is None else str(counts[x]["schema_invalid"]) for x in labels) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.failures", description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="+", help="eval.toolcall result files, one argument per run (comma-join the "
                                            "files of a run scored suite by suite)")
    ap.add_argument("--suites", help="comma-separated suites (default: every suite any run holds)")
    ap.add_argument("--json", action="store_true", help="print the counts as JSON")
    args = ap.parse_args(argv)
    try:
        runs = [run for spec in args.runs for run in read_arm(spec)]
        labels = [r["label"] for r in runs]
        twice = sorted({x for x in labels if labels.count(x) > 1})
        if twice:
            raise CompareError(f"two arguments hold the same run ({', '.join(twice)}): comma-join the files of one "
                               "run into one argument")
        counts = count_runs(runs, [s.strip() for s in (args.suites or "").split(",") if s.strip()] or None)
    except CompareError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(json.dumps(counts, indent=2) if args.json else "\n\n".join(render(s, c) for s, c in counts.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
