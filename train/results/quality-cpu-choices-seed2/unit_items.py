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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from choice_items import tally  # noqa: E402  (per run: outcome totals, items right, every argument's outcome)
from round_numbers import argument_outcome  # noqa: E402  (choice_items puts its folder on the path)

from nanoagent.suites import load_suite  # noqa: E402

SUITES = ("simple_python", "multiple", "parallel", "parallel_multiple", "live_simple")
UNIT = re.compile(r"^(?:units?|.*_unit)$", re.IGNORECASE)


def targets() -> list[tuple[str, str, str, str, list]]:
    """(suite, item id, function, parameter, accepted values) for every stated unit in the answers."""
    return [(suite, item.id, fn, name, golds)
            for suite in SUITES for item in load_suite(suite)[0] for answer in item.answers
            for fn, args in answer.items() for name, golds in args.items()
            if UNIT.match(name) and golds and isinstance(golds[0], str) and golds[0]]


def outcome_of(got: dict, fn: str, name: str, golds: list) -> tuple[str, list]:
    return argument_outcome(got, fn, name, golds, "left out", lambda v, g: v is None)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    print(json.dumps(tally(sys.argv[1:], targets(), outcome_of), indent=1, ensure_ascii=False))
