"""Layered config for the eval commands: a dataclass's defaults < a YAML file (--config) < command-line flags.

    cfg = parse_config(ToolcallConfig, argv, description="...")

Every dataclass field becomes a flag (`--max-tokens 64`; booleans as `--flag/--no-flag`; lists comma-separated).
A flag left off never overrides the YAML ("not given" is not "false"). An unknown YAML key is an error naming the
closest valid key. Field help comes from `field(metadata={"help": ...})`.

Left out: nested keys (the eval configs are flat).
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import typing
from pathlib import Path

import yaml


class ConfigError(ValueError):
    pass


def _kind(tp) -> str:
    text = str(tp)
    if "list" in text:
        return "list"
    if "bool" in text:
        return "bool"
    if "int" in text:
        return "int"
    if "float" in text:
        return "float"
    return "str"


def _coerce(name: str, value, kind: str):
    if value is None:
        return None
    try:
        if kind == "list":
            return [s.strip() for s in value.split(",") if s.strip()] if isinstance(value, str) else list(value)
        if kind == "bool":
            if isinstance(value, bool):
                return value
            raise TypeError
        if kind == "int":
            if isinstance(value, bool):
                raise TypeError
            return int(value)
        if kind == "float":
            return float(value)
        return str(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{name}: {value!r} is not a valid {kind}") from None


def parse_config(cls, argv=None, description: str = ""):
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--config", help="YAML file with any of the settings below (flags override it)")
    for name, f in fields.items():
        kind, flag = _kind(hints[name]), "--" + name.replace("_", "-")
        help_text = f.metadata.get("help", "")
        if kind == "bool":
            parser.add_argument(flag, dest=name, action=argparse.BooleanOptionalAction, default=None, help=help_text)
        else:
            parser.add_argument(flag, dest=name, default=None, help=help_text)
    args = parser.parse_args(argv)
    values = {}
    if args.config:
        path = Path(args.config)
        if not path.is_file():
            raise ConfigError(f"config file {path} does not exist")
        data = yaml.safe_load(path.read_text()) or {}
        if not isinstance(data, dict):
            raise ConfigError(f"{path} must hold a mapping of settings")
        for key, value in data.items():
            if key not in fields:
                close = difflib.get_close_matches(key, fields, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise ConfigError(f"{path}: unknown setting {key!r}{hint}")
            values[key] = _coerce(key, value, _kind(hints[key]))
    for name in fields:
        given = getattr(args, name)
        if given is not None:
            values[name] = _coerce(name, given, _kind(hints[name]))
    return cls(**values)


def load_eval_backend(cfg):
    """The backend for `cfg.model` (`cfg.threads` goes to llama.cpp); a ConfigError that names the model if it fails."""
    from nanoagent.agent.backends import BackendError, backend_kind, load_backend

    try:
        options = {"n_threads": cfg.threads} if cfg.threads and backend_kind(cfg.model) == "llamacpp" else {}
        return load_backend(cfg.model, **options)
    except (BackendError, OSError, ValueError) as e:
        raise ConfigError(f"could not load model {cfg.model!r}: {e}") from None
