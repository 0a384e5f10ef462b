"""Outputs of a build: the JSONL splits, the resolved recipe, and the summary table printed at the end.

`write_outputs` writes `train.jsonl` / `valid.jsonl` (one canonical record per line, bytes fixed by the seed) and
`recipe.resolved.yaml` (every field after defaults < YAML < overrides); build.py adds `stats.json`.
`print_summary` renders stats as a rich table: one row per source with what each pass removed.

Left out: HTML/markdown reports; stats.json is the machine-readable record.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from nanoagent.config import save_resolved


def staging(out: Path) -> Path:
    """Where a build writes before it publishes: a hidden folder beside the output."""
    return out.parent / f".{out.name}.partial"


def write_outputs(cfg, train: list, valid: list, stats: dict) -> Path:
    """Write train/valid JSONL and the resolved recipe into the staging folder (returned); `publish` moves it to
    `cfg.out` once stats.json is in it too, so a killed build never leaves a complete-looking output folder."""
    final = Path(cfg.out)
    out = staging(final)
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    for name, items in (("train.jsonl", train), ("valid.jsonl", valid)):
        with (out / name).open("w", encoding="utf-8", newline="\n") as fh:
            for row in items:
                fh.write(row.line + "\n")
    save_resolved(cfg, out / "recipe.resolved.yaml")
    stats["outputs"] = {"train": len(train), "valid": len(valid),
                        "train_tokens": sum(t.tokens for t in train), "folder": str(final)}
    return out


def publish(staged: Path, out: Path) -> Path:
    """Replace `out` with the staged folder: one rename, the previous build removed only after it."""
    old = out.parent / f".{out.name}.old"
    shutil.rmtree(old, ignore_errors=True)
    if out.exists():
        os.replace(out, old)
    os.replace(staged, out)
    shutil.rmtree(old, ignore_errors=True)
    return out


def _sum(d: dict) -> int:
    return sum(d.values()) if d else 0


def print_summary(stats: dict, out: Path) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"recipe {stats['recipe']} (seed {stats['seed']}) -> {out}",
                  caption="bad: rows the adapter could not convert; filtered: dropped by filters; cut: responses "
                          "shortened; contam: overlaps eval sets or valid; exact/near: duplicates removed")
    cols = ["source", "from", "read", "bad", "filtered", "cut", "contam", "exact", "near", "valid", "train",
            "tokens"]
    for c in cols:
        table.add_column(c, justify="left" if c in ("source", "origin") else "right")
    totals = [0] * (len(cols) - 2)
    for name, s in stats["sources"].items():
        contaminated = _sum(s.get("contaminated", {})) + s.get("train_overlapping_valid", 0)
        vals = [s.get("raw", 0), _sum(s.get("dropped", {})), _sum(s.get("filtered", {})), s.get("shortened", 0),
                contaminated, s.get("exact_dups", 0), s.get("near_dups", 0), s.get("valid", 0), s.get("train", 0),
                s.get("train_tokens", 0)]
        totals = [a + b for a, b in zip(totals, vals)]
        table.add_row(name, s.get("origin", "?"), *(f"{v:,}" for v in vals))
    table.add_row("total", "", *(f"{v:,}" for v in totals), style="bold")
    console = Console(stderr=True)
    console.width = max(console.width, 120)  # pipes report 80 columns; the table needs more to stay readable
    console.print(table)
    reasons = {}
    for name, s in stats["sources"].items():
        for kind in ("dropped", "filtered", "contaminated"):
            for reason, n in s.get(kind, {}).items():
                reasons[f"{name}: {reason}"] = n
    if reasons:
        top = sorted(reasons.items(), key=lambda kv: -kv[1])[:12]
        console.print("removed rows by reason: " + "; ".join(f"{k} {v}" for k, v in top))
    notes = [f"{n}: {s['note']}" for n, s in stats["sources"].items()
             if s.get("note") and s["note"] != "hub unreachable"]  # that one was said once, before the work
    if notes:
        console.print("notes: " + "; ".join(notes))
    t = stats.get("timings_s", {})
    console.print(f"{stats['outputs']['train']:,} train / {stats['outputs']['valid']:,} valid rows written in "
                  f"{t.get('total', 0):.1f}s ({stats.get('rows_per_s', 0):,.0f} rows/s)")
