"""The one config of the SFT/DFT stage: a dataclass with defaults, overridden by a YAML file, overridden by flags.

    cfg = load_config(["--config", "my.yaml", "--steps", "50", "--no-fuse"])

Precedence is defaults < YAML < command-line flags, and "not given" is not "false": a flag left off the command
line never overrides the YAML. An unknown YAML key or a bad value is an error that names it (with the closest
valid key) before any model is loaded. `save_config(cfg, folder)` writes the resolved config as `config.yaml`.

Defaults suit an M1 Mac and the 135M model: LoRA rank 16 on every linear layer of every block, batch 4, length
1024, DFT loss, 200 steps. Left out: dotted nested keys (the config is flat on purpose).
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import typing
from dataclasses import dataclass, field, fields
from pathlib import Path

import yaml

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
    recipe: str | None = None  # recipe passed to data_recipes.build.build when `data` is missing
    heldout: str | None = None  # JSONL of tool-calling records for the validity check; None: valid.jsonl
    run_dir: str | None = None  # output folder; None: runs/dft-<time>
    # method
    loss: str = "dft"  # dft | sft
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
    seed: int = 0
    # evaluation, checkpoints, output
    val_every: int = 50
    val_batches: int = 0  # 0: the whole validation set
    validity_n: int = 16  # held-out tool-calling prompts scored before and after training; 0 disables
    validity_max_tokens: int = 96
    save_every: int = 50
    keep_checkpoints: int = 2
    resume: bool = True  # continue from the run folder's last checkpoint if there is one
    fuse: bool = True  # fuse LoRA into the saved model; --no-fuse keeps adapters beside the base weights
    progress: bool = True
    plot: bool = True
    extra: dict = field(default_factory=dict, repr=False)  # free-form notes copied to the resolved config


class ConfigError(ValueError):
    pass


def _field_types() -> dict[str, typing.Any]:
    hints = typing.get_type_hints(DFTConfig)
    return {f.name: hints[f.name] for f in fields(DFTConfig)}


def _base_type(tp):
    args = [a for a in typing.get_args(tp) if a is not type(None)]
    return args[0] if args else tp


def _coerce(key: str, value, tp):
    if value is None:
        if type(None) in typing.get_args(tp):
            return None
        raise ConfigError(f"config key {key!r} cannot be null")
    base = _base_type(tp)
    origin = typing.get_origin(base)
    try:
        if origin is list:
            if isinstance(value, str):
                value = [v.strip() for v in value.split(",") if v.strip()]
            if not isinstance(value, list):
                raise TypeError
            return [str(v) for v in value]
        if base is dict:
            if not isinstance(value, dict):
                raise TypeError
            return value
        if base is bool:
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.lower() in ("true", "false", "yes", "no", "1", "0"):
                return value.lower() in ("true", "yes", "1")
            raise TypeError
        if base is int and isinstance(value, float) and not value.is_integer():
            raise TypeError
        if base in (int, float) and isinstance(value, bool):
            raise TypeError
        return base(value)
    except (TypeError, ValueError):
        raise ConfigError(f"config key {key!r}: {value!r} is not a valid {getattr(base, '__name__', base)}") from None


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
    if not 0 <= cfg.lora_dropout < 1:
        raise ConfigError(f"config key 'lora_dropout' must be in [0, 1), got {cfg.lora_dropout}")
    return cfg


def from_dict(values: dict, base: DFTConfig | None = None, source: str = "config") -> DFTConfig:
    """Apply `values` over `base` (or the defaults); unknown keys and bad values raise ConfigError."""
    types = _field_types()
    unknown = [k for k in values if k not in types]
    if unknown:
        hints = []
        for k in unknown:
            close = difflib.get_close_matches(k, list(types), n=1)
            hints.append(f"{k!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
        raise ConfigError(f"{source}: unknown config key(s) {', '.join(hints)}. Valid keys: {', '.join(types)}")
    cfg = dataclasses.replace(base or DFTConfig())
    for k, v in values.items():
        setattr(cfg, k, _coerce(k, v, types[k]))
    return _check(cfg)


def add_dataclass_flags(parser: argparse.ArgumentParser, cls, types: dict, choices: dict) -> argparse.ArgumentParser:
    """One `--flag` per dataclass field (not given = not set, so YAML values survive); shared with train.grpo."""
    for f in fields(cls):
        if f.name == "extra":
            continue
        tp = _base_type(types[f.name])
        flag = "--" + f.name.replace("_", "-")
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
        kw = dict(dest=f.name, default=argparse.SUPPRESS, help=f"(default: {default!r})")
        if tp is bool:
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, **kw)
        elif f.name in choices:
            parser.add_argument(flag, choices=choices[f.name], **kw)
        elif typing.get_origin(tp) is list:
            parser.add_argument(flag, nargs="+", **kw)
        elif tp is dict:
            parser.add_argument(flag, type=str, **kw)
        else:
            parser.add_argument(flag, type=tp, **kw)
    return parser


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m train.dft",
                                description="Fine-tune a chat model with SFT or DFT (LoRA or full) in MLX.")
    p.add_argument("--config", help="YAML file with any of the keys below (flags override it)")
    return add_dataclass_flags(p, DFTConfig, _field_types(), CHOICES)


def load_config(argv: list[str] | None = None) -> DFTConfig:
    args = vars(build_parser().parse_args(argv))
    path = args.pop("config", None)
    cfg = DFTConfig()
    if path:
        cfg = from_dict(read_yaml_mapping(path), cfg, source=str(path))
    return from_dict(args, cfg, source="command line")


def read_yaml_mapping(path: str | Path) -> dict:
    """A YAML config file as a dict, or a ConfigError that names the file (shared with train.grpo_config)."""
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"config file {path} does not exist")
    data = yaml.safe_load(p.read_text()) or {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a config file must be a YAML mapping of key: value")
    return data


def to_dict(cfg: DFTConfig) -> dict:
    return dataclasses.asdict(cfg)


def save_config(cfg: DFTConfig, folder: str | Path, name: str = "config.yaml") -> Path:
    path = Path(folder) / name
    path.write_text(yaml.safe_dump(to_dict(cfg), sort_keys=False))
    return path
