"""What a run shows and leaves behind: a progress bar, `metrics.jsonl`, and `loss.png`.

    cb = RunReporter(run_dir, total_steps, show=True)   # a trainer Callback
    plot_losses(run_dir / "metrics.jsonl", run_dir / "loss.png")

The bar shows loss, tokens/s, learning rate and peak memory. Every train step, validation and checkpoint becomes
one JSON line (`{"kind": "train" | "valid" | "checkpoint" | ..., "step": ...}`). On resume, lines from steps after
the checkpoint (work the killed run did and lost) are dropped, so the file reads like one uninterrupted run.
Only rank 0 writes (nanoagent/metrics.py: the format, the writer and the reader both trainers use). Left out: TensorBoard / W&B.
"""

from __future__ import annotations

from pathlib import Path

from nanoagent.metrics import MetricsLog, read_metrics
from train.trainer import Callback


class RunReporter(Callback):
    """The bar, the metrics lines and the validation message of a run. A trainer whose steps report other figures
    (train.grpo_report.GRPOReporter) overrides `desc`, `eval_kind`, `postfix` and `eval_message`."""
    desc, eval_kind = "train", "valid"

    def __init__(self, run_dir, total_steps: int, show: bool = True, rank: int = 0):
        self.log = MetricsLog(Path(run_dir) / "metrics.jsonl", enabled=rank == 0)
        self.total, self.show, self.rank = total_steps, show, rank
        self.bar = None

    def write(self, kind: str, info: dict) -> None:
        self.log.write(kind, info)

    def on_start(self, state):
        self.log.resume_at(state.step if state.step else -1)  # a run from step 0 keeps nothing of an earlier one
        if state.resumed_from:
            self.write("resume", {"step": state.step, "from": state.resumed_from})
        if self.show and self.rank == 0:
            from tqdm import tqdm

            self.bar = tqdm(total=self.total, initial=state.step, desc=self.desc, unit="step", dynamic_ncols=True)

    def postfix(self, info: dict) -> dict:
        return {"loss": f"{info['loss']:.3f}", "tok_s": f"{info['tokens_per_s']:.0f}", "lr": f"{info['lr']:.2e}",
                "mem": f"{info['peak_mem_gb']:.2f}GB"}

    def eval_message(self, info: dict) -> str:
        return f"step {info['step']}: val_loss {info['val_loss']:.4f} (ce {info['val_ce']:.4f})"

    def on_step(self, info):
        self.write("train", info)
        if self.bar is not None:
            self.bar.update(1)
            self.bar.set_postfix(**self.postfix(info), refresh=False)

    def on_eval(self, info):
        self.write(self.eval_kind, info)
        if self.rank == 0:
            if self.bar is not None:
                self.bar.write(self.eval_message(info))
            else:
                print(self.eval_message(info), flush=True)

    def on_checkpoint(self, info):
        self.write("checkpoint", info)

    def on_end(self, state):
        if self.bar is not None:
            self.bar.close()


def plot_losses(metrics_path, out_png) -> Path | None:
    rows = read_metrics(metrics_path)
    train = [(r["step"], r["loss"]) for r in rows if r["kind"] == "train"]
    valid = [(r["step"], r["val_loss"]) for r in rows if r["kind"] == "valid"]
    if not train and not valid:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    if train:
        ax.plot(*zip(*train), label="train loss", alpha=0.7)
    if valid:
        ax.plot(*zip(*valid), "o-", label="validation loss")
    ax.set_xlabel("step")
    ax.set_ylabel("loss")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out_png, dpi=100)
    plt.close(fig)
    return Path(out_png)
