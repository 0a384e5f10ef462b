"""How runs give the rates that BFCL's calling suites' answers carry as a fraction ("5%" -> 0.05): per argument,
right, the percent instead (5 for 0.05), another value, or no call of that function.

    python train/results/quality-cpu-order-seed2/rates.py RUN.json[,MORE.json] [RUN...] \
        > train/results/quality-cpu-order-seed2/rates.json

Each argument is one run: comma-joined files are its per-suite files (one label, each suite once). An answer argument
counts when its name holds "rate" and its first accepted value is a number strictly between -1 and 1 (not 0). It is
right when some call of its function carries an accepted value; "percent" when none does and one carries 100 times
the first. Prints JSON: per run the totals, by suite, and every argument's outcome.
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "quality-cpu-citystate"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "quality-cpu-round-seed2"))
from location_items import load_run  # noqa: E402  (one run's items by id from its per-suite files)
from round_numbers import argument_outcome  # noqa: E402  (no call / right / the named miss / another value)

from nanoagent.suites import load_suite  # noqa: E402

SUITES = ("simple_python", "multiple", "parallel", "parallel_multiple", "live_simple")


def fraction(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and 0 < abs(x) < 1


def as_percent(value, gold) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value - 100 * gold) < 1e-6


def targets() -> list[tuple[str, str, str, str, list]]:
    """(suite, item id, function, parameter, accepted values) for every fractional rate in the answers."""
    return [(suite, item.id, fn, name, golds)
            for suite in SUITES for item in load_suite(suite)[0] for answer in item.answers
            for fn, args in answer.items() for name, golds in args.items()
            if "rate" in name.lower() and golds and fraction(golds[0])]


def main(runs: list[str]) -> dict:
    wanted = targets()
    report = {"arguments": len(wanted), "runs": {}}
    for files in runs:
        run, totals, by_suite, outcomes = load_run(files), {}, {}, []
        for suite, item_id, fn, name, golds in wanted:
            got = run.get(item_id)
            if got is None:
                continue
            outcome, values = argument_outcome(got, fn, name, golds, "percent", as_percent)
            totals[outcome] = totals.get(outcome, 0) + 1
            cell = by_suite.setdefault(suite, {})
            cell[outcome] = cell.get(outcome, 0) + 1
            outcomes.append({"id": item_id, "function": fn, "parameter": name, "gold": golds[0], "outcome": outcome,
                             "values": values})
        report["runs"][files] = {"totals": totals, "by_suite": by_suite, "per_argument": outcomes}
    return report


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    print(json.dumps(main(sys.argv[1:]), indent=1, ensure_ascii=False))
