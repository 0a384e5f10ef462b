"""Decontamination: drop training rows whose user text holds much of an eval prompt (word n-gram overlap).

An `EvalIndex` is built from eval texts grouped by set name (the BFCL prompts from the bfcl-eval wheel, extra
JSONL files, our own validation split). A row is contaminated by eval text E when the row's user text contains
at least `overlap` of E's distinct word n-grams (`ngram` words each) and at least `min_ngrams` of them (all of
them for a shorter text): a short templated prompt such as "What's the weather like in Paris?" must appear
whole, not just its first words. Eval texts shorter than `ngram` words are too generic to match on and are
skipped, counted in `skipped_short`.

Usage:
    index = EvalIndex(DecontamConfig()); index.add_texts("bfcl", texts)
    hit = index.match(user_text)      # None or the eval set name

Left out: semantic (paraphrase) contamination; n-gram overlap catches copies and light edits only.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

from data_recipes.recipe import DecontamConfig

_WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


def user_text(rec: dict) -> str:
    return "\n".join(m["content"] for m in rec["messages"] if m["role"] == "user")


class EvalIndex:
    def __init__(self, cfg: DecontamConfig):
        self.cfg = cfg
        self.grams: dict[str, list[int]] = {}   # n-gram -> eval text ids
        self.size: list[int] = []               # eval text id -> number of distinct grams
        self.set_of: list[str] = []             # eval text id -> eval set name
        self.texts_per_set: Counter = Counter()
        self.skipped_short = 0

    def _grams(self, ws: list[str], n: int) -> set[str]:
        return {" ".join(ws[i:i + n]) for i in range(len(ws) - n + 1)}

    def add_texts(self, set_name: str, texts) -> None:
        for text in texts:
            ws = words(text)
            if len(ws) < self.cfg.ngram:
                self.skipped_short += 1
                continue
            grams = self._grams(ws, self.cfg.ngram)
            tid = len(self.size)
            self.size.append(len(grams))
            self.set_of.append(set_name)
            self.texts_per_set[set_name] += 1
            for g in grams:
                self.grams.setdefault(g, []).append(tid)

    def match(self, text: str) -> str | None:
        if not self.size:
            return None
        hits: Counter = Counter()
        for g in self._grams(words(text), self.cfg.ngram):
            for tid in self.grams.get(g, ()):
                hits[tid] += 1
        for tid, count in hits.items():
            size = self.size[tid]
            if count >= max(self.cfg.overlap * size, min(size, self.cfg.min_ngrams)):
                return self.set_of[tid]
        return None


def bfcl_texts(categories) -> dict[str, list[str]]:
    from eval.bfcl_data import load

    return {f"bfcl:{c}": [t for item in load(c) for t in item.user_texts()] for c in categories}


def file_texts(path: str | Path) -> list[str]:
    """User texts of a JSONL eval file: canonical records (`messages`) or rows with a `prompt` string."""
    out = []
    with Path(path).open(encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                continue
            row = json.loads(line)
            if isinstance(row.get("prompt"), str):
                out.append(row["prompt"])
            for m in row.get("messages") or []:
                if m.get("role") == "user" and isinstance(m.get("content"), str):
                    out.append(m["content"])
    return out
