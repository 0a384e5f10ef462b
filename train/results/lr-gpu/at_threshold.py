"""Tool-call eval figures at a given call threshold, derived from a result file's per-item `p_call`.

    python train/results/lr-gpu/at_threshold.py RESULT.json THRESHOLD [RESULT.json THRESHOLD ...]

An item whose p_call is below the threshold counts as declined: right where no call was expected, wrong otherwise
(the rule of nanoagent.scoring.at_threshold, for result files made with batched MLX replies, which eval.toolcall
does not derive).
"""
import json
import sys

for path, threshold in zip(sys.argv[1::2], sys.argv[2::2]):
    t = float(threshold)
    suites = json.load(open(path))["suites"]
    missing = sum(o.get("p_call") is None for s in suites.values() for o in s["items"])
    if missing:
        sys.exit(f"{path}: {missing} items have no p_call; this needs a backend that reports it")
    raw = {n: round(100 * sum(bool(o["correct"]) for o in s["items"]) / len(s["items"]), 1) for n, s in suites.items()}
    held = {n: round(100 * sum((bool(o["correct"]) if o["p_call"] >= t else o["expect"] == "no_call")
                               for o in s["items"]) / len(s["items"]), 1) for n, s in suites.items()}
    print(f"{path} at threshold {t:g}\n  own decisions {raw}\n  at threshold  {held}")
