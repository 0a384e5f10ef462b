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

import argparse
import dataclasses
import json
import sys
from pathlib import Path

import yaml
from tqdm import tqdm

from data_recipes.synthetic.generate import DEFAULT_KINDS, check_kinds, generate
from data_recipes.synthetic.stats import summarize


@dataclasses.dataclass
class SyntheticConfig:
    n: int = 2000
    seed: int = 0
    kinds: dict = dataclasses.field(default_factory=lambda: dict(DEFAULT_KINDS))
    out: str = "data/synthetic/sample.jsonl"
    tokenizer: str = "none"


def parse_kinds(text: str) -> dict:
    out = {}
    for part in text.split(","):
        name, _, weight = part.partition("=")
        try:
            out[name.strip()] = float(weight) if weight else 1.0
        except ValueError:
            raise SystemExit(f"--kinds: weight {weight!r} of {name!r} is not a number (use e.g. coding=1,single=2)")
    return out


def resolve(argv=None) -> SyntheticConfig:
    ap = argparse.ArgumentParser(prog="python -m data_recipes.synthetic", description=__doc__.split("\n")[0])
    ap.add_argument("--config", help="YAML file with any of: n, seed, kinds, out, tokenizer")
    ap.add_argument("--n", type=int)
    ap.add_argument("--seed", type=int)
    ap.add_argument("--kinds", help="kind=weight,... e.g. coding=1,single=2")
    ap.add_argument("--out")
    ap.add_argument("--tokenizer", help="none | tiny | embedded | model folder | Hub id")
    args = ap.parse_args(argv)
    cfg = SyntheticConfig()
    if args.config:
        path = Path(args.config)
        if not path.is_file():
            raise SystemExit(f"--config: {path} does not exist")
        data = yaml.safe_load(path.read_text()) or {}
        fields = {f.name for f in dataclasses.fields(SyntheticConfig)}
        unknown = set(data) - fields
        if unknown:
            raise SystemExit(f"{path}: unknown keys {sorted(unknown)}; known: {sorted(fields)}")
        cfg = dataclasses.replace(cfg, **data)
    for name in ("n", "seed", "out", "tokenizer"):
        if getattr(args, name) is not None:  # "not given" is not "false"
            setattr(cfg, name, getattr(args, name))
    if args.kinds:
        cfg.kinds = parse_kinds(args.kinds)
    try:
        cfg.kinds = check_kinds(cfg.kinds)
    except ValueError as e:
        raise SystemExit(str(e))
    if not isinstance(cfg.n, int) or cfg.n < 0:
        raise SystemExit(f"n must be a whole number >= 0, got {cfg.n!r}")
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
    out.parent.mkdir(parents=True, exist_ok=True)
    records = []
    with out.open("w", encoding="utf-8") as f:
        for rec in tqdm(generate(cfg.n, cfg.seed, cfg.kinds), total=cfg.n, desc="synthetic", unit="row"):
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
            records.append(rec)
    stats = summarize(records, load_tok(cfg.tokenizer))
    Path(str(out) + ".config.json").write_text(json.dumps(dataclasses.asdict(cfg), indent=2) + "\n")
    Path(str(out) + ".stats.json").write_text(json.dumps(stats, indent=2) + "\n")
    print(json.dumps(stats, indent=2))
    print(f"wrote {len(records)} rows to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
