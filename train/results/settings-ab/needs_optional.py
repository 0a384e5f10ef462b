"""Items whose BFCL answer needs an optional argument (a parameter outside `required` with no "" among its accepted
values), read off two whole-suite result files: right / valid / missing_argument kinds on that set and overall.
    python train/results/settings-ab/needs_optional.py CONTROL.json TREATMENT.json"""
import json, sys, collections
from nanoagent.bfcl_data import load

def needs_optional(item):
    for call in item.answers or []:
        (name, params), = call.items()
        f = next((f for f in item.functions if f["name"] == name), None)
        if f is None:
            continue
        req = set(f.get("parameters", {}).get("required", []))
        if any(p not in req and "" not in v for p, v in params.items()):
            return True
    return False

runs = [json.load(open(p)) for p in sys.argv[1:3]]
for suite in ["simple_python", "multiple", "parallel", "parallel_multiple", "live_simple"]:
    if not all(suite in r["suites"] for r in runs):
        continue
    ids = {it.id for it in load(suite) if needs_optional(it)}
    row = []
    for r in runs:
        items = r["suites"][suite]["items"]
        sub = [o for o in items if o["id"] in ids]
        kinds = collections.Counter(o["kind"] for o in items)
        row.append(f"{sum(bool(o['correct']) for o in sub)}/{len(sub)} right, missing_argument {kinds['missing_argument']}")
    print(f"{suite}: needs an optional argument: " + " | ".join(row))
