"""Score a model on two sets of BFCL items that the synthetic generator gained rows for in session 22-23 (issue 15):
    object_arguments  every item of the five calling suites whose expected call holds an object (dict) value
                      (29 items: simple_python 4, multiple 2, parallel 2, parallel_multiple 4, live_simple 17)
    command_runner    the live_simple items that offer `cmd_controller.execute` (28 items)
with the same generation, checker and outcome records as eval.toolcall (nanoagent.scoring; greedy, 256 tokens, one
reply at a time through llama.cpp for a GGUF), on those items alone.

    python train/results/command-ab/targeted_items.py MODEL.gguf LABEL OUT.json

Written for the A/B in README.md beside it.
"""

import json
import sys
import time

import nanoagent  # noqa: F401  (OpenBLAS before mlx)
from nanoagent.agent.backends import load_backend
from nanoagent.scoring import run_suite
from nanoagent.suites import load_bfcl

SUITES = ["simple_python", "multiple", "parallel", "parallel_multiple", "live_simple"]


def holds_object(item) -> bool:
    return any(isinstance(v, dict) for call in item.answers for args in call.values() for values in args.values()
               for v in (values if isinstance(values, list) else [values]))


def offers_command_runner(item) -> bool:
    return item.suite == "live_simple" and any(f["name"] == "cmd_controller.execute" for f in item.functions)


SETS = {"object_arguments": holds_object, "command_runner": offers_command_runner}


def main() -> int:
    model, label, out = sys.argv[1:4]
    backend = load_backend(model, n_threads=2)
    items = [it for suite in SUITES for it in load_bfcl(suite)[0]]
    result = {"model": model, "label": label, "settings": {"max_tokens": 256, "temperature": 0.0, "seed": 0},
              "created": time.strftime("%Y-%m-%dT%H:%M:%S"), "sets": {}}
    for name, chosen in SETS.items():
        picked = [it for it in items if chosen(it)]
        result["sets"][name] = run_suite(backend, picked, max_tokens=256)
        got = result["sets"][name]["items"]
        print(name, len(picked), "items,", sum(o["correct"] for o in got), "correct,",
              sum(o["valid"] for o in got), "schema-valid,", sum(o["has_call"] for o in got), "with a call", flush=True)
    with open(out, "w") as f:
        json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
