"""The `synthetic` recipe source: rows from data_recipes.synthetic.generate go through the same filters,
dedup and mixing as every other source, deterministically for a seed.

Run: .venv/bin/python -m pytest tests/test_data_synthetic_source.py -q
Skipped (with the reason) until data_recipes.synthetic exposes `generate(n, seed, kinds=...)`.
"""

import importlib
import json

import pytest
import yaml

from data_recipes.build import build

synthetic = importlib.import_module("data_recipes.synthetic")
if not hasattr(synthetic, "generate"):
    pytest.skip("data_recipes.synthetic.generate does not exist yet (another engineer is writing it)",
                allow_module_level=True)


def recipe(tmp_path, rows=60):
    p = tmp_path / "s.yaml"
    p.write_text(yaml.safe_dump({"hub": "offline", "num_proc": 1, "valid_fraction": 0.1,
                                 "sources": [{"id": "synthetic", "rows": rows}, {"id": "xlam", "path": "fixture"}]}))
    return p


def test_synthetic_rows_are_built_deterministically(tmp_path, tiny_tok):
    a = build(recipe(tmp_path), tokenizer=tiny_tok, out=str(tmp_path / "a"), quiet=True)
    b = build(recipe(tmp_path), tokenizer=tiny_tok, out=str(tmp_path / "b"), quiet=True)
    assert (a / "train.jsonl").read_bytes() == (b / "train.jsonl").read_bytes()
    stats = json.loads((a / "stats.json").read_text())["sources"]["synthetic"]
    assert stats["origin"] == "generated" and stats["raw"] == 60
    assert stats["train"] + stats["valid"] > 0
    kept = sum(stats["dropped"].values()) + sum(stats["filtered"].values())
    assert kept < 60  # the generator writes valid records; most must survive the filters
