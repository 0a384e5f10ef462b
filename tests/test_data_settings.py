"""data_recipes/synthetic/settings.py: generic optional settings on called tools, mostly left unsaid and uncalled.

Run: .venv/bin/python -m pytest tests/test_data_settings.py -q
"""

from pathlib import Path

import pytest

from data_recipes.synthetic import DEFAULT_KINDS, example, generate
from data_recipes.synthetic.settings import KINDS, SETTINGS
from nanoagent.record import Record
from nanoagent.toolcall import check_arguments

NAMES = {s.name for s in SETTINGS}


def _added(plain: dict, offered: dict) -> dict[str, set[str]]:
    """Tool name -> the parameters `offered` has that `plain` lacks."""
    before = {t["function"]["name"]: set(t["function"]["parameters"].get("properties", {})) for t in plain["tools"]}
    after = {t["function"]["name"]: set(t["function"]["parameters"].get("properties", {}))
             for t in offered.get("tools") or []}
    return {name: props - before[name] for name, props in after.items() if name in before}


def test_settings_are_offered_on_called_tools_and_given_only_when_the_request_states_them():
    call_rows = with_settings = stated = 0
    for i in range(600):
        plain, _ = example(i, 4, DEFAULT_KINDS, settings=0)
        offered, info = example(i, 4, DEFAULT_KINDS)
        Record.from_dict(offered)
        added = {n: a for n, a in _added(plain, offered).items() if a}
        if info["kind"] in KINDS:
            call_rows += 1
        if not added:
            assert offered == plain
            continue
        assert info["kind"] in KINDS
        with_settings += 1
        specs = {t["function"]["name"]: t["function"] for t in offered["tools"]}
        plain_calls = [c["function"] for m in plain["messages"] for c in m.get("tool_calls") or []]
        calls = [c["function"] for m in offered["messages"] for c in m.get("tool_calls") or []]
        assert set(added) <= {c["name"] for c in calls}, "settings go on called tools only"
        for name, new in added.items():
            assert new <= NAMES and 1 <= len(new) <= 3
            keys = list(specs[name]["parameters"]["properties"])
            assert keys[-len(new):] == [k for k in keys if k in new], "settings come after the tool's own"
            assert not set(specs[name]["parameters"].get("required", [])) & new
        for call, before in zip(calls, plain_calls):
            assert check_arguments(call["arguments"], specs[call["name"]]["parameters"]) == []
            given = set(call["arguments"]) - set(before["arguments"])
            if given:  # a stated setting: one, in a row that ends with its one call, said at the end of the request
                stated += 1
                assert len(calls) == 1 and len(given) == 1 and given <= added[call["name"]]
                assert offered["messages"][-1].get("tool_calls"), "nothing after the call to contradict the setting"
                users = [m["content"] for m in offered["messages"] if m["role"] == "user"]
                plain_users = [m["content"] for m in plain["messages"] if m["role"] == "user"]
                assert users != plain_users and any(u.startswith(p.rstrip(".?! ")) for u, p in zip(users,
                                                                                                   plain_users))
            else:
                assert call == before
    assert 0.25 * call_rows <= with_settings <= 0.45 * call_rows, (with_settings, call_rows)
    assert 0.05 * with_settings <= stated <= 0.3 * with_settings, (stated, with_settings)


def test_settings_never_blur_a_parameter_the_tool_has():
    """No setting is offered on a tool whose name or one of whose parameters holds the setting's name or a clash
    word (`language` beside `target_language` or on `get_detected_language`, `verbose` beside `include_details`)."""
    by_name = {s.name: s for s in SETTINGS}
    for i in range(400):
        plain, _ = example(i, 9, DEFAULT_KINDS, settings=0)
        offered, _ = example(i, 9, DEFAULT_KINDS, settings=1.0)
        for tool, new in _added(plain, offered).items():
            own = next(t for t in plain["tools"] if t["function"]["name"] == tool)
            names = [n.lower() for n in own["function"]["parameters"].get("properties", {})] + [tool.lower()]
            for setting in new:
                words = (setting, *by_name[setting].clashes)
                assert not any(w in n for n in names for w in words), (tool, setting, names)


def test_settings_off_and_bad_shares():
    """`settings=0` leaves every row as the stream makes it without settings; a share outside [0, 1] is refused."""
    rows = list(generate(60, seed=2, settings=0))
    assert rows == [example(i, 2, DEFAULT_KINDS, settings=0)[0] for i in range(60)]
    assert rows != list(generate(60, seed=2)), "the default offers settings on some rows"
    with pytest.raises(ValueError, match="settings is the share"):
        next(generate(1, settings=1.5))


def test_settings_unstated_offers_the_same_settings_and_never_gives_one():
    """`settings_stated=0` offers the very settings the default does, on the same rows, but no request states one and
    no call gives one: the row is the default's with any stated sentence and its argument taken out."""
    stated_rows = 0
    for i in range(300):
        default, _ = example(i, 4, DEFAULT_KINDS)
        unstated, _ = example(i, 4, DEFAULT_KINDS, settings_stated=0)
        plain, _ = example(i, 4, DEFAULT_KINDS, settings=0)
        assert unstated["tools"] == default["tools"]
        assert unstated["messages"] == plain["messages"], "nothing stated, nothing given"
        stated_rows += default["messages"] != plain["messages"]
    assert stated_rows > 0, "the default states settings in some of these rows"
    with pytest.raises(ValueError, match="settings_stated is the share"):
        next(generate(1, settings_stated=-0.1))


def test_the_unasked_recipe_is_the_default_with_settings_never_stated():
    import yaml

    from data_recipes.recipe import load_recipe, validate

    recipe = load_recipe("data_recipes/recipes/unasked-ab.yaml")
    validate(recipe)
    default = yaml.safe_load(Path("data_recipes/recipes/default.yaml").read_text())
    unasked = yaml.safe_load(Path("data_recipes/recipes/unasked-ab.yaml").read_text())
    assert unasked["sources"][0] == {**default["sources"][0], "settings_stated": 0}
    assert unasked["sources"][1:] == default["sources"][1:]
    assert {k: v for k, v in unasked.items() if k not in ("name", "out", "sources")} == \
        {k: v for k, v in default.items() if k not in ("name", "out", "sources")}
