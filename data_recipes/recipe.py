"""Recipes are data: one dataclass per part of the build, filled from defaults < YAML < command-line overrides.

A recipe YAML (see data_recipes/recipes/default.yaml):

    name: default
    seed: 0
    out: data/default
    sources:
      - {id: xlam, take: 20000, rows: 5000}            # Hub id/config/split from data_recipes.sources
      - {id: hermes_v1, config: func_calling, weight: 2}
      - {id: chatml_fc, path: my_rows.jsonl}            # a local JSONL/Parquet file in the source's schema
      - {id: synthetic, rows: 2000, kinds: [single, parallel]}
    filters: {max_tokens: 2048, max_response_tokens: 512}
    dedup: {jaccard: 0.7}
    decontam: {ngram: 8}

`load_recipe(path, overrides)` validates everything before any work starts: unknown keys (with the closest valid
one) or source ids, a missing file, a weight that is not a number, a config or split the source doesn't have all
raise `RecipeError` naming the field and what to do. Reading and typing the YAML is the shared layered config's
(nanoagent/config.py, nested dataclasses); the checks that need the source catalogue are `validate` here. Overrides are dotted keys (`seed=3`, `filters.max_tokens=1024`,
`sources.xlam.rows=100`, `sources.xlam=null` drops an entry) applied after the YAML.

Left out: recipe inheritance (`extends:`); copy a recipe and edit it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

from data_recipes.sources import SOURCES
from nanoagent.config import ConfigError, check_keys, from_dict, read_yaml_mapping

RECIPES = Path(__file__).parent / "recipes"
DEFAULT_RECIPE = RECIPES / "default.yaml"


class RecipeError(ConfigError):
    """A recipe that cannot be built as written; the message names the field and what to do."""


@dataclass
class SourceEntry:
    id: str                              # a name from data_recipes.sources.SOURCES
    hub: str | None = None               # Hub dataset id (default: the catalogue's)
    config: str | None = None            # dataset config (default: the catalogue's)
    split: str | None = None             # split (default: the catalogue's)
    path: str | None = None              # local .jsonl/.json/.parquet in the source's schema, or "fixture"
    take: int | None = None              # read at most this many raw rows (big Hub sources)
    rows: int | None = None              # cap after filtering and dedup; synthetic: rows to generate
    weight: float = 1.0                  # rows kept = weight x available (>1 repeats rows), then the cap
    filters: dict = field(default_factory=dict)  # per-source overrides of `filters`
    kinds: dict | list | None = None     # synthetic only: kinds (list) or kind -> weight (dict)
    prose_schema: float = 0.0            # synthetic only: share of rows whose tools say choices/defaults in prose
    settings: float | None = None        # synthetic only: share of call rows offering generic optional settings
    settings_stated: float | None = None  # synthetic only: share of the one-call rows with settings that state one
    check_split: bool = True             # validate config/split against the catalogue


@dataclass
class FilterConfig:
    max_tokens: int = 2048               # whole rendered record, with the real tokenizer; longer rows dropped
    max_response_tokens: int = 400       # an assistant text longer than this is cut at a paragraph/sentence end
    min_keep_fraction: float = 0.5       # ...if what is kept is at least this fraction of the cap; else dropped
    strip_think: bool = True             # remove <think>...</think> from assistant turns
    check_schema: bool = True            # every call's arguments must fit its tool's JSON Schema


@dataclass
class DedupConfig:
    exact: bool = True
    near: bool = True
    num_perm: int = 128                  # MinHash permutations
    shingle: int = 2                     # word n-gram size (2 kept recall >= 0.95 up to 5% word edits)
    lsh_threshold: float = 0.5           # LSH band threshold (candidates); kept low for recall
    jaccard: float = 0.7                 # verified Jaccard on the shingle sets: at or above is a near-duplicate


@dataclass
class DecontamConfig:
    enabled: bool = True
    ngram: int = 6                       # word n-grams; eval texts shorter than this are too generic to match on
    overlap: float = 0.5                 # a row is contaminated if it holds this fraction of one eval text's n-grams
    min_ngrams: int = 3                  # ...and at least this many of them (all of them for shorter eval texts)
    bfcl: list = field(default_factory=lambda: [
        "simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance", "live_simple",
        "live_multiple", "live_parallel", "live_parallel_multiple", "live_irrelevance", "live_relevance"])
    coding_tasks: list = field(default_factory=lambda: ["held-out", "humaneval"])  # nanoagent.tasks sets, if present
    files: list = field(default_factory=list)  # more eval sets: JSONL of canonical records or {"prompt": str}
    against_valid: bool = True           # remove train rows that overlap our own validation split
    function_names: bool = True          # remove rows that offer a tool named like a BFCL function (exact name)


@dataclass
class Recipe:
    name: str = "default"
    seed: int = 0
    out: str = "data/default"
    tokenizer: str = "embedded"          # nanoagent.models.load_tokenizer spec
    hub: str = "auto"                    # auto: use the Hub when reachable, else fixtures; offline: fixtures only
    hub_timeout: float = 3.0             # seconds for the reachability probe
    num_proc: int = 2                    # worker processes for convert/filter/fingerprint
    valid_fraction: float = 0.05         # held out per source before mixing
    valid_max_rows: int = 1000
    sources: list[SourceEntry] = field(default_factory=list)
    filters: FilterConfig = field(default_factory=FilterConfig)
    dedup: DedupConfig = field(default_factory=DedupConfig)
    decontam: DecontamConfig = field(default_factory=DecontamConfig)

    def to_dict(self) -> dict:
        return asdict(self)


def _set_dotted(data: dict, key: str, value: Any) -> None:
    parts = key.split(".")
    if parts[0] == "sources" and len(parts) >= 2:
        entries = data.setdefault("sources", [])
        idx = next((i for i, e in enumerate(entries) if isinstance(e, dict) and e.get("id") == parts[1]), None)
        if len(parts) == 2:
            if value is None:
                if idx is not None:
                    entries.pop(idx)
                return
            if not isinstance(value, dict):
                raise RecipeError(f"override {key}: give a mapping like {{rows: 100}} or null")
            value = {"id": parts[1], **value}
            if idx is None:
                entries.append(value)
            else:
                entries[idx] = value
            return
        if idx is None:
            entries.append({"id": parts[1]})
            idx = len(entries) - 1
        target, parts = entries[idx], parts[2:]
    else:
        target = data
    for p in parts[:-1]:
        nxt = target.setdefault(p, {})
        if not isinstance(nxt, dict):
            raise RecipeError(f"override {key}: {p} is not a mapping")
        target = nxt
    target[parts[-1]] = value


def parse_override(text: str) -> tuple[str, Any]:
    """`"filters.max_tokens=1024"` -> ("filters.max_tokens", 1024); the value is read as YAML."""
    if "=" not in text:
        raise RecipeError(f"override {text!r}: write KEY=VALUE, e.g. seed=3 or sources.xlam.rows=100")
    key, raw = text.split("=", 1)
    return key.strip(), yaml.safe_load(raw) if raw.strip() else None


def load_recipe(path: str | Path | None = None, overrides: dict | None = None) -> Recipe:
    """Defaults < YAML at `path` (None: the default recipe) < `overrides` (dotted keys or nested dicts)."""
    path = Path(path) if path is not None else DEFAULT_RECIPE
    if not path.is_file():
        raise RecipeError(f"recipe {path} does not exist; recipes shipped: "
                          f"{', '.join(sorted(p.name for p in RECIPES.glob('*.yaml')))}")
    try:
        data = read_yaml_mapping(path)
    except ConfigError as e:
        raise RecipeError(str(e).replace("config file", "recipe", 1)) from None
    for key, value in (overrides or {}).items():
        if isinstance(value, dict) and key in ("filters", "dedup", "decontam"):
            for k, v in value.items():
                _set_dotted(data, f"{key}.{k}", v)
        else:
            _set_dotted(data, key, value)
    data["sources"] = data.get("sources") or []
    try:
        recipe = from_dict(Recipe, data, source=f"recipe {path}")
    except ConfigError as e:
        raise RecipeError(str(e) if str(e).startswith("recipe ") else f"recipe {path}: {e}") from None
    validate(recipe, base=path.parent)
    return recipe


def validate(recipe: Recipe, base: Path = Path(".")) -> None:
    """Everything that can be checked before work starts; raises RecipeError."""
    if not recipe.sources:
        raise RecipeError("sources: the recipe names no sources")
    if recipe.hub not in ("auto", "offline"):
        raise RecipeError(f"hub: {recipe.hub!r} is not one of auto, offline")
    if not 0 <= recipe.valid_fraction < 1:
        raise RecipeError(f"valid_fraction: {recipe.valid_fraction} must be in [0, 1)")
    seen = set()
    for i, e in enumerate(recipe.sources):
        where = f"sources[{i}] ({e.id})"
        if e.id not in SOURCES:
            raise RecipeError(f"{where}: unknown source {e.id!r}; known sources: {', '.join(SOURCES)}")
        if e.id in seen:
            raise RecipeError(f"{where}: source listed twice; merge the entries")
        seen.add(e.id)
        if e.weight < 0:
            raise RecipeError(f"{where}.weight: {e.weight} must be >= 0")
        for k in ("rows", "take"):
            if getattr(e, k) is not None and getattr(e, k) < 0:
                raise RecipeError(f"{where}.{k}: must be >= 0")
        try:
            check_keys(e.filters, FilterConfig, f"{where}.filters")
        except ConfigError as err:
            raise RecipeError(str(err)) from None
        src = SOURCES[e.id]
        if e.id == "synthetic":
            if e.rows is None:
                raise RecipeError(f"{where}.rows: say how many synthetic rows to generate")
            if e.path is not None:
                raise RecipeError(f"{where}.path: the synthetic source is generated and reads no file; remove path")
            try:
                from data_recipes.synthetic import check_kinds, check_share
            except ImportError:
                continue  # the build reports the missing generator
            for name in ("prose_schema", "settings", "settings_stated"):
                try:
                    if getattr(e, name) is not None:
                        check_share(getattr(e, name), name)
                except ValueError as err:
                    raise RecipeError(f"{where}.{name}: {err}") from None
            if e.settings == 0 and e.settings_stated is not None:
                raise RecipeError(f"{where}.settings_stated: with settings 0 no row offers a setting to state; "
                                  "remove settings_stated or give settings a share above 0")
            if e.kinds is not None:
                try:
                    check_kinds(e.kinds)
                except (ValueError, TypeError) as err:
                    raise RecipeError(f"{where}.kinds: {err}") from None
            continue
        if e.kinds is not None:
            raise RecipeError(f"{where}.kinds: only the synthetic source has kinds")
        if e.prose_schema:
            raise RecipeError(f"{where}.prose_schema: only the synthetic source has prose_schema")
        for name in ("settings", "settings_stated"):
            if getattr(e, name) is not None:
                raise RecipeError(f"{where}.{name}: only the synthetic source has {name}")
        if e.path and e.path != "fixture":
            p = Path(e.path) if Path(e.path).is_absolute() else (Path.cwd() / e.path)
            if not p.exists() and (base / e.path).exists():
                p = base / e.path
            if not p.exists():
                raise RecipeError(f"{where}.path: file {e.path} does not exist")
            if p.suffix not in (".jsonl", ".json", ".parquet"):
                raise RecipeError(f"{where}.path: {e.path} must be .jsonl, .json or .parquet")
            e.path = str(p.resolve())
            continue
        if e.check_split and (e.hub is None or e.hub == src.hub):
            config = e.config if e.config is not None else src.config
            split = e.split if e.split is not None else src.split
            if config not in src.splits:
                raise RecipeError(f"{where}.config: {config!r} is not a config of {src.hub}; "
                                  f"known: {[c for c in src.splits if c]}")
            if split not in src.splits[config]:
                raise RecipeError(f"{where}.split: {split!r} is not a split of {src.hub} ({config}); "
                                  f"known: {src.splits[config]}")
