"""How runs fill the enum arguments of BFCL's calling suites (`"cabin_class": "business"`, `"unit": "celsius"`): per
argument, right, left out of a call of its function, the right option in another spelling ("Business" for
"business", "gluten free" for "gluten_free"), another value, or no call of that function; and per item, how many are
right. The build said 85% of its enum values as the call carries them ("premium_economy") until session 44.

    python train/results/quality-cpu-phrasing-seed2/enum_items.py RUN.json[,MORE.json] [RUN...] \
        > train/results/quality-cpu-phrasing-seed2/enum_items.json

Each argument is one run: comma-joined files are its per-suite files. An answer argument counts when its parameter
is a string with an enum and its first accepted value is a non-empty string. "snake_case" counts the arguments whose
accepted value has an underscore, which a request never writes.
"""

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "quality-cpu-choices-seed2"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "quality-cpu-round-seed2"))
from choice_items import answer_arguments, tally  # noqa: E402  (answer arguments by schema; per-run outcomes)
from round_numbers import argument_outcome  # noqa: E402  (no call / right / the named miss / another value)


def _key(value) -> str:
    return re.sub(r"[\s_-]+", " ", str(value)).strip().lower()


def targets() -> list[tuple[str, str, str, str, list]]:
    """(suite, item id, function, parameter, accepted values) for every enum argument in the answers."""
    return answer_arguments(lambda spec, golds: spec.get("type") == "string" and bool(spec.get("enum"))
                            and isinstance(golds[0], str) and bool(golds[0]))


def outcome_of(got: dict, fn: str, name: str, golds: list) -> tuple[str, list]:
    calls = [c for c in got.get("calls") or [] if c.get("name") == fn and isinstance(c.get("arguments"), dict)]
    if calls and all(name not in c["arguments"] for c in calls):
        return "left out", []
    return argument_outcome(got, fn, name, golds, "other spelling",
                            lambda v, g: isinstance(v, str) and _key(v) == _key(g))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    wanted = targets()
    report = tally(sys.argv[1:], wanted, outcome_of)
    snake = [w for w in wanted if "_" in w[4][0]]
    report["snake_case"] = {"arguments": len(snake), "runs": {
        files: {o: sum(1 for a in run["per_argument"] if a["outcome"] == o and "_" in a["gold"])
                for o in ("right", "left out", "other spelling", "other value", "no call")}
        for files, run in report["runs"].items()}}
    print(json.dumps(report, indent=1, ensure_ascii=False))
