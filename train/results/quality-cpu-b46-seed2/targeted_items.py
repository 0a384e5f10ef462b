"""Per-run outcomes on three sets of BFCL items that session 46's data changes aim at, read from eval.toolcall result
files (no model is run):
    command_runner  live_simple items that offer `cmd_controller.execute` (commands.TEMPLATES: whole commands copied)
    grid            parallel and parallel_multiple items whose calls of one function form a full grid of two
                    arguments ("the Lakers and the Bulls in 2018 and 2020": 4 calls; kinds.two_lists)
    action_enum     live_simple items calling `todo` or `todo_manager.*`, whose required `type` is a verb label
                    ("remove ..." -> "delete"; broad.VERB_LABELS)

    python train/results/quality-cpu-b46-seed2/targeted_items.py RUN.json[,MORE.json] [RUN...] \
        > train/results/quality-cpu-b46-seed2/targeted_items.json

Each argument is one run: comma-joined files are its per-suite files (an item a run's files do not hold is "not
scored"). Prints, per run and set, the item count, how many are right and the outcome kinds, then the item ids.
"""

import json
import math
import sys
from collections import Counter

from nanoagent.suites import load_suite


def _first(values: list) -> str:
    return json.dumps(values[0] if values else None, sort_keys=True)


def is_grid(item) -> bool:
    """Some function's expected calls vary exactly two arguments and hold every pair of their values."""
    by_fn: dict[str, list[dict]] = {}
    for answer in item.answers:
        (fn, args), = answer.items()
        by_fn.setdefault(fn, []).append(args)
    for calls in by_fn.values():
        if len(calls) < 4:
            continue
        keys = set().union(*calls)
        counts = {k: len({_first(c.get(k, [])) for c in calls}) for k in keys}
        varied = {k: n for k, n in counts.items() if n > 1}
        pairs = {tuple(_first(c.get(k, [])) for k in sorted(varied)) for c in calls}
        if len(varied) == 2 and math.prod(varied.values()) == len(calls) == len(pairs):
            return True
    return False


def offers_command_runner(item) -> bool:
    return any(t["function"]["name"] == "cmd_controller.execute" for t in item.tools)


def calls_todo(item) -> bool:
    return any(list(answer)[0].split(".")[0] in ("todo", "todo_manager") for answer in item.answers)


SETS = {"command_runner": (("live_simple",), offers_command_runner),
        "grid": (("parallel", "parallel_multiple"), is_grid),
        "action_enum": (("live_simple",), calls_todo)}


def chosen() -> dict[str, list[str]]:
    out = {}
    for name, (suites, keep) in SETS.items():
        out[name] = [item.id for suite in suites for item in load_suite(suite)[0] if keep(item)]
    return out


def outcomes(files: str) -> dict[str, dict]:
    got = {}
    for path in files.split(","):
        with open(path) as f:
            run = json.load(f)
        for suite in run["suites"].values():
            for item in suite["items"]:
                got[item["id"]] = item
    return got


def main(argv: list[str]) -> int:
    if not argv:
        sys.exit(__doc__)
    sets = chosen()
    report = {"sets": sets, "runs": {}}
    for files in argv:
        got = outcomes(files)
        per_set = {}
        for name, ids in sets.items():
            kinds = Counter(got[i]["kind"] if i in got else "not scored" for i in ids)
            per_set[name] = {"items": len(ids), "correct": sum(bool(got.get(i, {}).get("correct")) for i in ids),
                             "kinds": dict(kinds.most_common()),
                             "right_ids": [i for i in ids if got.get(i, {}).get("correct")]}
        report["runs"][files] = per_set
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
