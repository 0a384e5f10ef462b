"""Blend a fine-tuned model back toward its base model, weight by weight (WiSE-FT): w = (1 - a) * base + a * tuned.

    python -m train.interpolate --model runs/NAME --alpha 0.8 --out runs/NAME-a0.8
    python -m train.interpolate --model runs/NAME --sweep 0.5,0.6,0.7,0.8,0.9,1.0     # prose perplexity per alpha
    python -m train.interpolate --model runs/NAME --alpha auto --out runs/NAME-wise     # the largest alpha in bound

Full fine-tuning on tool-call data costs the model some of its English: the held-out prose perplexity
(nanoagent/heldout.py) rose from 65 to 121 over the 300-step CPU run. Moving part of the way back to the base
weights recovers the prose cheaply (no training, one forward pass per alpha), and how much of the tool calling it
keeps is measured, not assumed (train/README.md). `--alpha auto` takes the largest alpha of `--sweep` whose prose
perplexity stays within `--max-prose-ratio` (1.5) of the base model's, the bound issue 15 sets.

The output folder is a model folder like any run's `model/`: the tuned model's tokenizer and config, the blended
weights, and `interpolation.json` (base, tuned, alpha, the prose perplexities). It carries no call threshold: one
chosen for the tuned weights does not fit the blend, so choose it again with `python -m eval.decision --model OUT
--suites valid --n 150 --save-threshold`. Both models must have the same parameter names and shapes (a LoRA run
written with `fuse: false` is not one: fuse it first). Exit code 2 on bad input.
"""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

import nanoagent  # noqa: F401  (OpenBLAS before mlx)
from nanoagent import config as layered
from nanoagent.atomic import write_json
from nanoagent.config import ConfigError

FILE = "interpolation.json"
PROSE_BOUND = 1.5        # issue 15: held-out prose perplexity within 1.5x the base model's


@dataclass
class InterpolateConfig:
    model: str = field(default="", metadata={"help": "the fine-tuned model: a run folder or a model folder"})
    base: str = field(default="embedded", metadata={"help": "the model it was tuned from (default: embedded)"})
    alpha: str = field(default="auto", metadata={"help": "the tuned weights' share, in [0, 1]; 'auto': the largest "
                                                         "of --sweep within --max-prose-ratio"})
    sweep: list[str] = field(default_factory=lambda: ["0.5", "0.6", "0.7", "0.8", "0.9", "1.0"],
                             metadata={"help": "alphas whose prose perplexity to measure (with --alpha auto, or "
                                               "alone without --out)"})
    max_prose_ratio: float = field(default=PROSE_BOUND, metadata={"help": "--alpha auto's bound on prose "
                                                                         "perplexity over the base model's"})
    out: str | None = field(default=None, metadata={"help": "folder to write the blended model to; without it, "
                                                            "only the sweep's table"})


def blend(base: dict, tuned: dict, alpha: float) -> dict:
    """(1 - alpha) * base + alpha * tuned for every parameter; a ValueError naming the first mismatch."""
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must be in [0, 1], got {alpha}")
    missing, extra = sorted(set(tuned) - set(base)), sorted(set(base) - set(tuned))
    if missing or extra:
        name = (missing or extra)[0]
        where = "the tuned model" if missing else "the base model"
        raise ValueError(f"the models' parameters differ: {name} is only in {where} "
                         f"({len(missing) + len(extra)} names differ); are they the same architecture, LoRA fused?")
    for name, w in tuned.items():
        if w.shape != base[name].shape:
            raise ValueError(f"the models' parameters differ: {name} is {tuple(w.shape)} in the tuned model and "
                             f"{tuple(base[name].shape)} in the base model")
    return {name: ((1.0 - alpha) * base[name].astype(w.dtype) + alpha * w) for name, w in tuned.items()}


def parse_alphas(values: list[str]) -> list[float]:
    try:
        alphas = sorted({float(v) for v in values})
    except ValueError:
        raise ConfigError(f"sweep: every alpha must be a number in [0, 1], got {values}") from None
    if not alphas or not all(0.0 <= a <= 1.0 for a in alphas):
        raise ConfigError(f"sweep: every alpha must be a number in [0, 1], got {values}")
    return alphas


def largest_in_bound(ppl_by_alpha: dict[float, float], base_ppl: float, ratio: float) -> float | None:
    """The largest alpha whose prose perplexity is at most `ratio` times the base model's (None: none is)."""
    inside = [a for a, ppl in ppl_by_alpha.items() if ppl <= ratio * base_ppl]
    return max(inside) if inside else None


def run(cfg: InterpolateConfig, say=print) -> dict:
    from mlx.utils import tree_flatten, tree_unflatten

    from nanoagent import models
    from nanoagent.heldout import prose_perplexity
    from train.tuning import NOT_COPIED

    if not cfg.model:
        raise ConfigError("--model is required: the fine-tuned run folder or model folder")
    auto = cfg.alpha == "auto"
    if not auto:
        try:
            alpha = float(cfg.alpha)
        except ValueError:
            raise ConfigError(f"alpha: expected a number in [0, 1] or 'auto', got {cfg.alpha!r}") from None
        if not 0.0 <= alpha <= 1.0:
            raise ConfigError(f"alpha: expected a number in [0, 1] or 'auto', got {cfg.alpha!r}")
    if auto and not cfg.out and not cfg.sweep:
        raise ConfigError("nothing to do: give --out, --sweep, or both")
    tuned_folder = models.resolve_model_path(cfg.model)
    say(f"base {cfg.base}, tuned {tuned_folder}")
    base_model, tokenizer = models.load(cfg.base)
    tuned_model, _ = models.load(tuned_folder)
    base_w, tuned_w = dict(tree_flatten(base_model.parameters())), dict(tree_flatten(tuned_model.parameters()))
    blend(base_w, tuned_w, 1.0)  # the shape and name check, before any long work

    def prose_at(a: float) -> float:
        tuned_model.update(tree_unflatten(list(blend(base_w, tuned_w, a).items())))
        return prose_perplexity(tuned_model, tokenizer)

    base_ppl = prose_perplexity(base_model, tokenizer)
    del base_model
    result = {"base": cfg.base, "tuned": str(tuned_folder), "base_prose_ppl": base_ppl, "prose_ppl": {}}
    say(f"prose perplexity: base {base_ppl:.1f}, bound {cfg.max_prose_ratio} x {base_ppl:.1f} = "
        f"{cfg.max_prose_ratio * base_ppl:.1f}")
    if auto or not cfg.out:
        for a in parse_alphas(cfg.sweep):
            result["prose_ppl"][a] = prose_at(a)
            say(f"  alpha {a:.2f}: {result['prose_ppl'][a]:.1f}", flush=True)
    if auto:
        alpha = largest_in_bound(result["prose_ppl"], base_ppl, cfg.max_prose_ratio)
        if alpha is None:
            raise ConfigError(f"no alpha of the sweep {cfg.sweep} keeps prose perplexity within "
                              f"{cfg.max_prose_ratio}x the base's; add smaller alphas to --sweep")
        say(f"alpha auto: {alpha:.2f}, the largest within the bound")
    if not cfg.out:
        return result
    ppl = result["prose_ppl"].get(alpha)
    if ppl is None:
        ppl = prose_at(alpha)
    else:
        tuned_model.update(tree_unflatten(list(blend(base_w, tuned_w, alpha).items())))
    result.update(alpha=alpha, alpha_chosen_by="auto" if auto else "given", out_prose_ppl=ppl,
                  max_prose_ratio=cfg.max_prose_ratio)
    out = Path(cfg.out)
    if out.resolve() == tuned_folder.resolve():
        raise ConfigError(f"--out {out} is the tuned model's own folder; write the blend somewhere else")
    from mlx_lm.utils import save_model

    out.mkdir(parents=True, exist_ok=True)
    for p in tuned_folder.iterdir():
        if p.is_file() and not p.name.endswith((".safetensors", ".safetensors.index.json")) \
                and p.name not in NOT_COPIED | {FILE}:
            shutil.copy2(p, out / p.name)
    save_model(out, tuned_model)
    write_json(out / FILE, result)
    say(f"wrote {out}: alpha {alpha:.2f}, prose perplexity {ppl:.1f}. It has no call threshold; choose one with\n"
        f"  python -m eval.decision --model {out} --suites valid --n 150 --save-threshold")
    return result


def main(argv: list[str] | None = None) -> int:
    try:
        cfg = layered.load(InterpolateConfig, argv, layered.build_parser(
            InterpolateConfig, "Blend a fine-tuned model with its base (WiSE-FT).", prog="python -m train.interpolate"))
        run(cfg)
    except (ConfigError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except Exception as e:
        from nanoagent.models import ModelLoadError

        if isinstance(e, ModelLoadError):
            print(f"error: {e}", file=sys.stderr)
            return 2
        raise
    return 0


if __name__ == "__main__":
    sys.exit(main())
