"""A model's call threshold: chosen on held-out data, stored with the model, read back by the backends.

The threshold (what nanoagent/agent/backends/reply_rules.py applies) is part of the model a user gets, like a
generation config: eval.decision chooses it on the validation split and saves it beside the weights; the GGUF
export carries it as metadata; `nanoagent run` / `serve` apply it by default, eval only when asked
(`--call-threshold model`), so eval's default figures stay the model's own greedy decisions.

    rows = call_probabilities(model, tokenizer, items)   # P(first reply token opens a call), one forward pass each
                                                         # (progress=bar.update: called with 1 after each item)
    info = choose_threshold(rows)            # rows: {"needs_call": bool, "p_call": float}; None without both kinds
                                             # best balanced accuracy keeping >= 90% of the calls (MIN_CALLS_KEPT),
                                             # at most 0.5 (MAX_THRESHOLD)
    save_threshold("runs/x/model", info)     # -> runs/x/model/call_threshold.json
    stored_threshold("runs/x")               # 0.708, from a model or run folder, or a .gguf's metadata; else None
    resolve_threshold("model", spec)         # "model" -> stored_threshold(spec); "off"/None -> None; a number stays

Left out: per-tool or per-conversation thresholds.
"""

from __future__ import annotations

from pathlib import Path

FILE = "call_threshold.json"
GGUF_KEY = "nanoagent.call_threshold"


def call_probabilities(model, tokenizer, items, fmt=None, progress=None) -> list[dict]:
    """Per eval item (nanoagent.suites): P(first reply token opens a call) under an MLX model prompted in its
    PromptFormat `fmt` (None: the standard one), whether that token is the most likely one, and whether the item
    needs a call. `progress(1)` after each item (a progress bar's update)."""
    import mlx.core as mx

    from nanoagent.render import backend_tokenizer, format_named, render_prompt
    from nanoagent.toolcall import OPEN

    fmt = format_named(fmt)
    open_id = backend_tokenizer(tokenizer).encode(OPEN, add_special_tokens=False).ids[0]
    out = []
    for item in items:
        ids = render_prompt(item.messages, item.tools, tokenizer, fmt)
        logits = model(mx.array([ids]))[0, -1].astype(mx.float32)
        probs = mx.softmax(logits)
        out.append({"id": item.id, "needs_call": item.expect != "no_call", "p_call": round(probs[open_id].item(), 6),
                    "argmax_call": int(mx.argmax(logits).item()) == open_id, "prompt_tokens": len(ids)})
        if progress is not None:
            progress(1)
    return out


class ThresholdError(ValueError):
    """A threshold value or file that can't be used; the message names it."""


MIN_CALLS_KEPT = 0.9  # the share of validation calls a chosen threshold must keep
# The highest threshold chosen: above it the gate declines replies whose most likely first token opens a call, the
# model's own majority belief. Validation prompts put the best balanced accuracy higher (0.705 for b33), and there
# BFCL's calling suites lost 3.6-7.5 points (simple_python 45.8 -> 42.2, multiple 46.5 -> 39.0); at 0.5, over ten
# runs of the default recipe, they lost 0.05-1.7 on average while irrelevance gained 10.5 (python -m
# eval.thresholds; eval/results/thresholds/ten_runs.json).
MAX_THRESHOLD = 0.5


def choose_threshold(rows: list[dict], min_calls_kept: float = MIN_CALLS_KEPT,
                     max_threshold: float = MAX_THRESHOLD) -> dict | None:
    """The threshold with the best balanced accuracy (the mean of the call and no-call groups' accuracies) among
    those that keep at least `min_calls_kept` of the calls and lie at or below `max_threshold` (the lowest candidate
    when none does): a reply calls when P(call) >= threshold. Candidates lie midway between neighbouring observed
    probabilities (and just outside the extremes), so no item sits on the boundary where float32 storage or
    llama.cpp's slightly different numbers could flip it; always inside (0, 1).
    None unless both groups are present.

    Why the floor: a validation sample holds few no-call prompts (29 of 150 for quality-cpu-obj) and their P(call)
    splits in two (half near 0.1, half near 0.9), so the unconstrained best moved to 0.924 there, keeping 64% of
    the calls, and BFCL simple_python fell from 40.2 to 23.2 (train/results/quality-cpu-obj/README.md). The cost:
    for a model that ranks prompts poorly the floor declines little (stage 1's probe: 0.646, declining 26% of the
    no-call prompts, against 0.708 and 74% without it). `min_calls_kept=0` is the rule without the floor."""
    calls = sorted(float(r["p_call"]) for r in rows if r["needs_call"])
    nones = sorted(float(r["p_call"]) for r in rows if not r["needs_call"])
    if not calls or not nones:
        return None
    seen = sorted(set(calls) | set(nones))
    lo, hi = 1e-6, 1.0 - 1e-6
    candidates = [min(max(t, lo), hi) for t in
                  [seen[0] / 2] + [(a + b) / 2 for a, b in zip(seen, seen[1:])] + [(seen[-1] + 1.0) / 2]]
    candidates = [t for t in candidates if t <= max_threshold] or candidates[:1]  # the lowest is at most 0.5
    best = None
    for t in candidates:  # ascending: the lowest keeps every call, so one always qualifies
        hit = sum(p >= t for p in calls) / len(calls)
        if hit < min_calls_kept and best is not None:
            break
        reject = sum(p < t for p in nones) / len(nones)
        score = 0.5 * (hit + reject)
        if best is None or score > best[1]:
            best = (t, score, hit, reject)
    t, score, hit, reject = best
    return {"call_threshold": round(t, 6), "balanced_accuracy": round(score, 4), "calls_kept": round(hit, 4),
            "no_calls_declined": round(reject, 4), "n_call": len(calls), "n_no_call": len(nones),
            "min_calls_kept": min_calls_kept, "max_threshold": max_threshold}


def check_threshold(value, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 < value < 1.0:
        raise ThresholdError(f"{where}: call_threshold must be a probability between 0 and 1, got {value!r}")
    return float(value)


def save_threshold(model_dir: str | Path, info: dict) -> Path:
    from nanoagent.atomic import write_json

    folder = Path(model_dir)
    if not (folder / "config.json").is_file():
        raise ThresholdError(f"{folder} is not a model folder (no config.json): save the threshold beside the "
                             "weights of an MLX model or a run's model/ folder")
    check_threshold(info.get("call_threshold"), str(folder / FILE))
    return write_json(folder / FILE, info)


def stored_threshold(spec: str | Path) -> float | None:
    """The threshold stored with a model: a model or run folder's call_threshold.json, or a GGUF's metadata."""
    from nanoagent.models import DamagedRecord, stored_record

    try:
        found = stored_record(spec, FILE, "call_threshold", GGUF_KEY)
    except DamagedRecord as e:
        raise ThresholdError(f"{e}: not a call-threshold file; delete it or rerun "
                             "`python -m eval.decision --save-threshold`") from None
    return None if found is None else check_threshold(*found)


def resolve_threshold(value, spec: str) -> float | None:
    """A `--call-threshold` value: a number, "model" (the one stored with `spec`, None if it has none) or "off"."""
    if value is None or value is False or value == "off":  # YAML reads a bare `off` as False
        return None
    if value == "model":
        return stored_threshold(spec)
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ThresholdError(f"--call-threshold takes a probability, 'model' or 'off', got {value!r}") from None
    return check_threshold(number, "--call-threshold")
