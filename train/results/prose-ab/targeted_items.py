"""Score a model on the BFCL items whose expected call needs an optional argument the request states (issue 15):
the items of simple_python, multiple and live_simple where BFCL's possible answers accept no '' for an argument
the schema does not require (nanoagent.checker.stated_optional). The same generation, checker and outcome records
as eval.toolcall (nanoagent.scoring; greedy, 256 tokens, one reply at a time through llama.cpp for a GGUF), on
those items alone. The output is an eval.toolcall-shaped result, so eval.optional_args and eval.compare read it.

    python train/results/prose-ab/targeted_items.py MODEL.gguf LABEL OUT.json

Written for the A/B in README.md beside it.
"""

import json
import sys
import time

import nanoagent  # noqa: F401  (OpenBLAS before mlx)
from nanoagent.checker import stated_optional
from nanoagent.agent.backends import load_backend
from nanoagent.scoring import run_suite
from nanoagent.suites import load_bfcl

SUITES = ["simple_python", "multiple", "live_simple"]


def needs_stated_optional(item) -> bool:
    functions = {f.get("name"): f for f in item.functions}
    return any(stated_optional(answer, functions)[1] for answer in item.answers)


def main() -> int:
    model, label, out = sys.argv[1:4]
    backend = load_backend(model, n_threads=2)
    result = {"format": "nanoagent-eval", "kind": "toolcall", "label": label, "model": model,
              "settings": {"max_tokens": 256, "temperature": 0.0, "seed": 0, "items": "stated optional arguments"},
              "created": time.strftime("%Y-%m-%dT%H:%M:%S"), "suites": {}}
    for suite in SUITES:
        picked = [it for it in load_bfcl(suite)[0] if needs_stated_optional(it)]
        result["suites"][suite] = run_suite(backend, picked, max_tokens=256)
        got = result["suites"][suite]["items"]
        print(suite, len(picked), "items,", sum(o["correct"] for o in got), "correct,",
              sum(o["valid"] for o in got), "schema-valid,", sum(o["has_call"] for o in got), "with a call", flush=True)
    with open(out, "w") as f:
        json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
