"""Write a synthetic sample as JSONL and print its stats: a preview of what the build's synthetic source makes.

Run:
    python -m data_recipes.synthetic --n 2000 --seed 0 --out data/synthetic/sample.jsonl
    python -m data_recipes.synthetic --n 200 --kinds coding=1,single=2 --out /tmp/s.jsonl --tokenizer tiny
    python -m data_recipes.synthetic --config my.yaml --n 500          # YAML keys: n, seed, kinds, out, tokenizer

Settings: defaults < YAML (--config) < flags. The resolved settings go next to the output as
`<out>.config.json`, the stats as `<out>.stats.json`. `--tokenizer` is `none`, `tiny` (nanoagent.testing) or a
model spec for nanoagent.models.load_tokenizer (`embedded`, a folder, a Hub id).
Left out: filters, dedup, decontamination and mixing; `python -m data_recipes.build` does those for every source.
"""

from __future__ import annotations

import nanoagent  # noqa: F401  (before anything that may import mlx)

import dataclasses
import json
import os
import sys
from pathlib import Path

from tqdm import tqdm

from data_recipes.synthetic.generate import DEFAULT_KINDS, check_kinds, generate
from data_recipes.synthetic.stats import summarize
from nanoagent.atomic import write_json
from nanoagent.config import ConfigError, build_parser, load, parse_weights, save_resolved


@dataclasses.dataclass
class SyntheticConfig:
    n: int = dataclasses.field(default=2000, metadata={"help": "rows to generate"})
    seed: int = dataclasses.field(default=0, metadata={"help": "generator seed: the same seed gives the same rows"})
    kinds: dict = dataclasses.field(default_factory=lambda: dict(DEFAULT_KINDS), metadata={
        "help": "kind=weight,... e.g. coding=1,single=2 (in YAML, a mapping); default: every kind"})
    out: str = dataclasses.field(default="data/synthetic/sample.jsonl", metadata={
        "help": "JSONL file to write; <out>.stats.json and <out>.config.json go beside it"})
    tokenizer: str = dataclasses.field(default="none", metadata={
        "help": "tokenizer for the stats' token counts: none | tiny | embedded | model folder | Hub id"})


def parse_kinds(value) -> dict:
    """`coding=1,single=2` (a flag) or a mapping / list of kinds (YAML) -> checked kind -> weight."""
    if isinstance(value, str):
        value = parse_weights(value, "kinds", bare=1.0)
    try:
        return check_kinds(value)
    except ValueError as e:
        raise ConfigError(f"kinds: {e}") from None


def resolve(argv=None) -> SyntheticConfig:
    """Defaults < --config YAML < flags (nanoagent.config); a bad key or value exits with a message naming it."""
    parser = build_parser(SyntheticConfig, __doc__.split("\n")[0], prog="python -m data_recipes.synthetic")
    try:
        cfg = load(SyntheticConfig, argv, parser, parsers={"kinds": parse_kinds})
    except ConfigError as e:
        raise SystemExit(f"error: {e}") from None
    if cfg.n < 0:
        raise SystemExit(f"error: n must be a whole number >= 0, got {cfg.n}")
    return cfg


def load_tok(spec: str):
    if spec == "none":
        return None
    if spec == "tiny":
        from nanoagent.testing import tiny_tokenizer
        return tiny_tokenizer()
    from nanoagent.models import load_tokenizer
    return load_tokenizer(spec)


def main(argv=None) -> int:
    cfg = resolve(argv)
    out = Path(cfg.out)
    blocker = next((p for p in [out.parent, *out.parent.parents] if p.exists() and not p.is_dir()), None)
    if out.is_dir() or blocker is not None:
        why = "is a folder" if out.is_dir() else f"would go inside {blocker}, which is a file"
        print(f"error: --out {out} {why}; give the path of a .jsonl file to write", file=sys.stderr)
        return 2
    out.parent.mkdir(parents=True, exist_ok=True)
    records = []
    tmp = out.with_name(f".{out.name}.partial")
    with tmp.open("w", encoding="utf-8") as f:  # renamed when complete: a killed run leaves no half file at --out
        for rec in tqdm(generate(cfg.n, cfg.seed, cfg.kinds), total=cfg.n, desc="synthetic", unit="row"):
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
            records.append(rec)
    os.replace(tmp, out)
    stats = summarize(records, load_tok(cfg.tokenizer))
    save_resolved(cfg, Path(str(out) + ".config.json"))
    write_json(Path(str(out) + ".stats.json"), stats)
    print(json.dumps(stats, indent=2))
    print(f"wrote {len(records)} rows to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
