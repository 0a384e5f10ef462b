"""Share of a data build's rows by the number of calls in the first calling assistant turn (0, 1, 2, 3, 4+): the
figures README.md beside it compares between the 80d7ee3 and 51f2690 builds (each made by
`python -m data_recipes.build --offline` at that commit; the builds are not committed).

    python train/results/quality-gpu-300-obj/call_share.py data/default/train.jsonl [OTHER/train.jsonl ...]
"""

import collections
import json
import sys


def call_share(path: str) -> dict[int, float]:
    counts, n = collections.Counter(), 0
    with open(path) as f:
        for line in f:
            messages = json.loads(line)["messages"]
            first = next((m for m in messages if m["role"] == "assistant" and m.get("tool_calls")), None)
            counts[min(len(first["tool_calls"]) if first else 0, 4)] += 1
            n += 1
    return {k: 100 * counts[k] / n for k in range(5)}


if __name__ == "__main__":
    for p in sys.argv[1:]:
        print(p, " ".join(f"{k if k < 4 else '4+'}: {v:.1f}%" for k, v in call_share(p).items()))
