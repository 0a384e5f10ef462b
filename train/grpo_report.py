"""The GRPO run's plot: `grpo.png` from `metrics.jsonl` (rewards, valid-call and pass rates, signal, time).

    plot(run_dir / "metrics.jsonl", run_dir / "grpo.png")

Left out: interactive dashboards (the JSONL is the record; this is a glance).
"""

from __future__ import annotations

import json
from pathlib import Path


def plot(metrics_path: Path, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [json.loads(x) for x in metrics_path.read_text().splitlines() if x.strip()]
    rows = [r for r in rows if r.get("kind") == "train"]
    if not rows:
        return
    x = [r["step"] for r in rows]
    fig, ax = plt.subplots(2, 2, figsize=(10, 7))
    ax[0, 0].plot(x, [r["reward_mean"] for r in rows], label="reward mean")
    for k in [k for k in rows[0] if k.startswith("reward_") and k.endswith("_mean") and k != "reward_mean"]:
        ax[0, 0].plot(x, [r[k] for r in rows], label=k[7:-5], alpha=0.7)
    ax[0, 0].legend(); ax[0, 0].set_title("rewards")
    ax[0, 1].plot(x, [r["valid_call_rate"] for r in rows], label="valid-call rate")
    ax[0, 1].plot(x, [r["test_pass_rate"] for r in rows], label="test pass rate")
    ax[0, 1].legend(); ax[0, 1].set_ylim(-0.05, 1.05); ax[0, 1].set_title("rates")
    ax[1, 0].plot(x, [r["zero_adv_share"] for r in rows], label="zero-advantage groups")
    ax[1, 0].plot(x, [r["clip_fraction"] for r in rows], label="clip fraction")
    ax[1, 0].legend(); ax[1, 0].set_title("signal")
    ax[1, 1].plot(x, [r["rollout_s"] for r in rows], label="rollout s")
    ax[1, 1].plot(x, [r["update_s"] for r in rows], label="update s")
    ax[1, 1].legend(); ax[1, 1].set_title("time per step")
    for a in ax.flat:
        a.set_xlabel("step")
    fig.tight_layout()
    fig.savefig(out, dpi=80)
    plt.close(fig)
