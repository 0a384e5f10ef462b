"""Layered config for every stage: a dataclass's defaults < a YAML file (`--config`) < command-line flags.

    @dataclass
    class MyConfig:
        steps: int = option(10, "optimizer steps")                  # field(default=10, metadata={"help": ...})
        tags: list[str] = field(default_factory=list, metadata={"help": "comma-separated or space-separated"})

    cfg = load(MyConfig, ["--config", "my.yaml", "--steps", "50"])        # parse argv, then resolve
    cfg = resolve(MyConfig, "my.yaml", {"steps": 50})                      # already-parsed flags
    parser = build_parser(MyConfig, "what it does", choices={"loss": ("a", "b")})

Every field becomes a flag (`max_tokens` -> `--max-tokens`; booleans as `--x/--no-x`; lists as several values or
comma-separated) whose argparse default is SUPPRESS, so a flag left off never overrides the YAML ("not given" is
not "false"). Values from YAML and flags are coerced to the field's type (str, int, float, bool including the
strings "true"/"false"; a float must be finite, a string not a boolean), Optional[...], a union tried in order,
list[str] (comma-separated values split), an untyped list (YAML items kept as written), dict, a nested dataclass
from a mapping and list[dataclass] from a list of mappings); a bad value or an unknown key (with the closest valid one) is a
ConfigError that names it by its path (`sources[0].weight`). Stages keep their own checks (choices, ranges) and run
them on the result.

A flag's help is its field's `metadata["help"]` (`option(default, help)` declares both), with the default appended
as a flag would give it (`toolcall=0.7,coding=0.3`, `on`); `groups` puts flags under headings in --help.
Hand-built argparse parsers show their defaults the same way with `formatter_class=HelpFormatter`.

Flags cover flat fields only: stage configs are flat on purpose; the data recipe (data_recipes/recipe.py) is the
one nested config and takes dotted `--set` overrides instead. `save_resolved(cfg, path)` is the one way a resolved
config is saved (YAML or JSON by the file's suffix, written atomically); `check_weights` checks the `name=weight`
mixes that `parse_weights` reads.
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import difflib
import math
import re
import types
import typing
from pathlib import Path
from typing import Callable

import yaml

from nanoagent.atomic import write_json, write_text

_TRUE, _FALSE = ("true", "yes", "on", "1"), ("false", "no", "off", "0")
_OWN_DEFAULT = re.compile(r"\(default\b|\bdefault:", re.IGNORECASE)  # a help text that words its own default


class ConfigError(ValueError):
    """A bad config file, key or value; the message names it."""


def read_yaml_mapping(path: str | Path) -> dict:
    """A YAML config file as a dict, or a ConfigError that names the file and what is wrong with it."""
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"config file {path} does not exist")
    try:
        data = yaml.safe_load(p.read_text(encoding="utf-8"))
    except UnicodeDecodeError as e:
        raise ConfigError(f"config file {path} is not UTF-8 text (byte {e.object[e.start]:#x} at offset {e.start}); "
                          "give a YAML file") from None
    except yaml.YAMLError as e:
        where = getattr(e, "problem_mark", None)
        at = f" at line {where.line + 1}, column {where.column + 1}" if where is not None else ""
        raise ConfigError(f"config file {path} is not valid YAML{at}: "
                          f"{getattr(e, 'problem', None) or str(e).splitlines()[0]}") from None
    except OSError as e:
        raise ConfigError(f"config file {path}: cannot read it ({e.strerror or e})") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"config file {path} must be a YAML mapping of key: value, got a {type(data).__name__}")
    return data


def field_types(cls) -> dict[str, typing.Any]:
    """Field name -> resolved type annotation, in declaration order."""
    hints = typing.get_type_hints(cls)
    return {f.name: hints[f.name] for f in dataclasses.fields(cls)}


def _base(tp):
    """`X | None` -> X."""
    args = [a for a in typing.get_args(tp) if a is not type(None)]
    return args[0] if len(args) == 1 and type(None) in typing.get_args(tp) else tp


def coerce(key: str, value, tp):
    """`value` (from YAML or a flag) as type `tp`, or a ConfigError naming `key`."""
    if value is None:
        if type(None) in typing.get_args(tp):
            return None
        raise ConfigError(f"config key {key!r} cannot be null")
    base = _base(tp)
    members = [a for a in typing.get_args(base) if a is not type(None)]
    if typing.get_origin(base) in (typing.Union, types.UnionType) and members:
        for member in members:  # `dict | list | None`: the first member the value fits
            try:
                return coerce(key, value, member)
            except ConfigError:
                continue
        names = " or ".join(getattr(m, "__name__", str(m)) for m in members)
        raise ConfigError(f"config key {key!r}: {value!r} is not a valid {names}")
    if dataclasses.is_dataclass(base):
        if not isinstance(value, dict):
            raise ConfigError(f"config key {key!r}: expected a mapping of key: value, got {value!r}")
        return from_dict(base, value, source=key, prefix=key)
    item = (typing.get_args(base) or (None,))[0]
    if typing.get_origin(base) is list and dataclasses.is_dataclass(item):
        if not isinstance(value, (list, tuple)):
            raise ConfigError(f"config key {key!r}: expected a list of mappings, got {value!r}")
        return [coerce(f"{key}[{i}]", v, item) for i, v in enumerate(value)]
    name = getattr(base, "__name__", str(base))
    try:
        if base is list:  # an untyped list (YAML only): its items as written
            if not isinstance(value, (list, tuple)):
                raise TypeError
            return list(value)
        if typing.get_origin(base) is list:  # list[str]: a flag's values may also be comma-separated
            items = [value] if isinstance(value, str) else value
            if not isinstance(items, (list, tuple)):
                raise TypeError
            return [s.strip() for v in items for s in str(v).split(",") if s.strip()]
        if base is dict:
            if not isinstance(value, dict):
                raise TypeError
            return dict(value)
        if isinstance(value, (list, dict)):
            raise TypeError
        if base is bool:
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.lower() in _TRUE + _FALSE:
                return value.lower() in _TRUE
            raise TypeError
        if base in (int, float, str) and isinstance(value, bool):  # `out: true` is a mistake, not the name "True"
            raise TypeError
        if base is int and isinstance(value, float) and not value.is_integer():
            raise TypeError
        out = base(value)
        if base is float and not math.isfinite(out):
            raise ValueError
        return out
    except (TypeError, ValueError):
        raise ConfigError(f"config key {key!r}: {value!r} is not a valid {name}") from None


def check_keys(keys, cls, source: str = "config") -> None:
    """A ConfigError naming every key that is not a field of `cls`, each with the closest valid key."""
    valid = [f.name for f in dataclasses.fields(cls)]
    unknown = [k for k in keys if k not in valid]
    if not unknown:
        return
    hints = []
    for k in unknown:
        close = difflib.get_close_matches(str(k), valid, n=1)
        hints.append(f"{k!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    raise ConfigError(f"{source}: unknown config key(s) {', '.join(hints)}. Valid keys: {', '.join(valid)}")


def from_dict(cls, values: dict, base=None, source: str = "config",
              parsers: dict[str, Callable] | None = None, prefix: str = ""):
    """`values` applied over `base` (default: the defaults of `cls`); `parsers[key]` replaces the type coercion.
    `prefix` names a nested config in messages (`filters` -> `filters.max_tokens`)."""
    check_keys(values, cls, source)
    hints, parsers = field_types(cls), parsers or {}
    coerced = {k: parsers[k](v) if k in parsers else coerce(f"{prefix}.{k}" if prefix else k, v, hints[k])
               for k, v in values.items()}
    if base is not None:
        return dataclasses.replace(base, **coerced)
    missing = [f.name for f in dataclasses.fields(cls) if f.name not in coerced
               and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
    if missing:
        raise ConfigError(f"{source}: missing required key(s) {', '.join(map(repr, missing))}")
    return cls(**coerced)


def resolve(cls, yaml_path: str | Path | None = None, flags: dict | None = None,
            parsers: dict[str, Callable] | None = None):
    """Defaults < the YAML file at `yaml_path` < `flags` (only the flags actually given)."""
    cfg = cls()
    if yaml_path:
        cfg = from_dict(cls, read_yaml_mapping(yaml_path), cfg, str(yaml_path), parsers)
    return from_dict(cls, flags or {}, cfg, "command line", parsers)


def option(default, help: str):
    """A dataclass field with a default and its flag's help: `steps: int = option(10, "optimizer steps")`. A list or
    dict default is copied for each instance."""
    if isinstance(default, (list, dict)):
        return dataclasses.field(default_factory=lambda: copy.deepcopy(default), metadata={"help": help})
    return dataclasses.field(default=default, metadata={"help": help})


def field_help(cls, name: str) -> str:
    """The help of field `name`: its own `metadata["help"]`, else that of the nearest base class declaring it (a
    subclass that redeclares a field only to change its default keeps the help)."""
    for klass in cls.__mro__:
        f = getattr(klass, "__dataclass_fields__", {}).get(name)
        if f is not None and f.metadata.get("help"):
            return f.metadata["help"]
    return ""


def show_default(value) -> str:
    """A default as a flag would give it: `toolcall=0.7,coding=0.3` for a mapping, `a,b` for a list, on/off for a
    boolean, `none` for None, `1` for 1.0."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if value is None:
        return "none"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if isinstance(value, dict):
        return ",".join(f"{k}={show_default(v)}" for k, v in value.items()) or "none"
    if isinstance(value, (list, tuple)):
        return ",".join(show_default(v) for v in value) or "none"
    return str(value) if value != "" else "''"


def _with_default(text: str, default) -> str:
    """`text (default: X)`, unless `text` words its own default ("(default ...", "default: ...") or there is none
    (None, an empty list); `%` escaped for argparse."""
    if _OWN_DEFAULT.search(text) or default is None or (isinstance(default, (list, tuple, dict)) and not default):
        return text
    return f"{text} (default: {show_default(default).replace('%', '%%')})".strip()


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, showing each option's default as `show_default` words it, unless its help words it
    already or there is none worth showing (None, an empty list, a store_true flag, a required positional
    argument)."""

    def _get_help_string(self, action):
        text = action.help or ""
        positional = not action.option_strings and action.nargs not in ("?", "*")
        if (text == argparse.SUPPRESS or positional or action.default is argparse.SUPPRESS
                or isinstance(action, (argparse._StoreConstAction, argparse._AppendConstAction,
                                       argparse._CountAction, argparse._HelpAction, argparse._VersionAction))):
            return text
        return _with_default(text, action.default)


def add_flags(parser: argparse.ArgumentParser, cls, choices: dict | None = None,
              skip: tuple[str, ...] = (), groups: dict[str, tuple[str, ...]] | None = None
              ) -> argparse.ArgumentParser:
    """One `--flag` per field (not given = absent from the namespace); help from `field(metadata={"help": ...})`
    (a base class's when the field is redeclared), with the default appended. `groups`: title -> field names, shown
    under that heading in --help (in the order given); fields in no group stay under "options"."""
    hints, choices = field_types(cls), choices or {}
    sections = {title: parser.add_argument_group(title) for title in groups or {}}
    home = {name: sections[title] for title, names in (groups or {}).items() for name in names}
    for f in dataclasses.fields(cls):
        if f.name in skip:
            continue
        base = _base(hints[f.name])
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
        text = field_help(cls, f.name).replace("%", "%%")  # plain text: argparse would read % as a format
        kw = dict(dest=f.name, default=argparse.SUPPRESS, help=_with_default(text, default))
        flag = "--" + f.name.replace("_", "-")
        target = home.get(f.name, parser)
        if base is bool:
            target.add_argument(flag, action=argparse.BooleanOptionalAction, **kw)
        elif typing.get_origin(base) is list or base is list:
            target.add_argument(flag, nargs="+", **kw)
        else:  # a string, coerced (and its error worded) by `coerce`
            target.add_argument(flag, choices=choices.get(f.name), **kw)
    return parser


def build_parser(cls, description: str = "", prog: str | None = None, choices: dict | None = None,
                 skip: tuple[str, ...] = (), groups: dict[str, tuple[str, ...]] | None = None
                 ) -> argparse.ArgumentParser:
    """`--config` plus one flag per field of `cls` (grouped by `groups`, as add_flags takes them)."""
    parser = argparse.ArgumentParser(prog=prog, description=description, formatter_class=HelpFormatter)
    parser.add_argument("--config", help="YAML file with any of the keys below (flags override it)")
    return add_flags(parser, cls, choices, skip, groups)


def load(cls, argv: list[str] | None = None, parser: argparse.ArgumentParser | None = None,
         parsers: dict[str, Callable] | None = None, description: str = "", prog: str | None = None):
    """Parse `argv` with `parser` (default: `build_parser(cls, description, prog)`), then resolve defaults <
    `--config` < flags."""
    args = vars((parser or build_parser(cls, description, prog)).parse_args(argv))
    return resolve(cls, args.pop("config", None), args, parsers)


def parse_weights(value, key: str, bare: float | None = None) -> dict:
    """`name=1,other=0.2` (a flag) or a mapping (YAML) -> {name: weight}; a bare `name` gets weight `bare` (None:
    an error). The names and the numbers' ranges are the caller's to check."""
    if isinstance(value, dict):
        return dict(value)
    if not isinstance(value, str):
        raise ConfigError(f"config key {key!r}: {value!r} must be a mapping like name=1,other=0.2")
    out = {}
    for part in filter(None, (p.strip() for p in value.split(","))):
        name, sep, w = part.partition("=")
        if not sep and bare is None:
            raise ConfigError(f"config key {key!r}: {part!r} must be name=weight, e.g. {name.strip() or 'name'}=1")
        try:
            out[name.strip()] = float(w) if sep else bare
        except ValueError:
            raise ConfigError(f"config key {key!r}: weight {w.strip()!r} for {name.strip()!r} is not a number") \
                from None
    return out


def check_weights(weights, known, what: str, negative: bool = True) -> dict[str, float]:
    """Weights by name, each name one of `known`; a ConfigError for an unknown name, a weight that is not a finite
    number (or below 0 with negative=False), an empty mix or every weight 0. `what` names what is weighed."""
    example = next(iter(known))
    if not isinstance(weights, dict) or not weights:
        raise ConfigError(f"{what} weights must be a mapping like {{{example!r}: 1.0}}, got {weights!r}")
    clean = {}
    for name, w in weights.items():
        if name not in known:
            raise ConfigError(f"unknown {what} {name!r}: use one of {', '.join(known)}")
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not math.isfinite(w) or (w < 0 and not negative):
            raise ConfigError(f"{what} weight for {name!r} is {w!r}: it must be a number"
                              + ("" if negative else ", at least 0"))
        clean[name] = float(w)
    if not any(clean.values()):
        raise ConfigError(f"every {what} weight is 0: give at least one {what} a non-zero weight")
    return clean


def as_dict(cfg) -> dict:
    """A resolved config as plain data: its own `to_dict()` where it has one (the data recipe), else its fields."""
    return cfg.to_dict() if hasattr(cfg, "to_dict") else dataclasses.asdict(cfg)


def save_resolved(cfg, path: str | Path, extra: dict | None = None) -> Path:
    """Save a resolved config (its fields, then the `extra` keys) atomically: YAML for a .yaml/.yml path, else JSON."""
    values = {**as_dict(cfg), **(extra or {})}
    path = Path(path)
    if path.suffix in (".yaml", ".yml"):
        return write_text(path, yaml.safe_dump(values, sort_keys=False, allow_unicode=True))
    return write_json(path, values, ensure_ascii=False, default=str)
