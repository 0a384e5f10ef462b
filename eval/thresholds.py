"""What call thresholds would have made of finished runs, read from the first-token call probability each result
stores: `python -m eval.thresholds RESULT.json ... --thresholds 0.3,0.4,0.5`.

    python -m eval.thresholds eval/results/quality/toolcall_quality-cpu-choices-seed2-q8_0-*.json
    python -m eval.thresholds A.json B.json --thresholds 0.5,0.705 --json

A call threshold (nanoagent/call_threshold.py, applied by `nanoagent run` and `serve`) declines a reply whose first
token gives the call opening less than the threshold's probability; every other reply decodes as without it. So a
run generated without a threshold holds everything needed: per suite, this scores each item below the threshold as a
reply with no call (nanoagent.scoring.at_threshold) and keeps every other outcome. The figures are exact, not
estimates, for any threshold. Greedy decoding itself calls whenever the call opening is the most likely first
token, which can be at a probability of 0.25 when the text answers spread the rest over many first tokens.

Prints one table per file (rows: suites; columns: no threshold, then each threshold), or JSON with --json.
Left out: replies without a stored `p_call` (a backend that does not report it): such a suite is skipped and named.
"""

from __future__ import annotations

import argparse
import json
import sys

from eval.compare import CompareError, read_result
from nanoagent.config import HelpFormatter
from nanoagent.scoring import at_threshold
from nanoagent.suites import SuiteError, load_suite


def suite_at(suite: str, outcomes: list[dict], thresholds: list[float]) -> dict:
    """{"n", "none": accuracy as run, "at": {threshold: accuracy}} for one suite's outcomes (percent, one decimal)."""
    by_id = {item.id: item for item in load_suite(suite)[0]}
    kept = [o for o in outcomes if o["id"] in by_id]
    if len(kept) < len(outcomes):
        raise SuiteError(f"{len(outcomes) - len(kept)} of the result's {suite} items are not in the suite as it "
                         "loads now; score the run again with this version of the suite")
    items = [by_id[o["id"]] for o in kept]
    out = {"n": len(kept), "none": round(100 * sum(o["correct"] for o in kept) / len(kept), 1), "at": {}}
    for t in thresholds:
        view = at_threshold(items, kept, t)
        if view is None:
            return {**out, "at": None, "note": "some replies have no p_call"}
        out["at"][t] = round(100 * sum(o["correct"] for o in view) / len(view), 1)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.thresholds", description=__doc__.split("\n\n")[0],
                                 formatter_class=HelpFormatter)
    ap.add_argument("results", nargs="+", help="eval.toolcall result JSON files")
    ap.add_argument("--thresholds", default="0.3,0.4,0.5", help="comma-separated, each in (0, 1) (default %(default)s)")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args(argv)
    try:
        thresholds = [float(t) for t in args.thresholds.split(",") if t.strip()]
    except ValueError:
        ap.error(f"--thresholds {args.thresholds!r}: give numbers between 0 and 1, e.g. 0.3,0.5")
    if not thresholds or not all(0 < t < 1 for t in thresholds):
        ap.error(f"--thresholds {args.thresholds!r}: give numbers between 0 and 1, e.g. 0.3,0.5")
    report = {}
    for path in args.results:
        try:
            run = read_result(path)
            report[path] = {"label": run.get("label"), "suites": {
                name: suite_at(name, s["items"], thresholds) for name, s in run["suites"].items() if s.get("items")}}
        except (CompareError, SuiteError) as e:
            print(f"error: {path}: {e}", file=sys.stderr)
            return 2
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    for path, run in report.items():
        print(f"\n{run['label']} ({path})")
        print("| suite | n | as run | " + " | ".join(f"P(call) >= {t:g}" for t in thresholds) + " |")
        print("|---|---|---|" + "---|" * len(thresholds))
        for name, s in run["suites"].items():
            cells = [f"{s['at'][t]:.1f}" for t in thresholds] if s["at"] is not None else [s["note"]] * len(thresholds)
            print(f"| {name} | {s['n']} | {s['none']:.1f} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
