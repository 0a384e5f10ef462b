"""Tool-call eval figures at a given call threshold, derived from a result file's per-item `p_call`.

    python train/results/lr-gpu/at_threshold.py RESULT.json THRESHOLD [RESULT.json THRESHOLD ...]

eval.toolcall derives these itself only for replies generated one at a time; this applies the same rule
(nanoagent.scoring.at_threshold) to a result file of batched MLX replies, whose items carry `p_call` too.
"""
import json
import sys

import nanoagent  # noqa: F401  (OpenBLAS before mlx)
from nanoagent.scoring import at_threshold
from nanoagent.suites import load_suite

for path, threshold in zip(sys.argv[1::2], sys.argv[2::2]):
    suites = json.load(open(path))["suites"]
    own, held = {}, {}
    for name, suite in suites.items():
        outcomes = suite["items"]
        by_id = {item.id: item for item in load_suite(name)[0]}
        derived = at_threshold([by_id[o["id"]] for o in outcomes], outcomes, float(threshold))
        if derived is None:
            sys.exit(f"{path}: {name} has items without p_call; this needs a backend that reports it")
        own[name] = round(100 * sum(bool(o["correct"]) for o in outcomes) / len(outcomes), 1)
        held[name] = round(100 * sum(bool(o["correct"]) for o in derived) / len(derived), 1)
    print(f"{path} at threshold {float(threshold):g}\n  own decisions {own}\n  at threshold  {held}")
