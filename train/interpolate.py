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
--suites valid --n 400 --save-threshold`. Both models must have the same parameter names and shapes (a LoRA run
written with `fuse: false` is not one: fuse it first). Exit code 2 on bad input.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

import nanoagent  # noqa: F401  (OpenBLAS before mlx)
from nanoagent import config as layered
from nanoagent.atomic import write_json
from nanoagent.config import ConfigError
from nanoagent.models import ModelLoadError

FILE = "interpolation.json"
PROSE_BOUND = 1.5        # issue 15: held-out prose perplexity within 1.5x the base model's
AUTO_ALPHAS = (0.95, 0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6, 0.55, 0.5)   # train.dft's search, largest first


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


def check_match(base: dict, tuned: dict) -> None:
    """A ValueError naming the first parameter whose name or shape differs between the two models."""
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


def blend(base: dict, tuned: dict, alpha: float) -> dict:
    """(1 - alpha) * base + alpha * tuned for every parameter; a ValueError naming the first mismatch."""
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must be in [0, 1], got {alpha}")
    check_match(base, tuned)
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


def blender(model, base: str | Path):
    """A function alpha -> None that sets `model`'s weights to the blend with `base` (a model spec) in place.

    A model with LoRA layers (in training) needs no base: the blend of W and W + s * B A is W + alpha * s * B A,
    so only each B is scaled. Any other model is blended parameter by parameter with the base loaded from `base`."""
    from mlx.utils import tree_flatten, tree_unflatten

    from nanoagent.gguf_writer import lora_layers

    layers = lora_layers(model)
    if layers:
        if any(hasattr(m, "m") for m in layers.values()):
            raise ValueError("a DoRA model is not a linear blend of its base; blending covers LoRA and full models")
        kept = {name: m.lora_b for name, m in layers.items()}

        def scale_lora(alpha: float) -> None:
            for name, m in layers.items():
                m.lora_b = kept[name] * alpha
        return scale_lora
    from nanoagent import models

    base_model, _ = models.load(base)
    base_w, tuned_w = dict(tree_flatten(base_model.parameters())), dict(tree_flatten(model.parameters()))
    check_match(base_w, tuned_w)  # before any long work

    def set_blend(alpha: float) -> None:
        model.update(tree_unflatten(list(blend(base_w, tuned_w, alpha).items())))
    return set_blend


def prose_sweep(model, tokenizer, set_alpha, alphas, say=print) -> dict[float, float]:
    """Held-out prose perplexity at each alpha; leaves the model at the last one."""
    from nanoagent.heldout import prose_perplexity

    out = {}
    for a in alphas:
        set_alpha(a)
        out[a] = prose_perplexity(model, tokenizer)
        say(f"  alpha {a:.2f}: prose perplexity {out[a]:.1f}", flush=True)
    return out


def fit_prose_bound(model, tokenizer, base: str | Path, base_ppl: float, ratio: float = PROSE_BOUND,
                    alphas=AUTO_ALPHAS, say=print) -> dict:
    """train.dft's last step: when the tuned model's prose perplexity is over `ratio` x the base's, blend it toward
    the base by the largest of `alphas` that brings it within; the model is left at that blend (or unchanged when
    none does, which the result says). Returns the fields for the run's summary."""
    from nanoagent.heldout import prose_perplexity

    tuned_ppl = prose_perplexity(model, tokenizer)
    info = {"prose_ppl_tuned": tuned_ppl, "prose_bound": ratio * base_ppl, "blend_alpha": 1.0}
    if tuned_ppl <= ratio * base_ppl:
        say(f"prose perplexity {tuned_ppl:.1f} is within {ratio} x the base's {base_ppl:.1f}: no blend")
        return info
    say(f"prose perplexity {tuned_ppl:.1f} is over {ratio} x the base's {base_ppl:.1f} = {ratio * base_ppl:.1f}: "
        f"blending the weights toward the base (train/interpolate.py) ...", flush=True)
    set_alpha = blender(model, base)
    sweep = {}
    for a in sorted(alphas, reverse=True):
        sweep[a] = prose_sweep(model, tokenizer, set_alpha, [a], say)[a]
        if sweep[a] <= ratio * base_ppl:
            say(f"  kept alpha {a:.2f}: {1 - a:.0%} of the way back to the base weights")
            return {**info, "blend_alpha": a, "blend_sweep": sweep}
    set_alpha(1.0)
    say(f"  no alpha down to {min(alphas)} is within the bound: the tuned weights are kept unblended")
    return {**info, "blend_sweep": sweep}


def run(cfg: InterpolateConfig, say=print) -> dict:
    from nanoagent import models
    from nanoagent.heldout import prose_perplexity
    from train.tuning import copy_side_files

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
    alphas = parse_alphas(cfg.sweep) if auto or not cfg.out else []
    tuned_folder = models.resolve_model_path(cfg.model)
    if cfg.out and Path(cfg.out).resolve() in (tuned_folder.resolve(), Path(cfg.model).resolve()):
        raise ConfigError(f"--out {cfg.out} is the tuned model's own folder; write the blend somewhere else")
    say(f"base {cfg.base}, tuned {tuned_folder}")
    model, tokenizer = models.load(tuned_folder)
    set_alpha = blender(model, cfg.base)
    set_alpha(0.0)
    base_ppl = prose_perplexity(model, tokenizer)
    result = {"base": cfg.base, "tuned": str(tuned_folder), "base_prose_ppl": base_ppl, "prose_ppl": {}}
    say(f"prose perplexity: base {base_ppl:.1f}, bound {cfg.max_prose_ratio} x {base_ppl:.1f} = "
        f"{cfg.max_prose_ratio * base_ppl:.1f}")
    result["prose_ppl"] = prose_sweep(model, tokenizer, set_alpha, alphas, say)
    if auto:
        alpha = largest_in_bound(result["prose_ppl"], base_ppl, cfg.max_prose_ratio)
        if alpha is None:
            raise ConfigError(f"no alpha of the sweep {cfg.sweep} keeps prose perplexity within "
                              f"{cfg.max_prose_ratio}x the base's; add smaller alphas to --sweep")
        say(f"alpha auto: {alpha:.2f}, the largest within the bound")
    if not cfg.out:
        return result
    ppl = result["prose_ppl"].get(alpha) or prose_sweep(model, tokenizer, set_alpha, [alpha], say)[alpha]
    set_alpha(alpha)
    result.update(alpha=alpha, alpha_chosen_by="auto" if auto else "given", out_prose_ppl=ppl,
                  max_prose_ratio=cfg.max_prose_ratio)
    from mlx_lm.utils import save_model

    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    copy_side_files(tuned_folder, out)  # tokenizer and config; not the tuned model's call threshold
    save_model(out, model)
    write_json(out / FILE, result)  # over any copied from a tuned folder that was itself a blend
    say(f"wrote {out}: alpha {alpha:.2f}, prose perplexity {ppl:.1f}. It has no call threshold; choose one with\n"
        f"  python -m eval.decision --model {out} --suites valid --n 400 --save-threshold")
    return result


def main(argv: list[str] | None = None) -> int:
    try:
        cfg = layered.load(InterpolateConfig, argv, layered.build_parser(
            InterpolateConfig, "Blend a fine-tuned model with its base (WiSE-FT).", prog="python -m train.interpolate"))
        run(cfg)
    except (ConfigError, ValueError, ModelLoadError) as e:  # ConfigError is a ValueError; blend's are too
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
