"""The call-or-answer decision, read from the model's first reply token: does it open a call where one is needed,
and only there?

    python -m eval.decision --model runs/quality-cpu-2 --suites valid --n 100
    python -m eval.decision --model exports/x-q8_0.gguf --suites irrelevance,simple_python --n 80

A reply that calls a tool starts with the first token of `<tool_call>` ("<"; the tag is five tokens); any other
first token is a text answer. For a seeded random sample of each suite's items, split by what is right (a call, or
no call), this reads the model's probability of that token after the prompt (MLX, one forward pass per item, no
generation) and reports per group the mean probability and the share of items whose most likely first token opens
a call (what greedy decoding would do), and over both groups the AUC: the chance that a random item needing a call
gets a higher probability than a random item needing none (0.5: the model does not tell them apart; 1: it always
does). Minutes instead of the hour a whole-suite generation takes, so it fits between training runs.

Per suite with both kinds of item it also reports the threshold on P(call) with the best balanced accuracy among
those keeping at least `--min-calls-kept` (0.9) of the calls, at most 0.5 (call_threshold.MAX_THRESHOLD);
`--save-threshold` (with the `valid` suite) stores the validation split's one with the model, where `nanoagent
serve`, the GGUF export and `eval.toolcall --call-threshold model` find it (nanoagent/call_threshold.py):

    python -m eval.decision --model runs/quality-cpu --suites valid --n 150 --save-threshold

Writes eval/results/decision/<label>.json (settings, machine, per-item probabilities) unless --out-dir is empty.
Left out: later decisions in a conversation (after a tool result), llama.cpp logits (a .gguf is read into MLX).
"""

from __future__ import annotations

import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

import nanoagent  # noqa: F401  (OpenBLAS before mlx)
from eval.config import ConfigError
from nanoagent import config as layered
from nanoagent.suites import SuiteError, expand_suites, load_suite, split_limit
from nanoagent.atomic import write_json
from nanoagent.call_threshold import (MIN_CALLS_KEPT, ThresholdError, call_probabilities, choose_threshold,
                                      save_threshold)
from nanoagent.machine import machine_info
from nanoagent.models import ModelLoadError, classify


@dataclass
class DecisionConfig:
    model: str = field(default="embedded", metadata={"help": "embedded | MLX folder | run folder | .gguf"})
    suites: list[str] = field(default_factory=lambda: ["valid"], metadata={"help": "suites, comma-separated"})
    n: int = field(default=100, metadata={"help": "items per suite, a seeded random sample (0: all)"})
    seed: int = field(default=0, metadata={"help": "seed of the --n sample"})
    label: str | None = field(default=None, metadata={"help": "name of the result file (default: from --model)"})
    out_dir: str = field(default="eval/results/decision", metadata={"help": "'' writes no file"})
    min_calls_kept: float = field(default=MIN_CALLS_KEPT,
                                  metadata={"help": "the threshold keeps at least this share of the calls "
                                                    "(0: balanced accuracy alone)"})
    save_threshold: bool = field(default=False, metadata={"help": "store the threshold chosen on the validation "
                                                                  "split with the model (an MLX or run folder), "
                                                                  "where serve and --call-threshold model find it"})


def auc(pos: list[float], neg: list[float]) -> float | None:
    """P(a random positive scores above a random negative), ties counted half (Mann-Whitney U / n_pos n_neg)."""
    if not pos or not neg:
        return None
    p, q = np.asarray(pos)[:, None], np.asarray(neg)[None, :]
    return float(((p > q).sum() + 0.5 * (p == q).sum()) / (p.size * q.size))


def summarize(rows: list[dict], min_calls_kept: float = MIN_CALLS_KEPT) -> dict:
    """Per group the mean P(call) and greedy call rate; the AUC; the threshold with the best balanced accuracy."""
    calls = [r["p_call"] for r in rows if r["needs_call"]]
    nones = [r["p_call"] for r in rows if not r["needs_call"]]

    def group(ps, flags):
        return {"n": len(ps), "mean_p_call": float(np.mean(ps)) if ps else None,
                "greedy_call_rate": float(np.mean(flags)) if flags else None}
    return {"needs_call": group(calls, [r["argmax_call"] for r in rows if r["needs_call"]]),
            "needs_no_call": group(nones, [r["argmax_call"] for r in rows if not r["needs_call"]]),
            "auc": auc(calls, nones), "threshold": choose_threshold(rows, min_calls_kept)}


def main(argv=None) -> int:
    try:
        cfg = layered.load(DecisionConfig, argv, description=__doc__.split("\n\n")[0])
        if not 0.0 <= cfg.min_calls_kept <= 1.0:
            raise ConfigError(f"--min-calls-kept must be a share between 0 and 1, got {cfg.min_calls_kept}")
        if cfg.n < 0:
            raise ConfigError(f"--n must be 0 (every item) or a positive number of items, got {cfg.n}")
        loaded = {}
        for spec in expand_suites(cfg.suites):
            name, limit = split_limit(spec, cfg.n or None)
            loaded[name] = load_suite(name, limit=limit, seed=cfg.seed)[0]
        if cfg.save_threshold:
            if not [n for n in loaded if n == "valid" or n.startswith("valid:")]:
                raise ConfigError("--save-threshold chooses the threshold on the validation split: add `valid` to "
                                  "--suites (never choose it on an eval suite)")
            if classify(cfg.model).kind != "folder":
                raise ConfigError(f"--save-threshold stores the threshold in a model folder; {cfg.model} is not one "
                                  "(choose it on the MLX model, then export: the GGUF carries it)")
    except (ConfigError, SuiteError, ModelLoadError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    from nanoagent.gguf_import import GGUFImportError
    from nanoagent.models import load
    from nanoagent.progress import progress_bar
    from nanoagent.prompt_format import stored_format

    try:
        model, tokenizer = load(cfg.model)
        prompt_fmt = stored_format(cfg.model)  # prompted as the model was trained (nanoagent/prompt_format.py)
    except (ModelLoadError, GGUFImportError, ValueError) as e:
        print(f"error: could not load model {cfg.model!r}: {e}", file=sys.stderr)
        return 2
    label = cfg.label or Path(cfg.model.rstrip("/")).name.removesuffix(".gguf")
    result = {"kind": "decision", "label": label, "settings": asdict(cfg), "machine": machine_info(), "suites": {}}
    for name, items in loaded.items():
        t0 = time.perf_counter()
        with progress_bar(len(items), f"P(call) on {name}", unit="prompt") as bar:
            rows = call_probabilities(model, tokenizer, items, prompt_fmt, progress=bar.update)
        result["suites"][name] = {**summarize(rows, cfg.min_calls_kept), "seconds": round(time.perf_counter() - t0, 1),
                                  "items": rows}
        s = result["suites"][name]
        fmt = lambda g: (f"n={g['n']} mean P(call)={g['mean_p_call']:.3f} greedy calls={g['greedy_call_rate']:.0%}"
                         if g["n"] else "n=0")
        print(f"{name}: needs a call: {fmt(s['needs_call'])}; needs none: {fmt(s['needs_no_call'])}; "
              f"AUC {s['auc'] if s['auc'] is None else round(s['auc'], 3)}"
              + (f"; best threshold {s['threshold']['call_threshold']:.3f} (balanced accuracy "
                 f"{s['threshold']['balanced_accuracy']:.3f})" if s["threshold"] else ""), flush=True)
    if cfg.save_threshold:
        name = next(n for n in result["suites"] if n == "valid" or n.startswith("valid:"))
        info = result["suites"][name]["threshold"]
        if info is None:
            print("error: the validation sample needs items of both kinds (a call, no call) to choose a threshold; "
                  "raise --n", file=sys.stderr)
            return 2
        try:
            where = save_threshold(classify(cfg.model).path,
                                   {**info, "chosen_on": "valid", "n": len(loaded[name]), "seed": cfg.seed})
        except ThresholdError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        print(f"call threshold {info['call_threshold']:.3f} saved to {where}")
    if cfg.out_dir:
        print(write_json(Path(cfg.out_dir) / f"{label}.json", result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
