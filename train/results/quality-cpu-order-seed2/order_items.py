"""How runs do on the single-call items whose request names the required values in the schema's order, against those
that name them in another order ("predict the house price in San Francisco based on an area of 2500", where
`location` comes last in the schema).

    python train/results/quality-cpu-order-seed2/order_items.py RUN.json[,MORE.json] [RUN...] \
        > train/results/quality-cpu-order-seed2/order_items.json

Each argument is one run: comma-joined files are its per-suite files (one label, each suite once). An item counts
when at least two of its answer's required arguments have a first accepted value found in the user's text (strings
case-insensitively as whole tokens of three or more characters, a list by its first element, a whole float as
an integer); it is "in order" when their first
mentions rise in the schema's order. Prints JSON: the classified items, then per run and suite the items right and
left with a required argument missing, in order and not, by number of located arguments (2, 3, 4+), and every
item's outcome.
"""

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "quality-cpu-citystate"))
from location_items import load_run  # noqa: E402  (one run's items by id from its per-suite files)

from nanoagent.suites import load_suite  # noqa: E402

SUITES = ("simple_python", "multiple", "live_simple")


def mention(text: str, golds: list) -> int | None:
    """Where any accepted value of three or more characters first appears in `text` (lower-cased) as a whole token
    (not "0" inside "100", not "en" inside "sentiment"), or None."""
    found = []
    for gold in golds:
        if isinstance(gold, list):
            gold = gold[0] if gold and not isinstance(gold[0], (dict, list)) else None
        if gold is None or isinstance(gold, (bool, dict)) or gold == "":
            continue
        if isinstance(gold, float) and gold.is_integer():
            gold = int(gold)
        said = str(gold).lower()
        if len(said) < 3:
            continue
        if m := re.search(rf"(?<![\w.]){re.escape(said)}(?![\w])", text):
            found.append(m.start())
    return min(found) if found else None


def classify(item) -> dict | None:
    """{"in_order": bool, "located": n} for an item with two or more located required values, else None."""
    text = " ".join(m["content"] or "" for m in item.messages if m["role"] == "user").lower()
    (fn, args), = item.answers[0].items()
    spec = next((f for f in item.functions if f.get("name") == fn), None)
    if spec is None:
        return None
    props = list(spec["parameters"].get("properties", {}))
    located = [(props.index(k), at) for k in spec["parameters"].get("required", [])
               if k in args and k in props and (at := mention(text, args[k])) is not None]
    if len(located) < 2:
        return None
    at = [a for _, a in sorted(located)]
    return {"in_order": at == sorted(at), "located": len(located)}


def main(runs: list[str]) -> dict:
    items = {}
    for suite in SUITES:
        for item in load_suite(suite)[0]:
            if item.expect == "calls" and len(item.answers) == 1 and (c := classify(item)):
                items[item.id] = {"suite": suite, **c}
    report = {"items": {s: {"in_order": sum(v["suite"] == s and v["in_order"] for v in items.values()),
                            "out_of_order": sum(v["suite"] == s and not v["in_order"] for v in items.values())}
                        for s in SUITES}, "runs": {}}
    for files in runs:
        run, totals, outcomes = load_run(files), {}, []
        for item_id, info in items.items():
            got = run.get(item_id)
            if got is None:
                continue
            group = "in_order" if info["in_order"] else "out_of_order"
            n = str(min(info["located"], 4)).replace("4", "4+")
            by_n = totals.setdefault(info["suite"], {}).setdefault(group, {k: [0, 0, 0] for k in ("2", "3", "4+")})
            cell = by_n[n]
            missing = got["kind"].startswith("missing_required")
            cell[0] += 1
            cell[1] += bool(got["correct"])
            cell[2] += missing
            outcomes.append({"id": item_id, "group": group, "located": info["located"], "correct": got["correct"],
                             "kind": got["kind"]})
        report["runs"][files] = {"totals [items, right, required argument missing]": totals, "per_item": outcomes}
    return report


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    print(json.dumps(main(sys.argv[1:]), indent=1, ensure_ascii=False))
