"""Decontamination: drop training rows whose user text holds much of an eval prompt (word n-gram overlap), or
whose tools carry the name of an eval function (BFCL), exactly.

An `EvalIndex` is built from eval texts grouped by set name (the BFCL prompts from the bfcl-eval wheel, extra
JSONL files, our own validation split). A row is contaminated by eval text E when the row's user text contains
at least `overlap` of E's distinct word n-grams (`ngram` words each) and at least `min_ngrams` of them (all of
them for a shorter text): a short templated prompt such as "What's the weather like in Paris?" must appear
whole, not just its first words. Eval texts shorter than `ngram` words are too generic to match on and are
skipped, counted in `skipped_short`. N-grams are compared as 64-bit hashes (data_recipes.ngrams).

Usage:
    index = EvalIndex(DecontamConfig()); index.add_texts("bfcl", texts)
    hit = index.match(user_text)      # None or the eval set name
    hits = index.match_many([text_grams(t, 6) for t in texts])   # many rows, one lookup

Left out: semantic (paraphrase) contamination; n-gram overlap catches copies and light edits only.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np

from data_recipes.ngrams import ngram_hashes, words
from data_recipes.recipe import DecontamConfig


def user_text(rec: dict) -> str:
    return "\n".join(m["content"] for m in rec["messages"] if m["role"] == "user")


def text_grams(text: str, n: int) -> np.ndarray:
    """Sorted distinct 64-bit hashes of the word n-grams of `text` (empty if it has fewer than n words)."""
    return np.unique(ngram_hashes(words(text), n))


class EvalIndex:
    """Eval texts as hashed word n-grams; `match` finds the eval set a row's text overlaps, if any.

    Most rows share no n-gram with any eval text, so a row's grams are first looked up all at once in one sorted
    array of every eval gram (numpy); only rows with a shared gram are counted per eval text.
    """

    def __init__(self, cfg: DecontamConfig):
        self.cfg = cfg
        self.grams: dict[int, list[int]] = {}   # n-gram hash -> eval text ids
        self.size: list[int] = []               # eval text id -> number of distinct grams
        self.set_of: list[str] = []             # eval text id -> eval set name
        self.texts_per_set: Counter = Counter()
        self.skipped_short = 0
        self._sorted: np.ndarray | None = None  # every eval gram, sorted (built on first match)
        self.function_names: frozenset[str] = frozenset()  # eval sets' function names (BFCL): exact-name check

    def name_hit(self, rec: dict) -> str | None:
        """'bfcl:function_name' when a row offers a tool named like an eval function, else None."""
        for tool in rec.get("tools") or ():
            if tool.get("function", tool).get("name") in self.function_names:
                return "bfcl:function_name"
        return None

    def add_texts(self, set_name: str, texts) -> None:
        self.add_grams(set_name, (text_grams(t, self.cfg.ngram) for t in texts))

    def add_grams(self, set_name: str, gram_arrays) -> None:
        """Eval texts given as `text_grams` arrays (an empty one is a text too short to match on)."""
        for grams in gram_arrays:
            if not grams.size:
                self.skipped_short += 1
                continue
            tid = len(self.size)
            self.size.append(int(grams.size))
            self.set_of.append(set_name)
            self.texts_per_set[set_name] += 1
            for g in grams.tolist():
                self.grams.setdefault(g, []).append(tid)
        self._sorted = None

    def _known(self, grams: np.ndarray) -> np.ndarray:
        """Boolean mask: which of `grams` occur in some eval text."""
        if self._sorted is None:
            self._sorted = np.array(sorted(self.grams), dtype=np.uint64)
        keys = self._sorted
        pos = np.searchsorted(keys, grams)
        pos[pos == keys.size] = 0
        return keys[pos] == grams

    def match(self, text: str) -> str | None:
        return self.match_grams(text_grams(text, self.cfg.ngram))

    def match_grams(self, grams: np.ndarray) -> str | None:
        """The eval set whose text `grams` (a `text_grams` array) overlap enough, or None."""
        if not self.size or not grams.size:
            return None
        shared = grams[self._known(grams)]
        return self._verdict(shared) if shared.size else None

    def match_many(self, gram_arrays: list[np.ndarray]) -> list[str | None]:
        """`match_grams` of every array, with the eval-gram lookup done once over all of them."""
        out: list[str | None] = [None] * len(gram_arrays)
        if not self.size or not gram_arrays:
            return out
        sizes = np.fromiter((a.size for a in gram_arrays), dtype=np.int64, count=len(gram_arrays))
        if not sizes.sum():
            return out
        found = self._known(np.concatenate(gram_arrays))
        rows = np.unique(np.repeat(np.arange(len(gram_arrays)), sizes)[found])
        for r in rows.tolist():
            out[r] = self.match_grams(gram_arrays[r])
        return out

    def _verdict(self, shared: np.ndarray) -> str | None:
        hits: Counter = Counter()
        for g in shared.tolist():
            for tid in self.grams[g]:
                hits[tid] += 1
        for tid, count in hits.items():
            size = self.size[tid]
            if count >= max(self.cfg.overlap * size, min(size, self.cfg.min_ngrams)):
                return self.set_of[tid]
        return None


def bfcl_texts(categories) -> dict[str, list[str]]:
    from nanoagent.bfcl_data import load

    return {f"bfcl:{c}": [t for item in load(c) for t in item.user_texts()] for c in categories}


def bfcl_function_names(categories) -> frozenset[str]:
    from nanoagent.bfcl_data import load

    return frozenset(f["name"] for c in categories for item in load(c) for f in item.functions)


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
