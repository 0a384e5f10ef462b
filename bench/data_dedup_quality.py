"""Benchmark: near-dedup recall and precision at the default settings on planted near-duplicates.

Run (by hand, about a minute; writes bench/results/data_dedup_quality.json):
    .venv/bin/python bench/data_dedup_quality.py
    .venv/bin/python bench/data_dedup_quality.py --bases 5000 --set jaccard=0.6

Corpus: `--bases` distinct conversations (user request of 20-80 words with real word frequencies, an answer
of 10-40 words; bench/data_corpus.py). Planted positives: copies of a base with a known word edit distance
(substitutions, insertions, deletions) of 1 up to 5% of its words, one to three copies per chosen base.
Planted hard negatives: rows that share the base's first half and replace the second half (about 50% of words
changed); they look alike but are different examples and must be kept. Each row goes through the build's
own code: `dedup_text` -> `fingerprint` -> `NearDedup` in a seeded shuffled order.

Scored: recall = planted copies removed / planted copies (a copy counts as found whether it or its base is the
one kept: only one row of each group may stay); precision = removed rows that are planted copies / removed.
Also reported per edit-distance bucket, and for heavier edits (10%, 20%) that the defaults do not target.

Left out: semantic paraphrases (MinHash on word shingles sees surface overlap only).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import asdict, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import nanoagent  # noqa: E402,F401
from data_corpus import edit, machine, text, vocab  # noqa: E402

from data_recipes.dedup import NearDedup, dedup_text, fingerprint  # noqa: E402
from data_recipes.recipe import DedupConfig  # noqa: E402


def record(user: str, answer: str) -> dict:
    return {"messages": [{"role": "user", "content": user}, {"role": "assistant", "content": answer}],
            "tools": [], "meta": {}}


def corpus(n_bases: int, seed: int, dup_share: float, edit_fracs: list[float]):
    rng = random.Random(seed)
    words = vocab(rng)
    rows = []  # (group, kind, edit_fraction, record)
    for g in range(n_bases):
        user, answer = text(rng, words, rng.randint(20, 80)), text(rng, words, rng.randint(10, 40))
        rows.append((g, "base", 0.0, record(user, answer)))
        if rng.random() < dup_share:
            for _ in range(rng.randint(1, 3)):
                frac = rng.choice(edit_fracs)
                full = f"{user} {answer}".split()
                k = max(1, round(frac * len(full)))
                u_words = len(user.split())
                k_user = round(k * u_words / len(full))
                rows.append((g, "copy", frac, record(edit(rng, user, k_user, words) if k_user else user,
                                                     edit(rng, answer, k - k_user, words) if k > k_user
                                                     else answer)))
        elif rng.random() < dup_share:
            ws = user.split()
            half = ws[:len(ws) // 2] + text(rng, words, len(ws) - len(ws) // 2).split()
            rows.append((g, "negative", 0.5, record(" ".join(half), text(rng, words, rng.randint(10, 40)))))
    rng.shuffle(rows)
    return rows


def score(rows, cfg: DedupConfig) -> dict:
    nd = NearDedup(cfg)
    t0 = time.perf_counter()
    removed = [not nd.add(i, *fingerprint(dedup_text(r[3]), cfg)) for i, r in enumerate(rows)]
    secs = time.perf_counter() - t0
    # One row per group of (base + its copies) must stay; every other member of the group should go.
    groups: dict[int, list[int]] = {}
    for i, (g, kind, _, _) in enumerate(rows):
        if kind in ("base", "copy"):
            groups.setdefault(g, []).append(i)
    expected_removed = sum(len(m) - 1 for m in groups.values())
    true_removed, false_removed, by_frac = 0, 0, {}
    for g, members in groups.items():
        gone = [i for i in members if removed[i]]
        true_removed += min(len(gone), len(members) - 1)
        false_removed += max(0, len(gone) - (len(members) - 1))  # the whole group removed: one too many
    for i, (g, kind, frac, _) in enumerate(rows):
        if kind == "negative" and removed[i]:
            false_removed += 1
        if kind == "copy":  # found: removed itself, or the one row of its group left standing
            b = by_frac.setdefault(str(frac), [0, 0])
            b[1] += 1
            members = groups[g]
            b[0] += int(removed[i] or sum(removed[j] for j in members) == len(members) - 1)
    n_removed = sum(removed)
    return {
        "rows": len(rows), "planted_copies": expected_removed,
        "hard_negatives": sum(1 for r in rows if r[1] == "negative"),
        "removed": n_removed, "recall": round(true_removed / max(expected_removed, 1), 4),
        "precision": round(true_removed / max(true_removed + false_removed, 1), 4),
        "negatives_removed": sum(1 for i, r in enumerate(rows) if r[1] == "negative" and removed[i]),
        "copies_found_by_edit_fraction": {k: round(v[0] / v[1], 4) for k, v in sorted(by_frac.items())},
        "lsh_candidates_checked": nd.candidates, "seconds": round(secs, 2),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bases", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--set", action="append", default=[], help="DedupConfig field=value, e.g. jaccard=0.6")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "data_dedup_quality.json"))
    args = ap.parse_args(argv)
    cfg = DedupConfig()
    for kv in args.set:
        k, v = kv.split("=", 1)
        cfg = replace(cfg, **{k: type(getattr(cfg, k))(v)})
    target = score(corpus(args.bases, args.seed, 0.2, [0.01, 0.02, 0.03, 0.04, 0.05]), cfg)
    heavier = score(corpus(args.bases // 5, args.seed + 1, 0.2, [0.10, 0.20]), cfg)
    result = {"benchmark": "data_dedup_quality", "machine": machine(),
              "command": "python bench/data_dedup_quality.py " + " ".join(argv if argv is not None else sys.argv[1:]),
              "settings": asdict(cfg), "targets": {"recall": 0.95, "precision": 0.99},
              "edits_up_to_5_percent": target, "edits_10_and_20_percent": heavier}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps({"defaults": target, "heavier_edits": heavier}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
