"""Re-score an eval.toolcall result as if each reply had stopped before its first call that repeats an earlier call
of the same reply exactly (same name and arguments), and count the completion tokens that would have been saved.

For a greedy (or any causal) decoder the cut reply is exactly what generation stopped at that point would have
written, so this measures a stop-at-repeat rule without generating again. Written for README.md beside it.

    python train/results/quality-gpu-300-obj/repeat_rescore.py \
        eval/results/quality/toolcall_quality-gpu-300-obj-mlx-whole.json

With a second result, decoded with `--stop-repeats` on the same model and items, it also counts the items whose
reply there is exactly this re-scoring's cut reply (what the decoding rule should write):

    python train/results/quality-gpu-300-obj/repeat_rescore.py \
        eval/results/quality/toolcall_quality-gpu-300-new-q8_0-parallel-cap128.json \
        eval/results/quality/toolcall_quality-gpu-300-new-q8_0-stoprepeats-parallel-cap128.json
"""

import json
import sys

from nanoagent.scoring import score_reply
from nanoagent.suites import load_bfcl
from nanoagent.toolcall import first_repeat


def cut_at_repeat(text: str) -> tuple[str, bool]:
    """The reply up to its first call that repeats an earlier one exactly, and whether there was one (the rule
    `stop_repeats` decodes with: nanoagent/agent/backends/repeat_stop.py)."""
    start = first_repeat(text)
    return (text, False) if start is None else (text[:start].rstrip(), True)


def main() -> int:
    result = json.load(open(sys.argv[1]))
    tokens = saved = 0.0
    for suite, res in result["suites"].items():
        items = {it.id: it for it in load_bfcl(suite)[0]}
        before = after = cut = gained = lost = 0
        for o in res["items"]:
            text, hit = cut_at_repeat(o["reply"])
            new = score_reply(text, items[o["id"]]) if hit else o
            cut += hit
            before += o["correct"]
            after += new["correct"]
            gained += new["correct"] and not o["correct"]
            lost += o["correct"] and not new["correct"]
            tokens += o["completion_tokens"]
            if hit:  # the share of the reply's text after the cut, as a share of its tokens
                saved += o["completion_tokens"] * (1 - len(text) / max(1, len(o["reply"])))
        n = len(res["items"])
        print(f"{suite:18s} n={n} cut={cut:3d} accuracy {100 * before / n:.1f} -> {100 * after / n:.1f} "
              f"(+{gained} -{lost})")
    print(f"completion tokens {tokens:.0f}, after the first repeat about {saved:.0f} ({100 * saved / tokens:.1f}%)")
    if len(sys.argv) > 2:
        decoded = json.load(open(sys.argv[2]))["suites"]
        for suite, res in result["suites"].items():
            pairs = list(zip(res["items"], decoded[suite]["items"]))
            same = sum(cut_at_repeat(a["reply"])[0].rstrip() == b["reply"].rstrip() for a, b in pairs)
            print(f"{suite:18s} decoded with the rule: {same} of {len(pairs)} replies are the cut ones")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
