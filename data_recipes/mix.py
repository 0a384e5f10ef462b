"""Mixing: hold out a validation split per source, then weight and cap each source's training rows.

For each source (rows in their deduplicated order), a `random.Random(f"{seed}:{source}")` shuffle picks
`round(valid_fraction * n)` validation rows (at least one row stays for training); if all sources together
exceed `valid_max_rows` every source's share is scaled down. The rest is the source's training pool: it is
repeated `floor(weight)` times plus a seeded sample of the fractional part, then capped at `rows`. The training
set is shuffled with `random.Random(seed)`. Same seed and same inputs: same order, same bytes.

Usage:
    train, valid, counts = mix({"xlam": [row, ...], ...}, entries, recipe)

Left out: temperature sampling across sources (weights are explicit per-source multipliers).
"""

from __future__ import annotations

import random


def split_valid(n: int, fraction: float) -> int:
    if n < 2 or fraction <= 0:
        return 0
    return min(n - 1, max(1, round(fraction * n)))


def mix(pools: dict[str, list], entries: dict, seed: int, valid_fraction: float, valid_max_rows: int):
    """pools: source -> items in order; entries: source -> SourceEntry. Returns (train, valid, counts)."""
    shuffled, n_valid = {}, {}
    for name, items in pools.items():
        order = list(range(len(items)))
        random.Random(f"{seed}:{name}").shuffle(order)
        shuffled[name] = [items[i] for i in order]
        n_valid[name] = split_valid(len(items), valid_fraction)
    total = sum(n_valid.values())
    if total > valid_max_rows:
        scale = valid_max_rows / total
        n_valid = {k: int(v * scale) for k, v in n_valid.items()}
    train, valid, counts = [], [], {}
    for name, items in shuffled.items():
        held, pool = items[:n_valid[name]], items[n_valid[name]:]
        entry = entries[name]
        whole, frac = int(entry.weight), entry.weight - int(entry.weight)
        picked = pool * whole
        if frac > 0 and pool:
            extra = random.Random(f"{seed}:{name}:weight").sample(range(len(pool)), round(frac * len(pool)))
            picked += [pool[i] for i in sorted(extra)]
        if entry.rows is not None:
            picked = picked[:entry.rows]
        train.extend(picked)
        valid.extend(held)
        counts[name] = {"valid": len(held), "train": len(picked)}
    random.Random(seed).shuffle(train)
    return train, valid, counts
