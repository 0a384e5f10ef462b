"""What a GRPO run shows and leaves behind: its bar and metrics lines (GRPOReporter, train.report's RunReporter with
GRPO's figures), and the plot `grpo.png` from `metrics.jsonl` (rewards per family and part, rates, signal, time).

    reporter = GRPOReporter(run_dir, cfg.steps, show=cfg.progress)
    plot(run_dir / "metrics.jsonl", run_dir / "grpo.png")

Left out: interactive dashboards (the JSONL is the record; this is a glance).
"""

from __future__ import annotations

from pathlib import Path

from nanoagent.metrics import read_metrics
from train.report import RunReporter


class GRPOReporter(RunReporter):
    """Train lines show the mean reward, the share of groups with no signal and, where the step had them, the
    tool-call accuracy and the test pass rate; validation lines are kind `val` (balanced accuracy on held-out
    tool-call tasks, not DFT's cross-entropy)."""
    desc, eval_kind = "grpo", "val"

    def postfix(self, info: dict) -> dict:
        shown = (("call", "reward_toolcall_correct_mean"), ("passed", "test_pass_rate"))
        return {"reward": f"{info['reward_mean']:.2f}", "zero": f"{info['zero_adv_share']:.2f}",
                **{k: f"{info[m]:.2f}" for k, m in shown if info.get(m) is not None}}

    def eval_message(self, info: dict) -> str:
        best = " (best so far)" if info.get("best") else ""
        return (f"validation at step {info['step']}: balanced accuracy {info['val_score']:.3f} (calls "
                f"{info['val_call_accuracy'] or 0:.3f}, no call {info['val_no_call_accuracy'] or 0:.3f}){best}")


def plot(metrics_path: Path, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = read_metrics(metrics_path, "train")
    if not rows:
        return
    x = [r["step"] for r in rows]

    def ys(key):  # None (a family without a group that step) and missing keys plot as gaps
        return [float("nan") if r.get(key) is None else r[key] for r in rows]

    keys = list(dict.fromkeys(k for r in rows for k in r))
    fig, ax = plt.subplots(2, 2, figsize=(10, 7))
    ax[0, 0].plot(x, ys("reward_mean"), label="reward mean")
    for k in [k for k in keys if k.startswith("reward_") and k.endswith("_mean") and k != "reward_mean"]:
        ax[0, 0].plot(x, ys(k), label=k[7:-5], alpha=0.7, marker=".")
    ax[0, 0].legend(fontsize=6); ax[0, 0].set_title("rewards")
    for key, label in (("reward_toolcall_correct_mean", "tool-call correct (eval's check)"),
                       ("valid_call_rate", "coding valid-call rate"), ("test_pass_rate", "coding test pass rate")):
        if key in keys:
            ax[0, 1].plot(x, ys(key), label=label, marker=".")
    val = read_metrics(metrics_path, "val")
    if val:
        ax[0, 1].plot([r["step"] for r in val], [r["val_score"] for r in val], label="validation (balanced)",
                      marker="o", color="k")
    ax[0, 1].legend(); ax[0, 1].set_ylim(-0.05, 1.05); ax[0, 1].set_title("rates")
    ax[1, 0].plot(x, ys("zero_adv_share"), label="zero-advantage groups")
    for k in (k for k in keys if k.endswith("_zero_adv_share") and k != "zero_adv_share"):
        ax[1, 0].plot(x, ys(k), label=k[:-len("_zero_adv_share")] + " zero-advantage", alpha=0.7, marker=".")
    ax[1, 0].plot(x, ys("clip_fraction"), label="clip fraction")
    ax[1, 0].legend(); ax[1, 0].set_title("signal")
    ax[1, 1].plot(x, ys("rollout_s"), label="rollout s")
    ax[1, 1].plot(x, ys("update_s"), label="update s")
    ax[1, 1].legend(); ax[1, 1].set_title("time per step")
    for a in ax.flat:
        a.set_xlabel("step")
    fig.tight_layout()
    fig.savefig(out, dpi=80)
    plt.close(fig)
