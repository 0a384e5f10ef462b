"""How runs give the unit arguments of BFCL's calling suites ("unit": "inches" for "a radius of 4 inches"): per
argument, right, left out of a call of its function, another value, or no call of that function; and per item, how
many are right.

    python train/results/quality-cpu-choices-seed2/unit_items.py RUN.json[,MORE.json] [RUN...] \
        > train/results/quality-cpu-choices-seed2/unit_items.json

Each argument is one run: comma-joined files are its per-suite files (one label, each suite once). An answer argument
counts when its name is `unit` or `units` or ends in `_unit` and its first accepted value is a non-empty string.
Prints JSON: per run the argument totals, the items right of those holding such an argument, and every argument's
outcome.
"""

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "quality-cpu-citystate"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "quality-cpu-round-seed2"))
from location_items import load_run  # noqa: E402  (one run's items by id from its per-suite files)
from round_numbers import argument_outcome  # noqa: E402  (no call / right / the named miss / another value)

from nanoagent.suites import load_suite  # noqa: E402

SUITES = ("simple_python", "multiple", "parallel", "parallel_multiple", "live_simple")
UNIT = re.compile(r"^(?:units?|.*_unit)$", re.IGNORECASE)


def targets() -> list[tuple[str, str, str, str, list]]:
    """(suite, item id, function, parameter, accepted values) for every stated unit in the answers."""
    return [(suite, item.id, fn, name, golds)
            for suite in SUITES for item in load_suite(suite)[0] for answer in item.answers
            for fn, args in answer.items() for name, golds in args.items()
            if UNIT.match(name) and golds and isinstance(golds[0], str) and golds[0]]


def main(runs: list[str]) -> dict:
    wanted = targets()
    items = sorted({item_id for _, item_id, *_ in wanted})
    report = {"arguments": len(wanted), "items": len(items), "runs": {}}
    for files in runs:
        run, totals, outcomes = load_run(files), {}, []
        for suite, item_id, fn, name, golds in wanted:
            got = run.get(item_id)
            if got is None:
                continue
            outcome, values = argument_outcome(got, fn, name, golds, "left out", lambda v, g: v is None)
            totals[outcome] = totals.get(outcome, 0) + 1
            outcomes.append({"id": item_id, "function": fn, "parameter": name, "gold": golds[0], "outcome": outcome,
                             "values": values})
        right = sum(run[i]["correct"] for i in items if i in run)
        report["runs"][files] = {"totals": totals, "items_right": right, "per_argument": outcomes}
    return report


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    print(json.dumps(main(sys.argv[1:]), indent=1, ensure_ascii=False))
