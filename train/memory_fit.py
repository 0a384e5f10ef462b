"""Fit train.dft's micro-batch to the machine's memory before the first step, and say so in one line.

A run that needs more memory than the machine has should stop in seconds with the flag to change, not be killed
an hour in (or swap an 8 GB M1 to a crawl). Before training, `fit_memory` measures one forward and backward pass
of a single worst-case row (max_length tokens, one record, every token supervised) on the real model, with
`--numpy-ops` if the run uses it, and predicts a micro-batch of B rows as

    peak(B) ~ weights and adapters + gradients (x3 when accumulating: the sum, the scaled copy, the new ones)
              + optimizer state and one update's temporaries + B x (one row's activations)

where one row's activations are the probe's peak less what was there before it and its gradients. If `batch_size`
rows exceed the budget (`memory_budget` of the machine's memory, or of the container's limit when lower), the
micro-batch shrinks to the largest divisor of `batch_size` that fits and `grad_accum` grows by the same factor, so
each step still sees batch_size x grad_accum rows (the gradient is a token-weighted sum over micro-batches, the
same as one large batch). If even one row does not fit, gradient checkpointing is switched on (each block's
activations recomputed in the backward pass: slower, a fraction of the memory) and the probe runs again; if one row
still does not fit, it is an error naming --max-length, --memory-budget and --no-memory-fit. The run's config.yaml
holds the fitted values and remembers the asked ones, so the same command resumes it. `--no-memory-fit` keeps the
settings as given and only warns.

The probe is a worst case, so the prediction errs high. Against measured peaks on the embedded 135M model (2-core
AMD EPYC): packed 4 x 1024, predicted 11.9 GB for LoRA, measured 8.9 GB; full fine-tuning predicted 12.4 GB,
measured 11.5 GB (bench/results/train_speed_real.json); LoRA at 2 x 1024 with accumulation predicted 6.3 GB,
measured 3.9-4.4 GB (the quality run's steps). With the compiled kernels and the attention weights and SwiGLU output
recomputed (2026-11-26), packed 4 x 1024 predicts 7.3 GB for LoRA and 8.8 GB for full fine-tuning, measured 5.1 and
7.7 GB (bench/results/train_speed_swiglu.json), so an 8 GB M1's 6 GB budget gets LoRA micro-batches of 2 where 4
would fit. The probe costs one forward and backward pass at the start (seconds
here). A resumed run keeps the settings it started with (no probe). Data-parallel runs and non-llama models are
not probed (said so).

    from train.memory_fit import fit_memory
    note = fit_memory(model, cfg, loss)     # may lower cfg.batch_size and raise cfg.grad_accum; returns the line
"""

from __future__ import annotations

import os

import mlx.core as mx
import numpy as np
from mlx.utils import tree_flatten

from nanoagent.numpy_ops import training_kernels
from train.config import ConfigError
from train.data import Batch
from train.tuning import checkpoint_blocks

GB = 1e9


CGROUP_LIMITS = ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes")  # v2, v1


def machine_memory_gb() -> float:
    """The memory a run's arrays live in: physical memory (Linux and macOS), or a container's memory limit when
    lower, or a GPU's own memory when MLX computes on one that reports less (CUDA); 0 when the system does not
    say."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 0.0
    for path in CGROUP_LIMITS:
        try:
            text = open(path).read().strip()
        except OSError:
            continue
        if text.isdigit():
            total = min(total, int(text))
    device = device_memory_bytes()
    return (min(total, device) if device else total) / GB


def device_memory_bytes() -> int:
    """The GPU's memory as MLX reports it (`total_memory` on CUDA, `memory_size` on Metal, whose memory is the
    machine's), or 0 on the CPU or when MLX does not say. On an 80 GB H100 in a 135 GB machine the host figure
    overstated what a batch could use."""
    if mx.default_device() == mx.cpu or not hasattr(mx, "device_info"):
        return 0
    try:
        info = mx.device_info()
    except (RuntimeError, ValueError):
        return 0
    size = info.get("total_memory") or info.get("memory_size") or 0
    return int(size) if isinstance(size, (int, float)) else 0


def probe_batch(max_length: int, vocab_size: int) -> Batch:
    """One row of max_length - 1 inputs, one record, every target supervised: the most memory a row can take."""
    n = max_length - 1
    ids = np.random.default_rng(0).integers(3, vocab_size, size=(1, n + 1), dtype=np.int32)
    return Batch(ids[:, :-1], ids[:, 1:], np.ones((1, n), np.float32), (((0, n),),), 1, np.array([n]))


def trainable_bytes(model) -> int:
    return sum(v.nbytes for _, v in tree_flatten(model.trainable_parameters()))


def measure(model, loss, max_length: int, vocab_size: int, kernels: str | None = None) -> dict:
    """GB: `before` (what is alive now), `row` (one worst-case row's activations), `grads` (the gradients),
    measured the way the trainer runs the loss (its exp-family `kernels`, nanoagent.numpy_ops, when it uses any)."""
    import mlx.nn as nn

    from nanoagent.numpy_ops import using_numpy_ops
    from nanoagent.packed_attention import using_packed_rows

    mx.eval(model.parameters())
    before = mx.get_active_memory()
    mx.reset_peak_memory()
    loss_and_grad = using_packed_rows(nn.value_and_grad(model, loss))
    if kernels:
        loss_and_grad = using_numpy_ops(loss_and_grad, kernels)
    (value, _), grads = loss_and_grad(model, probe_batch(max_length, vocab_size))
    mx.eval(value, grads)
    peak = mx.get_peak_memory()
    grad_bytes = sum(v.nbytes for _, v in tree_flatten(grads))
    del grads, value
    mx.reset_peak_memory()  # the first step reports its own peak, not the probe's
    return {"before": before / GB, "grads": grad_bytes / GB, "row": max(peak - before - grad_bytes, 0) / GB}


def predict_gb(m: dict, rows: int, state_gb: float, accumulating: bool) -> float:
    """`state_gb`: optimizer moments and one update's temporaries; accumulation holds three gradient trees."""
    return m["before"] + m["grads"] * (3 if accumulating else 1) + state_gb + rows * m["row"]


def fit_memory(model, cfg, loss, world: int = 1, total_gb: float | None = None, own_tokens: int | None = None) -> str:
    """Measure, predict, and lower cfg.batch_size (raising cfg.grad_accum) when batch_size rows would not fit,
    first switching on cfg.grad_checkpoint when even one row would not; the asked values go to
    cfg.extra["memory_fit"]. Returns the one line to print; raises ConfigError when one row is over the budget
    even with checkpointing (unless memory_fit is off: then the line warns)."""
    total = machine_memory_gb() if total_gb is None else total_gb
    if world > 1:
        return f"memory: not checked (data-parallel over {world} processes)"
    if total <= 0:
        return "memory: not checked (this system does not report its memory)"
    vocab = getattr(getattr(model, "args", None), "vocab_size", None)
    if vocab is None or getattr(model, "model", None) is None:
        return f"memory: not checked ({type(model).__name__} is not llama-shaped)"
    budget = cfg.memory_budget * total
    m = measure(model, loss, cfg.max_length, vocab, kernels=training_kernels(cfg.numpy_ops, cfg.native_ops))
    asked = {"asked_batch_size": cfg.batch_size, "asked_grad_accum": cfg.grad_accum}
    state_gb = 3 * trainable_bytes(model) / GB  # AdamW's two moments and the update's temporaries

    # rows that share their first turn (--share-prefix) hold only their own tokens; the shared turn is one row more
    share = min(1.0, own_tokens / cfg.max_length) if own_tokens else 1.0
    shared_gb = m["row"] if own_tokens else 0.0

    def need(rows: int) -> float:
        return predict_gb(m, rows * share, state_gb, accumulating=cfg.grad_accum * cfg.batch_size // rows > 1) \
            + shared_gb

    head = (f"memory: {total:.1f} GB here, budget {budget:.1f} GB ({cfg.memory_budget:.0%}); a row of "
            f"{cfg.max_length} tokens takes about {m['row']:.2f} GB over {m['before'] + m['grads'] + state_gb:.2f}"
            " GB of weights, gradients and optimizer state")
    want = need(cfg.batch_size)
    if want <= budget:
        return f"{head}: batch {cfg.batch_size} x {cfg.max_length} fits (~{want:.1f} GB)"
    if not cfg.memory_fit:
        return (f"{head}: batch {cfg.batch_size} x {cfg.max_length} needs ~{want:.1f} GB, over the budget; kept as "
                "given (--no-memory-fit). Lower --batch-size and raise --grad-accum to fit"
                + ("" if cfg.grad_checkpoint or need(1) <= budget else "; even one row is over: add --grad-checkpoint"))
    switched = ""
    if need(1) > budget and not cfg.grad_checkpoint:
        without = need(1)
        checkpoint_blocks(model)
        m.update(measure(model, loss, cfg.max_length, vocab,
                         kernels=training_kernels(cfg.numpy_ops, cfg.native_ops)))
        if need(1) <= budget:
            cfg.grad_checkpoint = True
            asked["asked_grad_checkpoint"] = False
            switched = (f"; one row needed ~{without:.1f} GB, so gradient checkpointing is on (a row now takes "
                        f"about {m['row']:.2f} GB)")
    if need(1) > budget:
        raise ConfigError(f"{head}: even one row needs ~{need(1):.1f} GB with gradient checkpointing; lower "
                          "--max-length (or raise --memory-budget, or --no-memory-fit to try anyway: the estimate "
                          "errs high)")
    rows = max(d for d in range(1, cfg.batch_size + 1) if cfg.batch_size % d == 0 and need(d) <= budget)
    old = (cfg.batch_size, cfg.grad_accum)
    cfg.batch_size, cfg.grad_accum = rows, cfg.grad_accum * (cfg.batch_size // rows)
    cfg.extra = {**cfg.extra, "memory_fit": asked}
    if rows == old[0]:
        return f"{head}{switched}: batch {rows} x {cfg.max_length} fits (~{need(rows):.1f} GB)"
    return (f"{head}{switched}: batch {old[0]} x {cfg.max_length} would need ~{want:.1f} GB, so micro-batches of "
            f"{rows} rows with {cfg.grad_accum} accumulated (was {old[0]} x {old[1]}; the same rows per step, "
            f"~{need(rows):.1f} GB)")
