"""How runs fill the array-of-enum arguments of BFCL's calling suites ("amenities": ["Patio"]): per argument, right,
left out of a call of its function, the right options in another spelling ("patio"), the right ones plus others
(every option of the enum, often), another value, or no call of that function; and per item, how many are right.

    python train/results/quality-cpu-choices-seed2/choice_items.py RUN.json[,MORE.json] [RUN...] \
        > train/results/quality-cpu-choices-seed2/choice_items.json

Each argument is one run: comma-joined files are its per-suite files (one label, each suite once). An answer argument
counts when its parameter is an array whose items have an enum and its first accepted value is a non-empty list.
Prints JSON: per run the argument totals, the items right of those holding such an argument, and every argument's
outcome.
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


def _key(option) -> str:
    return str(option).lower().replace("_", " ").replace("-", " ")


def answer_arguments(keep) -> list[tuple[str, str, str, str, list]]:
    """(suite, item id, function, parameter, accepted values) for every answer argument of the calling suites whose
    parameter schema and accepted values pass `keep(spec, golds)`."""
    out = []
    for suite in SUITES:
        for item in load_suite(suite)[0]:
            props = {t["function"]["name"]: t["function"]["parameters"].get("properties", {}) for t in item.tools}
            for answer in item.answers:
                for fn, args in answer.items():
                    for name, golds in args.items():
                        if golds and keep(props.get(fn, {}).get(name, {}), golds):
                            out.append((suite, item.id, fn, name, golds))
    return out


def targets() -> list[tuple[str, str, str, str, list]]:
    """Every array-of-enum argument in the answers."""
    return answer_arguments(lambda spec, golds: spec.get("type") == "array" and "enum" in (spec.get("items") or {})
                            and isinstance(golds[0], list) and bool(golds[0]))


def outcome_of(got: dict, fn: str, name: str, golds: list) -> tuple[str, list]:
    calls = [c for c in got.get("calls") or [] if c.get("name") == fn and isinstance(c.get("arguments"), dict)]
    if calls and all(name not in c["arguments"] for c in calls):
        return "left out", []
    outcome, values = argument_outcome(got, fn, name, golds, "other spelling",
                                       lambda v, g: isinstance(v, list) and sorted(map(_key, v)) == sorted(map(_key, g)))
    if outcome == "other value" and any(isinstance(v, list) and {_key(x) for x in golds[0]} < {_key(x) for x in v}
                                        for v in values):
        return "more options", values
    return outcome, values


def tally(runs: list[str], wanted: list[tuple[str, str, str, str, list]], outcome_of) -> dict:
    """Per run (comma-joined per-suite files): the outcome totals of the `wanted` arguments, the items right of those
    holding one, and every argument's outcome (`outcome_of(reply, function, parameter, accepted) -> (outcome,
    values)`)."""
    items = sorted({item_id for _, item_id, *_ in wanted})
    report = {"arguments": len(wanted), "items": len(items), "runs": {}}
    for files in runs:
        run, totals, outcomes = load_run(files), {}, []
        for suite, item_id, fn, name, golds in wanted:
            got = run.get(item_id)
            if got is None:
                continue
            outcome, values = outcome_of(got, fn, name, golds)
            totals[outcome] = totals.get(outcome, 0) + 1
            outcomes.append({"id": item_id, "function": fn, "parameter": name, "gold": golds[0], "outcome": outcome,
                             "values": values})
        right = sum(run[i]["correct"] for i in items if i in run)
        report["runs"][files] = {"totals": totals, "items_right": right, "per_argument": outcomes}
    return report


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    print(json.dumps(tally(sys.argv[1:], targets(), outcome_of), indent=1, ensure_ascii=False))
