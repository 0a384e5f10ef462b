"""The model card's figures, drawn with matplotlib (Agg backend, no display needed).

    loss_figure(run_dir / "metrics.jsonl", release / "training" / "loss.png")   # None when there is nothing to draw
    bfcl_figure(columns, release / "eval" / "bfcl.png")                         # None when no suite has a figure

`loss_figure` draws the training and validation loss from a run's metrics.jsonl (rows `{"kind": "train", "step",
"loss"}` and `{"kind": "valid", "step", "val_loss"}`, as the trainer writes them); the release uses the run's own
loss.png when it has one. `bfcl_figure` draws BFCL accuracy per suite, one bar per card column (the model, per
decoding mode) beside the published anchors of larger small models (nanoagent.bfcl_table.ANCHORS).

Left out: interactive plots and any figure the card does not embed.
"""

from __future__ import annotations

import json
from pathlib import Path

from nanoagent.bfcl_table import ANCHORS

MODEL_COLOURS = ("#d62728", "#ff7f0e", "#9467bd", "#8c564b")
ANCHOR_COLOURS = ("#4c72b0", "#7f9fcf", "#b3c7e6")


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def read_losses(metrics: Path) -> tuple[list, list]:
    """([(step, train loss)], [(step, validation loss)]) from a metrics.jsonl; unreadable lines are skipped."""
    train, valid = [], []
    for line in metrics.read_text().splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if not isinstance(row, dict):
            continue
        if row.get("kind") == "train" and isinstance(row.get("loss"), (int, float)):
            train.append((row["step"], row["loss"]))
        elif row.get("kind") == "valid" and isinstance(row.get("val_loss"), (int, float)):
            valid.append((row["step"], row["val_loss"]))
    return train, valid


def loss_figure(metrics: Path, out: Path) -> Path | None:
    if not metrics.is_file():
        return None
    train, valid = read_losses(metrics)
    if not train and not valid:
        return None
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    if train:
        ax.plot(*zip(*train), label="train loss", alpha=0.7)
    if valid:
        ax.plot(*zip(*valid), "o-", label="validation loss")
    ax.set(xlabel="step", ylabel="loss", title="Training loss")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return out


def bfcl_figure(columns: list[dict], out: Path) -> Path | None:
    """Grouped bars: for each suite a card column has, its accuracy per column, then the anchors'."""
    suites = list(dict.fromkeys(s for c in columns for s, r in c["suites"].items()
                                if "accuracy" in (r.get("metrics") or {})))
    if not suites:
        return None
    bars = [(c["label"], [100 * ((c["suites"].get(s) or {}).get("metrics") or {}).get("accuracy", float("nan"))
                          for s in suites], MODEL_COLOURS[i % len(MODEL_COLOURS)]) for i, c in enumerate(columns)]
    bars += [(f"{name} (published)", [ANCHORS[name].get(s, float("nan")) for s in suites],
              ANCHOR_COLOURS[i % len(ANCHOR_COLOURS)]) for i, name in enumerate(ANCHORS)]
    plt = _pyplot()
    width = 0.8 / len(bars)
    fig, ax = plt.subplots(figsize=(max(7, 1.4 * len(suites) + 3), 4.5))
    for i, (label, values, colour) in enumerate(bars):
        ax.bar([k + (i - (len(bars) - 1) / 2) * width for k in range(len(suites))], values, width, label=label,
               color=colour)
    ax.set_xticks(range(len(suites)), suites, rotation=15)
    ax.set(ylabel="accuracy (%)", ylim=(0, 100), title="BFCL, offline, greedy")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return out
