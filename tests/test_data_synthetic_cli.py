"""`python -m data_recipes.synthetic`: defaults < YAML < flags through nanoagent.config, the kinds flag and mapping,
outputs next to the sample, and bad settings as messages that name them.

Run: .venv/bin/python -m pytest tests/test_data_synthetic_cli.py -q
"""

import json

import pytest

from data_recipes.synthetic.__main__ import main, resolve


def test_a_sample_its_settings_and_stats_are_written(tmp_path, capsys):
    out = tmp_path / "s.jsonl"
    assert main(["--n", "20", "--kinds", "coding=1,single=2", "--out", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 20 and {r["meta"]["kind"] for r in rows} <= {"coding", "single"}
    cfg = json.loads((tmp_path / "s.jsonl.config.json").read_text())
    assert cfg["kinds"] == {"coding": 1.0, "single": 2.0} and cfg["n"] == 20
    assert json.loads((tmp_path / "s.jsonl.stats.json").read_text())
    assert f"wrote 20 rows to {out}" in capsys.readouterr().out


def test_flags_override_the_yaml_which_overrides_the_defaults(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text("n: 7\nseed: 3\nkinds: {coding: 2, parallel: 1}\n")
    cfg = resolve(["--config", str(config), "--seed", "5"])
    assert (cfg.n, cfg.seed, cfg.kinds) == (7, 5, {"coding": 2.0, "parallel": 1.0})
    assert resolve([]).n == 2000


@pytest.mark.parametrize("argv, message", [
    (["--kinds", "coding=lots"], "weight 'lots' for 'coding' is not a number"),
    (["--kinds", "poetry=1"], "unknown synthetic kind 'poetry'"),
    (["--n", "-1"], "n must be a whole number >= 0"),
    (["--n", "many"], "'many' is not a valid int"),
])
def test_bad_flags_exit_with_a_message_that_names_them(argv, message):
    with pytest.raises(SystemExit) as e:
        resolve(argv)
    assert message in str(e.value)


def test_an_unknown_yaml_key_names_the_closest_one(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text("seeds: 3\n")
    with pytest.raises(SystemExit) as e:
        resolve(["--config", str(config)])
    assert "'seeds' (did you mean 'seed'?)" in str(e.value)
