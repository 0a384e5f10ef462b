"""data_recipes/synthetic/kinds.py sibling_multiple: two or three functions of one domain called in one turn.

Run: .venv/bin/python -m pytest tests/test_data_siblings.py -q
"""

import json

import pytest

from data_recipes.synthetic import example
from data_recipes.synthetic.catalogue import by_name
from nanoagent.record import Record
from nanoagent.toolcall import check_arguments


def test_sibling_rows_call_several_functions_of_one_domain_among_more_siblings():
    more_offered = far = 0
    for i in range(200):
        row, info = example(i, 5, {"sibling_multiple": 1.0})
        Record.from_dict(row)
        specs = {t["function"]["name"]: t["function"] for t in row["tools"]}
        calls = [c["function"] for m in row["messages"] for c in m.get("tool_calls") or []]
        called = {c["name"] for c in calls}
        assert 2 <= len(called) <= 3 and called == set(info["needs"]) <= set(specs)
        assert len({by_name()[n].domain for n in called}) == 1, called
        domain = by_name()[next(iter(called))].domain
        spare = [n for n in specs if n not in called]
        more_offered += any(by_name()[n].domain == domain for n in spare)
        far += any(by_name()[n].domain != domain for n in spare)
        for c in calls:
            assert check_arguments(c["arguments"], specs[c["name"]]["parameters"]) == []
        assert row["messages"][-1].get("tool_calls"), "the turn ends with its calls"
    assert more_offered > 40 and far > 40, (more_offered, far)


def test_the_ab_recipe_moves_weight_to_siblings_and_keeps_the_no_call_share():
    from data_recipes.recipe import load_recipe, validate
    from data_recipes.synthetic import DEFAULT_KINDS

    recipe = load_recipe("data_recipes/recipes/siblings-ab.yaml")
    validate(recipe)
    kinds = next(s for s in recipe.sources if s.id == "synthetic").kinds
    assert kinds["sibling_multiple"] > 0 and set(kinds) == set(DEFAULT_KINDS) | {"sibling_multiple"}
    assert sum(kinds.values()) == pytest.approx(sum(DEFAULT_KINDS.values()))
    changed = {k: (DEFAULT_KINDS[k], kinds[k]) for k in DEFAULT_KINDS if kinds[k] != DEFAULT_KINDS[k]}
    assert changed == {"single": (0.10, 0.06), "parallel_multiple": (0.08, 0.04)}, "no_tool and the rest as default"


def test_name_families_splits_a_runs_items_by_one_family_calls_and_names_a_bad_results_file(tmp_path):
    from data_recipes.name_families import calls_one_family, one_family_right, result_items, unknown_tools

    assert calls_one_family([["circle.area", "circle.perimeter"], ["get_weather", "get_time"], ["a.b", "c.d"]]) == 2
    items = [{"id": "pm_0", "correct": True, "kind": "ok", "message": ""},
             {"id": "pm_1", "correct": False, "kind": "unknown_tool",
              "message": "Unknown tool 'circle.calculate_perimeter'. Available tools: circle.calculate_area, sum."},
             {"id": "pm_2", "correct": True, "kind": "ok", "message": ""}]
    good = tmp_path / "run.json"
    good.write_text(json.dumps({"suites": {"parallel_multiple": {"items": items}}}))
    assert one_family_right(result_items(str(good)), {"pm_0", "pm_1"}) == (
        "right on 1 of 2 items calling two functions of one first word, 1 of 1 of the rest")
    assert unknown_tools(items).startswith("1 replies name a tool not offered, 1 close to an offered name")
    bad = tmp_path / "other.json"
    bad.write_text(json.dumps({"suites": {"simple_python": {"items": []}}}))
    with pytest.raises(SystemExit, match="other.json is not a result file"):
        result_items(str(bad))
