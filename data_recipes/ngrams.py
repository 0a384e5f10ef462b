"""Word n-gram hashes shared by near-dedup (MinHash shingles) and decontamination (eval n-gram overlap).

Words are `\\w+` runs of the case-folded text. Each distinct word is hashed once per process with xxhash (the
same value in every process, so worker results can be compared), and an n-gram's hash is a polynomial of its
words' hashes computed for all n-grams at once in numpy (uint64 arithmetic wraps).

Usage:
    ws = words("Find the area of a triangle")
    grams = ngram_hashes(ws, 6)        # uint64 array, one per n-gram in order; empty if fewer than 6 words
    shingle = ngram_hashes(ws, 2, short_text=True)   # a text shorter than n is one n-gram of all its words

Left out: hashing characters instead of words (sub-word edits count as a changed word here).
"""

from __future__ import annotations

import re

import numpy as np
import xxhash

_WORD = re.compile(r"\w+")
_MULT = np.uint64(0x9E3779B97F4A7C15)
_WORD_HASH: dict[str, int] = {}  # per process; words repeat (Zipf), so each is hashed about once
_WORD_HASH_MAX = 500_000


def words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


def word_hashes(ws: list[str]) -> np.ndarray:
    cache = _WORD_HASH
    try:
        hs = [cache[w] for w in ws]
    except KeyError:
        if len(cache) > _WORD_HASH_MAX:
            cache.clear()
        for w in ws:
            if w not in cache:
                cache[w] = xxhash.xxh64_intdigest(w.encode())
        hs = [cache[w] for w in ws]
    return np.array(hs, dtype=np.uint64)


def ngram_hashes(ws: list[str], n: int, short_text: bool = False) -> np.ndarray:
    """64-bit hashes of the word n-grams of `ws`, in order (not deduplicated).

    With fewer than `n` words: no n-grams, or with `short_text=True` one n-gram of all the words (none if empty).
    """
    if len(ws) < n and not (short_text and ws):
        return np.zeros(0, dtype=np.uint64)
    hs = word_hashes(ws)
    m = max(1, len(ws) - n + 1)
    acc = hs[:m].copy()
    with np.errstate(over="ignore"):
        for k in range(1, min(n, len(ws))):
            acc = acc * _MULT + hs[k:k + m]
    return acc
