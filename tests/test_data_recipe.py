"""Recipes: precedence defaults < YAML < overrides, and every bad input refused before any work starts.

Run: .venv/bin/python -m pytest tests/test_data_recipe.py -q
"""

import pytest
import yaml

from data_recipes.build import main
from data_recipes.recipe import DEFAULT_RECIPE, RecipeError, load_recipe, parse_override


def write(tmp_path, data):
    p = tmp_path / "r.yaml"
    p.write_text(yaml.safe_dump(data))
    return p


def test_default_recipe_loads_and_names_every_source():
    r = load_recipe(None)
    assert r.name == "default" and DEFAULT_RECIPE.is_file()
    ids = [s.id for s in r.sources]
    for name in ("xlam", "smoltalk_apigen", "smoltalk_magpie", "smoltalk2_agents", "hermes_v1", "hermes_thinking",
                 "chatml_fc", "orca_agentinstruct", "gsm8k_decomposed", "synthetic"):
        assert name in ids


def test_precedence_defaults_yaml_overrides(tmp_path):
    p = write(tmp_path, {"seed": 5, "filters": {"max_tokens": 999}, "sources": [{"id": "xlam", "rows": 10}]})
    r = load_recipe(p)
    assert (r.seed, r.filters.max_tokens, r.filters.max_response_tokens) == (5, 999, 400)
    r = load_recipe(p, {"seed": 7, "filters.max_tokens": 100, "sources.xlam.rows": 3, "sources.gsm8k_decomposed":
                        {"path": "fixture"}})
    assert (r.seed, r.filters.max_tokens) == (7, 100)
    assert [(s.id, s.rows) for s in r.sources] == [("xlam", 3), ("gsm8k_decomposed", None)]
    r = load_recipe(p, {"filters": {"strip_think": False}, "sources.xlam": None, "sources.chatml_fc.rows": 2})
    assert r.filters.strip_think is False and [s.id for s in r.sources] == ["chatml_fc"]
    assert parse_override("filters.jaccard=0.8") == ("filters.jaccard", 0.8)


@pytest.mark.parametrize("data,message", [
    ({"sources": [{"id": "xlamm"}]}, "unknown source 'xlamm'"),
    ({"sources": [{"id": "xlam", "path": "nope/missing.jsonl"}]}, "does not exist"),
    ({"sources": [{"id": "xlam", "weight": "heavy"}]}, r"sources\[0\]\.weight': 'heavy' is not a valid float"),
    ({"sources": [{"id": "xlam", "split": "validation"}]}, "'validation' is not a split"),
    ({"sources": [{"id": "hermes_v1", "config": "nope"}]}, "'nope' is not a config"),
    ({"sources": [{"id": "xlam", "rowz": 3}]}, r"sources\[0\]: unknown config key\(s\) 'rowz' \(did you mean 'rows'\?\)"),
    ({"sources": [{"rows": 3}]}, r"sources\[0\]: missing required key\(s\) 'id'"),
    ({"sources": [{"id": "xlam", "filters": {"max_token": 9}}]},
     r"filters: unknown config key\(s\) 'max_token' \(did you mean 'max_tokens'\?\)"),
    ({"sources": [{"id": "xlam"}], "filter": {}}, r"'filter' \(did you mean 'filters'\?\)"),
    ({"sources": [{"id": "synthetic", "rows": 5, "kinds": 3}]}, r"sources\[0\]\.kinds': 3 is not a valid dict or list"),
    ({"sources": [{"id": "xlam"}], "filters": {"max_tokens": "big"}}, "filters.max_tokens': 'big' is not a valid int"),
    ({"sources": [{"id": "synthetic"}]}, "synthetic rows"),
    ({"sources": [{"id": "synthetic", "rows": 5, "prose_schema": 2}]}, r"prose_schema: .*from 0 to 1, not 2"),
    ({"sources": [{"id": "xlam", "prose_schema": 0.5}]}, "only the synthetic source has prose_schema"),
    ({"sources": [{"id": "synthetic", "rows": 5, "settings": -1}]}, r"settings: .*from 0 to 1, not -1"),
    ({"sources": [{"id": "xlam", "settings": 0.5}]}, "only the synthetic source has settings"),
    ({"sources": [{"id": "synthetic", "rows": 5, "settings_stated": 1.5}]}, r"settings_stated: .*from 0 to 1, not 1.5"),
    ({"sources": [{"id": "xlam", "settings_stated": 0}]}, "only the synthetic source has settings_stated"),
    ({"sources": [{"id": "synthetic", "rows": 5, "settings": 0, "settings_stated": 0.5}]},
     "settings_stated: with settings 0 no row offers a setting"),
    ({"sources": []}, "names no sources"),
    ({"sources": [{"id": "xlam"}, {"id": "xlam"}]}, "listed twice"),
])
def test_bad_recipes_fail_with_a_clear_message(tmp_path, data, message):
    with pytest.raises(RecipeError, match=message):
        load_recipe(write(tmp_path, data))


def test_cli_reports_recipe_errors_before_work(tmp_path, capsys):
    p = write(tmp_path, {"sources": [{"id": "nope"}]})
    assert main(["--recipe", str(p)]) == 2
    assert "unknown source 'nope'" in capsys.readouterr().err
    assert main(["--recipe", str(tmp_path / "absent.yaml")]) == 2
    assert main(["--set", "no_equals_sign"]) == 2
