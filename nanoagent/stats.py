"""Summary statistics for eval runs: shares with 95% bootstrap intervals, and the unbiased pass@k estimator.

    bootstrap_ci([1, 0, 1, 1], seed=0)   # -> (low, high) of the mean, percentile bootstrap
    paired_bootstrap_ci([1, 0, 1], [1, 1, 1], seed=0)   # -> (low, high) of mean(b) - mean(a), items resampled together
    runs_bootstrap_ci([[1, 0, 1], [0, 0, 1]], [[1, 1, 1]])  # -> the same for two arms of seeded runs: runs and items
    pass_at_k(n=5, c=2, k=1)             # 1 - C(n-c, k) / C(n, k)

Left out: stratified bootstraps.
"""

from __future__ import annotations

import random
from math import comb

BOOTSTRAP_SAMPLES = 2000


def mean(values) -> float | None:
    values = list(values)
    return sum(values) / len(values) if values else None


def std(values) -> float | None:
    """The population standard deviation (None for no values)."""
    values = list(values)
    m = mean(values)
    return (sum((x - m) ** 2 for x in values) / len(values)) ** 0.5 if values else None


def bootstrap_ci(values, *, samples: int = BOOTSTRAP_SAMPLES, level: float = 0.95,
                 seed: int = 0) -> tuple[float, float] | None:
    """Percentile bootstrap interval of the mean of `values` (0/1 outcomes or scores); None when empty."""
    values = [float(v) for v in values]
    n = len(values)
    if n == 0:
        return None
    rng = random.Random(seed)
    return _percentile_interval([sum(rng.choices(values, k=n)) / n for _ in range(samples)], level)


def _percentile_interval(draws: list[float], level: float) -> tuple[float, float]:
    """The central `level` share of bootstrap draws: (low, high)."""
    draws = sorted(draws)
    return draws[int((1 - level) / 2 * len(draws))], draws[min(len(draws) - 1, int((1 + level) / 2 * len(draws)))]


def paired_bootstrap_ci(a, b, *, samples: int = BOOTSTRAP_SAMPLES, level: float = 0.95,
                        seed: int = 0) -> tuple[float, float] | None:
    """Percentile bootstrap interval of mean(b) - mean(a) where a[i] and b[i] are two runs' outcomes on the same
    item i: items are resampled together, so what both runs get right or wrong does not widen the interval."""
    if len(a) != len(b):
        raise ValueError(f"paired outcomes need equal lengths, got {len(a)} and {len(b)}")
    diffs = [float(y) - float(x) for x, y in zip(a, b)]
    return bootstrap_ci(diffs, samples=samples, level=level, seed=seed)


def runs_bootstrap_ci(a_runs, b_runs, *, samples: int = BOOTSTRAP_SAMPLES, level: float = 0.95,
                      seed: int = 0) -> tuple[float, float] | None:
    """Percentile bootstrap interval of mean(B) - mean(A) for two arms of runs (training seeds, say), each run a list of
    outcomes on the same items in the same order. Each sample redraws every arm's runs with replacement and the items
    once for all runs, so the interval widens with the spread between an arm's runs as well as with the items.
    With two runs an arm the bootstrap sees half their variance: read the interval as a lower bound on the doubt."""
    runs = [list(map(float, r)) for r in (*a_runs, *b_runs)]
    if not a_runs or not b_runs:
        return None
    n = len(runs[0])
    if any(len(r) != n for r in runs):
        raise ValueError(f"every run needs outcomes on the same items, got lengths {sorted({len(r) for r in runs})}")
    if n == 0:
        return None
    rng = random.Random(seed)
    na = len(a_runs)
    diffs = []
    for _ in range(samples):
        counts = [0] * n
        for i in rng.choices(range(n), k=n):
            counts[i] += 1
        score = [sum(c * x for c, x in zip(counts, r) if c) / n for r in runs]
        ma = sum(rng.choices(score[:na], k=na)) / na
        mb = sum(rng.choices(score[na:], k=len(runs) - na)) / (len(runs) - na)
        diffs.append(mb - ma)
    return _percentile_interval(diffs, level)


def pass_at_k(n: int, c: int, k: int) -> float:
    """Chance that at least one of k samples drawn from n (c of them correct) is correct."""
    if not 0 <= c <= n or k < 1 or k > n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)
