"""The BFCL items whose answer carries a place in BFCL's "City, State" form ("New York, NY", "Berlin, Germany") for
a parameter whose description asks for a city, and how result files do on them: accuracy, and how many of the
model's values for that parameter carry the region after a comma.

    python train/results/quality-cpu-citystate/location_items.py CONTROL.json[,MORE.json] ARM.json[,MORE.json] \
        > train/results/quality-cpu-citystate/location_items.json

Each argument is one run: comma-joined files are its per-suite files. Prints JSON with the per-item outcomes.
"""

import json
import re
import sys

from nanoagent.suites import load_suite

SUITES = ("simple_python", "multiple", "parallel", "parallel_multiple", "live_simple")
PLACE = re.compile(r"^[^,]+, [^,]+$")


def location_params(item) -> set[tuple[str, str]]:
    """(function, parameter) pairs of the item's answer whose gold values include a "City, Region" string."""
    described = {}
    for tool in item.tools:
        f = tool.get("function", tool)
        for name, spec in (f.get("parameters") or {}).get("properties", {}).items():
            described[(f["name"], name)] = (spec.get("description") or "").lower()
    out = set()
    for answer in item.answers:
        for fn, args in answer.items():
            for name, golds in args.items():
                if "city" in described.get((fn, name), "") and any(
                        isinstance(g, str) and PLACE.match(g) for g in golds):
                    out.add((fn, name))
    return out


def load_run(files: str) -> dict:
    """One run's items by id from its per-suite files (eval.compare.read_arm does this for eval/; train/ may not
    import it): the files must share one label and hold each suite once."""
    items, labels, seen = {}, set(), set()
    for path in files.split(","):
        data = json.load(open(path, encoding="utf-8"))
        labels.add(data.get("label"))
        for name, suite in data["suites"].items():
            if name in seen:
                sys.exit(f"{path}: suite {name} given twice in one run ({files})")
            seen.add(name)
            items.update({i["id"]: i for i in suite["items"]})
    if len(labels) > 1:
        sys.exit(f"{files}: files of different runs ({', '.join(map(str, sorted(labels, key=str)))}); "
                 "give one run's files per argument")
    return items


def main(runs: list[str]) -> dict:
    targets = {}
    for suite in SUITES:
        for item in load_suite(suite)[0]:
            if params := location_params(item):
                targets[item.id] = params
    report = {"items": len(targets), "runs": {}}
    for files in runs:
        run, per_item = load_run(files), {}
        for item_id, params in sorted(targets.items()):
            got = run.get(item_id)
            if got is None:
                continue
            values = [c["arguments"].get(p) for c in got.get("calls") or [] for fn, p in sorted(params)
                      if c["name"] == fn]
            per_item[item_id] = {"correct": bool(got["correct"]), "kind": got["kind"], "values": values}
        scored = len(per_item)
        strings = [v for o in per_item.values() for v in o["values"] if isinstance(v, str)]
        report["runs"][files] = {
            "scored": scored, "correct": sum(o["correct"] for o in per_item.values()),
            "values": len(strings), "values_with_region": sum("," in v for v in strings),
            "per_item": per_item}
    return report


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    print(json.dumps(main(sys.argv[1:]), indent=1, ensure_ascii=False))
