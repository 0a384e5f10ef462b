"""data_recipes/synthetic/kinds.py sibling_multiple: two or three functions of one domain called in one turn.

Run: .venv/bin/python -m pytest tests/test_data_siblings.py -q
"""

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
