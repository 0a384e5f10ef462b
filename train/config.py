"""The one config of the SFT/DFT stage: a dataclass with defaults, overridden by a YAML file, overridden by flags.

    cfg = load_config(["--config", "my.yaml", "--steps", "50", "--no-fuse"])

Precedence is defaults < YAML < command-line flags, and "not given" is not "false": a flag left off the command
line never overrides the YAML. An unknown YAML key or a bad value is an error that names it (with the closest
valid key) before any model is loaded. `save_config(cfg, folder)` writes the resolved config as `config.yaml`.
The layering itself is nanoagent/config.py; this module adds the fields, CHOICES and the range checks.

Defaults suit an M1 Mac and the 135M model: LoRA rank 16 on every linear layer of every block, batch 4, length
1024, SFT loss (cross-entropy on assistant tokens), 200 steps. Left out: dotted nested keys (the config is flat on purpose).
"""

from __future__ import annotations

import argparse
import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from nanoagent import config as layered
from nanoagent.atomic import write_text
from nanoagent.config import ConfigError  # the error train.dft and train.grpo catch

CHOICES = {
    "loss": ("dft", "sft"),
    "fine_tune": ("lora", "full"),
    "on_too_long": ("skip", "truncate", "error"),
    "on_bad_record": ("error", "skip"),
}


@dataclass
class DFTConfig:
    # what to train
    model: str = "embedded"  # "embedded", a local HF/MLX folder, or a Hub id (nanoagent.models.load)
    data: str | None = None  # folder with train.jsonl/valid.jsonl; None: the default recipe's output (built if missing)
    recipe: str | None = None  # with no `data`: train on data/<recipe name>, built by `python -m data_recipes.build`
    heldout: str | None = None  # JSONL of tool-calling records for the validity check; None: valid.jsonl
    run_dir: str | None = None  # output folder; None: runs/dft-<time>
    # method
    loss: str = "sft"  # sft | dft (DFT from the base model raised cross-entropy 1.08 -> 1.89 in 12 steps; see README)
    fine_tune: str = "lora"  # lora | full
    lora_rank: int = 16
    lora_scale: float = 20.0  # mlx-lm's convention: the LoRA update is scaled by this (not alpha/rank)
    lora_dropout: float = 0.0
    lora_layers: int = -1  # how many of the last transformer blocks get LoRA; -1: all
    lora_keys: list[str] | None = None  # module paths inside a block, e.g. [self_attn.q_proj]; None: every linear
    # batches
    # 2 x 2 accumulated: an effective batch of 4 at about half the peak memory of 4 x 1 (10.9 GB measured at
    # 4 x 1024 on the 135M model), so the defaults fit an 8 GB M1.
    batch_size: int = 2  # global batch per micro-step (split across data-parallel ranks)
    grad_accum: int = 2
    max_length: int = 1024
    pack: bool = False  # pack several records per row with block-diagonal attention instead of padding
    on_too_long: str = "skip"  # records longer than max_length: skip (counted), truncate, or error
    on_bad_record: str = "error"  # malformed records: error (names file:line) or skip (counted)
    # loss weight of the first token of every assistant reply, where the model decides between a <tool_call> and
    # plain text; 1 is plain SFT. Validation cross-entropy is always unweighted.
    decision_weight: float = 1.0
    # optimizer
    steps: int = 200
    learning_rate: float = 2e-4
    min_lr_ratio: float = 0.1  # cosine decays to learning_rate * min_lr_ratio
    warmup_steps: int = 10
    weight_decay: float = 0.0
    beta1: float = 0.9
    beta2: float = 0.999
    grad_clip: float = 1.0  # max global gradient norm; 0 disables
    grad_checkpoint: bool = False
    numpy_ops: bool = False  # CPU: softmax, SwiGLU, logsumexp in numpy (nanoagent.numpy_ops); faster, far more memory
    seed: int = 0
    # evaluation, checkpoints, output
    val_every: int = 50
    val_batches: int = 0  # 0: the whole validation set
    validity_n: int = 16  # held-out tool-calling prompts scored before and after training; 0 disables
    validity_max_tokens: int = 96
    save_every: int = 50
    keep_checkpoints: int = 2
    keep_best: bool = True  # the final model is the step with the lowest validation cross-entropy, not the last
    resume: bool = True  # continue from the run folder's last checkpoint if there is one (its config.yaml too)
    force_config: bool = False  # on resume, let the settings given now replace the run's own (see resumed_config)
    fuse: bool = True  # fuse LoRA into the saved model; --no-fuse keeps adapters beside the base weights
    progress: bool = True
    plot: bool = True
    extra: dict = field(default_factory=dict, repr=False)  # free-form notes copied to the resolved config


def _check(cfg: DFTConfig) -> DFTConfig:
    for key, allowed in CHOICES.items():
        if getattr(cfg, key) not in allowed:
            raise ConfigError(f"config key {key!r}: {getattr(cfg, key)!r} is not one of {', '.join(allowed)}")
    positive = ["batch_size", "grad_accum", "max_length", "steps", "lora_rank"]
    for key in positive:
        if getattr(cfg, key) <= 0:
            raise ConfigError(f"config key {key!r} must be positive, got {getattr(cfg, key)}")
    if cfg.learning_rate <= 0:
        raise ConfigError(f"config key 'learning_rate' must be positive, got {cfg.learning_rate}")
    if cfg.decision_weight <= 0:
        raise ConfigError(f"config key 'decision_weight' must be positive, got {cfg.decision_weight}")
    if not 0 <= cfg.lora_dropout < 1:
        raise ConfigError(f"config key 'lora_dropout' must be in [0, 1), got {cfg.lora_dropout}")
    return cfg


def from_dict(values: dict, base: DFTConfig | None = None, source: str = "config") -> DFTConfig:
    """Apply `values` over `base` (or the defaults); unknown keys and bad values raise ConfigError."""
    return _check(layered.from_dict(DFTConfig, values, base, source))


def build_parser() -> argparse.ArgumentParser:
    return layered.build_parser(DFTConfig, "Fine-tune a chat model with SFT or DFT (LoRA or full) in MLX.",
                               prog="python -m train.dft", choices=CHOICES, skip=("extra",))


def load_config(argv: list[str] | None = None) -> DFTConfig:
    return _check(layered.load(DFTConfig, argv, build_parser()))


def given_keys(argv: list[str] | None) -> set[str]:
    """The settings a command line states itself: its flags and the keys of its --config YAML."""
    args = vars(build_parser().parse_args(argv))
    path = args.pop("config", None)
    return set(args) | (set(layered.read_yaml_mapping(path)) if path else set())


# What may change when a run resumes: how long it runs and how it reports, not what it trains.
RESUME_SAFE = {"steps", "val_every", "val_batches", "save_every", "keep_checkpoints", "validity_n",
               "validity_max_tokens", "progress", "plot", "resume", "force_config", "run_dir", "keep_best", "fuse"}


def resumed_config(cfg: DFTConfig, saved: dict, given: set[str]) -> DFTConfig:
    """The config a resumed run continues with: the run's saved `config.yaml`, with the settings given now only
    where they are safe to change (RESUME_SAFE) or with `force_config`. A given setting that would change the
    run otherwise is a ConfigError naming it and both values. Settings not given now come from the run."""
    saved = {k: v for k, v in saved.items() if k != "extra" and k in DFTConfig.__dataclass_fields__}
    now = to_dict(cfg)
    clashes = [k for k in sorted(given & set(saved)) if k not in RESUME_SAFE and now[k] != saved[k]]
    if clashes and not cfg.force_config:
        said = "; ".join(f"{k}: the run has {saved[k]!r}, now {now[k]!r}" for k in clashes)
        raise ConfigError(f"{cfg.run_dir} is a run with other settings ({said}). Resume without them, use "
                          "another --run-dir, --no-resume to start this folder over, or --force-config to continue "
                          "with the new settings")
    # run_dir is where we are; resume and force_config are choices of this command, never the run's
    keep = {k: v for k, v in saved.items() if k not in given and k not in ("run_dir", "resume", "force_config")}
    return from_dict(keep, cfg, f"{cfg.run_dir}/config.yaml")


def to_dict(cfg: DFTConfig) -> dict:
    return dataclasses.asdict(cfg)


def save_config(cfg: DFTConfig, folder: str | Path, name: str = "config.yaml") -> Path:
    path = Path(folder) / name
    write_text(path, yaml.safe_dump(to_dict(cfg), sort_keys=False))
    return path
