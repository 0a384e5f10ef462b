"""What both trainers' configs share: the fields (declared once), their checks and what resume keeps.

    @dataclass
    class DFTConfig(TrainingConfig): ...          # train/config.py adds data, batches, loss, validation
    @dataclass
    class GRPOConfig(TrainingConfig): ...         # train/grpo_config.py adds tasks, rollouts, rewards, objective

    cfg = resume_settings(cfg, argv, parser, RESUME_SAFE, rebuild)   # a resumed run keeps its own config.yaml
    layered.save_resolved(cfg, run_dir / "config.yaml")              # the one way a config is saved

A trainer that declares a shared field again only changes its default (GRPO's lora_rank 8, learning rate 1e-5,
constant schedule, 20 steps, checkpoints every 5 steps); the field keeps its place and meaning. The layering
(defaults < YAML < flags) is nanoagent/config.py.

**Resume keeps the run's settings.** A run folder with a usable checkpoint continues with its saved config.yaml.
The command line may change only what is safe to change (the trainer's RESUME_SAFE: how long it runs and how it
reports); any other setting given with a different value is a ConfigError naming it and both values, unless
`--force-config`. Settings not given now come from the run, whatever the defaults have become since.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from nanoagent import config as layered
from nanoagent.config import ConfigError, option

FINE_TUNES = ("lora", "full")


@dataclass
class TrainingConfig:
    model: str | None = option("embedded", "model to start from: embedded, an MLX/HF model folder, a run folder, "
                                           "a .gguf or a Hub id")
    run_dir: str | None = option(None, "output folder: checkpoints, metrics, config.yaml and the final model/ "
                                       "(default: runs/<trainer>-<date>-<time>)")
    # which weights train
    fine_tune: str = option("lora", "which weights train: lora (low-rank adapters) or full (every weight)")
    lora_rank: int = option(16, "rank of the LoRA matrices")
    lora_scale: float = option(20.0, "scale of the LoRA update (mlx-lm's convention, not alpha/rank)")
    lora_dropout: float = option(0.0, "dropout on the LoRA input, in [0, 1)")
    lora_layers: int = option(-1, "how many of the last transformer blocks get LoRA; -1: all")
    lora_keys: list[str] | None = option(None, "module paths inside a block that get LoRA, e.g. "
                                               "self_attn.q_proj,mlp.down_proj (default: every linear)")
    grad_checkpoint: bool = option(False, "recompute blocks' activations in the backward pass: less memory, "
                                          "more time")
    checkpoint_every: int = option(1, "with --grad-checkpoint: every Nth block recomputes (1: all, 3: a third)")
    # CPU: softmax, SwiGLU and logsumexp through nanoagent's compiled kernels when built (python -m
    # nanoagent.native.build; setup.sh builds them on x86-64 Linux): faster, with MLX's own memory use
    native_ops: bool = option(True, "CPU: softmax, SwiGLU and logsumexp through the compiled kernels when built "
                                    "(python -m nanoagent.native.build)")
    # optimizer (AdamW, warmup then cosine to learning_rate * min_lr_ratio)
    steps: int = option(200, "optimizer steps")
    learning_rate: float = option(2e-4, "peak learning rate (AdamW; linear warmup, then cosine decay)")
    min_lr_ratio: float = option(0.1, "the cosine decay ends at learning_rate times this (1: constant)")
    warmup_steps: int = option(10, "steps of linear warmup to the peak learning rate")
    weight_decay: float = option(0.0, "AdamW weight decay")
    beta1: float = option(0.9, "AdamW beta1")
    beta2: float = option(0.999, "AdamW beta2")
    grad_clip: float = option(1.0, "clip the global gradient norm to this; 0: no clipping")
    seed: int = option(0, "random seed (data order, LoRA init, dropout, sampling)")
    # checkpoints and output
    save_every: int = option(50, "save a checkpoint every N steps and at the end; 0: none")
    keep_checkpoints: int = option(2, "newest checkpoints kept; older ones are deleted (0: keep all)")
    resume: bool = option(True, "continue from the run folder's last checkpoint, with its config.yaml; "
                                "--no-resume starts over")
    force_config: bool = option(False, "on resume, let the settings given now replace the run's own")
    # the final model is the validated step that scored best, not the last (train.dft: the lowest validation
    # cross-entropy; train.grpo: the best greedy accuracy on held-out tool-call tasks, when val_n > 0)
    keep_best: bool = option(True, "the final model is the validated step that scored best, not the last")
    fuse: bool = option(True, "fuse LoRA into the saved model; --no-fuse keeps adapters beside the base weights")
    progress: bool = option(True, "show progress bars on stderr")
    plot: bool = option(True, "draw the run's curves into the run folder (train.dft: loss.png, train.grpo: grpo.png)")
    extra: dict = field(default_factory=dict, repr=False)  # free-form notes copied to the resolved config


# --help headings of the shared fields; each trainer adds its own fields to these and its own headings
GROUPS = {
    "model": ("model", "fine_tune", "lora_rank", "lora_scale", "lora_dropout", "lora_layers", "lora_keys",
              "grad_checkpoint", "checkpoint_every", "native_ops"),
    "optimisation": ("steps", "learning_rate", "min_lr_ratio", "warmup_steps", "weight_decay", "beta1", "beta2",
                     "grad_clip", "seed"),
    "output": ("run_dir", "save_every", "keep_checkpoints", "resume", "force_config", "keep_best", "fuse",
               "progress", "plot"),
}


def groups(**more: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """GROUPS with `more` fields under each heading (a new heading where it names one GROUPS lacks), in the order
    data, model, optimisation, then the rest, output last."""
    titles = ["data", "model", "optimisation", *[t for t in more if t not in ("data", "model", "optimisation",
                                                                             "output")], "output"]
    merged = {t: GROUPS.get(t, ()) + more.get(t, ()) for t in titles}
    return {t: names for t, names in merged.items() if names}


def check_training(cfg: TrainingConfig) -> TrainingConfig:
    """The shared fields' ranges; ConfigError names the key."""
    if cfg.fine_tune not in FINE_TUNES:
        raise ConfigError(f"config key 'fine_tune': {cfg.fine_tune!r} is not one of {', '.join(FINE_TUNES)}")
    for key in ("steps", "lora_rank", "checkpoint_every"):
        if getattr(cfg, key) <= 0:
            raise ConfigError(f"config key {key!r} must be positive, got {getattr(cfg, key)}")
    if cfg.learning_rate <= 0:
        raise ConfigError(f"config key 'learning_rate' must be positive, got {cfg.learning_rate}")
    if not 0 <= cfg.lora_dropout < 1:
        raise ConfigError(f"config key 'lora_dropout' must be in [0, 1), got {cfg.lora_dropout}")
    return cfg


def given_keys(parser, argv: list[str] | None) -> set[str]:
    """The settings a command line states itself: its flags and the keys of its --config YAML."""
    args = vars(parser.parse_args(argv))
    path = args.pop("config", None)
    return set(args) | (set(layered.read_yaml_mapping(path)) if path else set())


def resumed_config(cfg, saved: dict, given: set[str], safe: set[str], rebuild, legacy: dict | None = None,
                   aliases: dict | None = None):
    """The config a resumed run continues with: the run's saved config, with the settings given now only where
    they are in `safe` or with `force_config`. A given setting that would change the run otherwise is a
    ConfigError naming it and both values. `rebuild(values, base, source)` applies values over a config.

    A setting the saved config lacks (the run predates it) is what the run did then: `legacy[key]` when the
    setting's default has since changed behaviour, else its default; it is compared and kept like a saved one.
    `aliases[key]`: a value given now that stands for the saved one (what the run was asked for before it adapted
    the setting itself, e.g. train.dft's memory fit): such a setting counts as not given."""
    fields = type(cfg).__dataclass_fields__
    defaults = dataclasses.asdict(type(cfg)())
    saved = {k: v for k, v in saved.items() if k != "extra" and k in fields}
    saved = {**{k: (legacy or {}).get(k, defaults[k]) for k in fields if k != "extra" and k not in saved}, **saved}
    now = dataclasses.asdict(cfg)
    given = {k for k in given if not (aliases and k in aliases and now.get(k) == aliases[k])}
    clashes = [k for k in sorted(given & set(saved)) if k not in safe and now[k] != saved[k]]
    if clashes and not cfg.force_config:
        said = "; ".join(f"{k}: the run has {saved[k]!r}, now {now[k]!r}" for k in clashes)
        raise ConfigError(f"{cfg.run_dir} is a run with other settings ({said}). Resume without them, use "
                          "another --run-dir, --no-resume to start this folder over, or --force-config to continue "
                          "with the new settings")
    # run_dir is where we are; resume and force_config are choices of this command, never the run's
    keep = {k: v for k, v in saved.items() if k not in given and k not in ("run_dir", "resume", "force_config")}
    return rebuild(keep, cfg, f"{cfg.run_dir}/config.yaml")


def resume_settings(cfg, argv, parser, safe: set[str], rebuild, legacy: dict | None = None, aliases_of=None):
    """`cfg` as the run folder's own settings when it will resume (a usable checkpoint and a config.yaml), else
    `cfg`. The checkpoint is looked at first (silently: the trainer reports damage once), so a damaged run is
    reported before anything in its folder is written. `aliases_of(saved values)` gives resumed_config's aliases;
    the saved config's `extra` notes carry over."""
    from train.checkpoint import usable_checkpoint

    if not (cfg.resume and cfg.run_dir):
        return cfg
    saved = Path(cfg.run_dir) / "config.yaml"
    latest = usable_checkpoint(cfg.run_dir, say=lambda msg: None)
    if latest is None or not saved.is_file():
        return cfg
    try:
        values = yaml.safe_load(saved.read_text(encoding="utf-8")) or {}
    except (yaml.YAMLError, UnicodeDecodeError) as e:
        raise ConfigError(f"{saved} is not readable YAML ({type(e).__name__}); the run folder is damaged: "
                          "--no-resume starts it over") from None
    given = given_keys(parser, argv)
    resumed = resumed_config(cfg, values, given, safe, rebuild, legacy, aliases_of(values) if aliases_of else None)
    resumed.extra = {**(values.get("extra") or {}), **resumed.extra}
    print(f"resuming {cfg.run_dir} from {latest.name} with its own settings ({saved}; the command line set: "
          f"{', '.join(sorted(given - {'run_dir'})) or 'nothing else'})", flush=True)
    return resumed
