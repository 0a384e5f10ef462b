"""How runs copy the whole numbers of 100 or more that BFCL's calling suites' answers carry, split into round ones
(two or more trailing zeros: 5000, 2000000) and the rest: per argument, right, a zero dropped or added (500 for
5000), another value, or no call of that function.

    python train/results/quality-cpu-round-seed2/round_numbers.py CONTROL.json[,MORE.json] ARM.json[,MORE.json] \
        > train/results/quality-cpu-round-seed2/round_numbers.json

Each argument is one run: comma-joined files are its per-suite files (one label, each suite once). An argument is
right when some call of its function carries one of the accepted values (with several calls of one tool, any);
"zeros" when none does and some call's value is an accepted one times 10**k (k = 1..9 either way). Prints JSON with
per-run totals and every argument's outcome.
"""

import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "quality-cpu-citystate"))
from location_items import load_run  # noqa: E402  (one run's items by id from its per-suite files)

from nanoagent.suites import load_suite  # noqa: E402

SUITES = ("simple_python", "multiple", "parallel", "parallel_multiple", "live_simple")


def whole(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and abs(x) >= 100 and x == int(x)


def is_round(x) -> bool:
    digits = str(int(abs(x)))
    return len(digits) - len(digits.rstrip("0")) >= 2


def zeros_apart(value, gold) -> bool:
    if not (isinstance(value, (int, float)) and not isinstance(value, bool)) or value == 0 or value == gold:
        return False
    k = math.log10(abs(value / gold))
    return (value > 0) == (gold > 0) and abs(k - round(k)) < 1e-9 and 1 <= abs(round(k)) <= 9


def argument_outcome(got: dict, fn: str, name: str, golds: list, miss: str, missed) -> tuple[str, list]:
    """(outcome, values) of one answer argument in one reply: "no call" of `fn`, "right" when some call carries an
    accepted value, `miss` when none does and `missed(value, first accepted)` holds for one, else "other value"."""
    values = [c["arguments"].get(name) for c in got.get("calls") or []
              if c.get("name") == fn and isinstance(c.get("arguments"), dict)]
    if not values:
        return "no call", values
    if any(v in golds for v in values):
        return "right", values
    if any(missed(v, golds[0]) for v in values):
        return miss, values
    return "other value", values


def targets() -> list[tuple[str, int, str, str, list]]:
    """(item id, answer index, function, parameter, accepted values) for every answer argument whose first accepted
    value is a whole number of 100 or more."""
    out = []
    for suite in SUITES:
        for item in load_suite(suite)[0]:
            for i, answer in enumerate(item.answers):
                for fn, args in answer.items():
                    for name, golds in args.items():
                        if golds and whole(golds[0]):
                            out.append((item.id, i, fn, name, golds))
    return out


def main(runs: list[str]) -> dict:
    wanted = targets()
    report = {"arguments": len(wanted), "round": sum(is_round(g[0]) for *_, g in wanted), "runs": {}}
    for files in runs:
        run, outcomes = load_run(files), []
        totals = {"round": {}, "other": {}}
        for item_id, i, fn, name, golds in wanted:
            got = run.get(item_id)
            if got is None:
                continue
            outcome, values = argument_outcome(got, fn, name, golds, "zeros", zeros_apart)
            group = "round" if is_round(golds[0]) else "other"
            totals[group][outcome] = totals[group].get(outcome, 0) + 1
            outcomes.append({"id": item_id, "answer": i, "function": fn, "parameter": name, "gold": golds[0],
                             "group": group, "outcome": outcome, "values": values})
        report["runs"][files] = {"totals": totals, "per_argument": outcomes}
    return report


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    print(json.dumps(main(sys.argv[1:]), indent=1, ensure_ascii=False))
