"""Generated corpora for the data benchmarks: xLAM-schema rows with planted duplicates, and texts with planted
near-duplicates of known word edit distance. Deterministic for a seed; no network.

Used by bench/data_throughput.py and bench/data_dedup_quality.py (not run on its own).

Words are drawn with their real frequencies from the English of the BFCL prompts and function docs (shipped
offline in the bfcl-eval wheel), so tokenizer cost and n-gram overlap between unrelated rows are realistic.

Left out: meaning. The texts are word salad; only their statistics are realistic.
"""

from __future__ import annotations

import itertools
import json
import random
import re
from nanoagent.machine import machine_info  # noqa: E402

SYLLABLES = ("ka ri to mu ne sa lo pe vi da ru mi ko te na zu ha gi bo fe ya lu ce jo wa xi qu pa ti no "
             "se ma re do ku li fa be go hu").split()


class Vocab(list):
    """Words with cumulative frequency weights: sampling follows the real frequency of each word."""

    cum_weights: list


def vocab(rng: random.Random, n: int = 6000) -> Vocab:
    """English words with their frequencies in the BFCL prompts and function docs (real text, shipped offline);
    pseudo-words from syllables when the bfcl-eval wheel is missing."""
    counts: dict[str, int] = {}
    try:
        from nanoagent.bfcl_data import categories, load

        for cat in categories():
            for item in load(cat):
                for t in item.user_texts() + [f.get("description", "") for f in item.functions]:
                    for w in re.findall(r"[A-Za-z]+", t):
                        counts[w.lower()] = counts.get(w.lower(), 0) + 1
    except ImportError:
        pass
    while len(counts) < n:
        counts.setdefault("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))), 1)
    top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:max(n, 2000)]
    words = Vocab(w for w, _ in top)
    words.cum_weights = list(itertools.accumulate(c for _, c in top))
    return words


def text(rng: random.Random, words, n: int) -> str:
    weights = getattr(words, "cum_weights", None)
    return " ".join(rng.choices(words, cum_weights=weights, k=n))


def edit(rng: random.Random, text_: str, k: int, words: list[str]) -> str:
    """`k` random word-level edits (substitute, insert or delete): word edit distance <= k."""
    ws = text_.split()
    for _ in range(k):
        op, i = rng.choice("sid"), rng.randrange(len(ws))
        if op == "s":
            ws[i] = rng.choice(words)
        elif op == "i":
            ws.insert(i, rng.choice(words))
        elif len(ws) > 1:
            ws.pop(i)
    return " ".join(ws)


def tool_catalogue(rng: random.Random, words: list[str], n: int = 200) -> list[dict]:
    types = ["str", "int", "float", "bool", "List[str]", "str, optional", "int, optional"]
    tools = []
    for i in range(n):
        params = {f"{rng.choice(words)}_{j}": {"description": text(rng, words, 8), "type": rng.choice(types)}
                  for j in range(rng.randint(1, 4))}
        tools.append({"name": f"{rng.choice(words)}_{i}", "description": text(rng, words, 15), "parameters": params})
    return tools


def _value(rng, t, words):
    t = t.split(",")[0]
    return {"str": rng.choice(words), "int": rng.randint(0, 999), "float": round(rng.random() * 100, 2),
            "bool": rng.random() < 0.5, "List[str]": [rng.choice(words) for _ in range(2)]}[t]


def xlam_rows(n: int, seed: int = 0, exact_dup: float = 0.03, near_dup: float = 0.03):
    """`n` rows in xLAM's published schema; about `exact_dup`/`near_dup` of them copy an earlier row."""
    rng = random.Random(seed)
    words = vocab(rng)
    tools = tool_catalogue(rng, words)
    rows = []
    for i in range(n):
        r = rng.random()
        if rows and r < exact_dup:
            row = dict(rng.choice(rows), id=i)
        elif rows and r < exact_dup + near_dup:
            src = rng.choice(rows)
            row = dict(src, id=i, query=edit(rng, src["query"], 1, words))
        else:
            offered = rng.sample(tools, rng.randint(1, 3))
            called = rng.sample(offered, rng.randint(1, len(offered)))
            answers = [{"name": t["name"], "arguments": {p: _value(rng, s["type"], words)
                                                         for p, s in t["parameters"].items()}} for t in called]
            row = {"id": i, "query": text(rng, words, rng.randint(20, 60)),
                   "answers": json.dumps(answers), "tools": json.dumps(offered)}
        rows.append(row)
    return rows


def machine() -> dict:
    return machine_info()
