"""data_recipes/synthetic/kinds.py parallel_multiple_wide, and the wide-ab recipe that puts it in the mix.

Run: .venv/bin/python -m pytest tests/test_data_wide.py -q
"""

from collections import Counter

import pytest

from data_recipes.synthetic import DEFAULT_KINDS, example
from nanoagent.record import Record
from nanoagent.toolcall import check_arguments


def _calls(row: dict) -> list[dict]:
    return [c["function"] for m in row["messages"] for c in m.get("tool_calls") or []]


def _shape(row: dict) -> tuple:
    return tuple(sorted(Counter(c["name"] for c in _calls(row)).values()))


def test_wide_rows_call_two_to_four_different_tools_in_the_shapes_of_bfcl_parallel_multiple():
    shapes = Counter()
    for i in range(600):
        row, info = example(i, 3, {"parallel_multiple_wide": 1.0})
        Record.from_dict(row)
        specs = {t["function"]["name"]: t["function"] for t in row["tools"]}
        called = {c["name"] for c in _calls(row)}
        assert 2 <= len(called) <= 4 and called == set(info["needs"]) <= set(specs)
        for c in _calls(row):
            assert check_arguments(c["arguments"], specs[c["name"]]["parameters"]) == []
        assert row["messages"][-1].get("tool_calls"), "the turn ends with its calls"
        shapes[_shape(row)] += 1
    share = {s: n / 600 for s, n in shapes.items()}
    # BFCL: (1, 1) 28%, (1, 1, 1) 26%, (2, 2) 17%, (1, 1, 1, 1) 9.5%; the parallel_multiple kind: 34%, 13%, 5%, 0%
    assert 0.20 < share[(1, 1)] < 0.40 and 0.16 < share[(1, 1, 1)] < 0.32, share
    assert 0.08 < share[(2, 2)] < 0.22 and 0.05 < share[(1, 1, 1, 1)] < 0.15, share


def test_the_default_kind_stays_as_it_was_drawn():
    shapes = Counter(_shape(example(i, 3, {"parallel_multiple": 1.0})[0]) for i in range(600))
    assert shapes[(1, 1, 1, 1)] == 0 and shapes[(2, 2)] / 600 < 0.10, shapes


def test_the_ab_recipe_changes_only_the_parallel_multiple_rows_of_the_default_stream():
    from data_recipes.recipe import load_recipe, validate

    recipe = load_recipe("data_recipes/recipes/wide-ab.yaml")
    validate(recipe)
    kinds = next(s for s in recipe.sources if s.id == "synthetic").kinds
    renamed = {("parallel_multiple" if k == "parallel_multiple_wide" else k): w for k, w in kinds.items()}
    assert list(renamed.items()) == list(DEFAULT_KINDS.items()), "same weights in the same order as the default"
    changed = 0
    for i in range(300):
        default_row, default_info = example(i, 0, DEFAULT_KINDS)
        wide_row, wide_info = example(i, 0, kinds)
        if default_info["kind"] == "parallel_multiple":
            assert wide_info["kind"] == "parallel_multiple_wide"
            changed += 1
        else:
            assert wide_row == default_row
    assert changed > 10


@pytest.mark.parametrize("kind", ["parallel_multiple", "parallel_multiple_wide"])
def test_multi_tool_rows_offer_generic_settings_as_the_other_call_kinds_do(kind):
    with_settings = sum(example(i, 4, {kind: 1.0})[0] != example(i, 4, {kind: 1.0}, settings=0)[0] for i in range(200))
    assert 40 < with_settings < 120, with_settings  # settings.P_SETTINGS of the call rows
