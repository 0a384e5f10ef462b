"""data_recipes/synthetic/prose_schema.py and the `prose_schema` share: choices and defaults said in descriptions.

Run: .venv/bin/python -m pytest tests/test_data_prose_schema.py -q
"""

import random

import pytest

from data_recipes.synthetic import DEFAULT_KINDS, example, generate
from data_recipes.synthetic.prose_schema import in_prose
from nanoagent.record import Record

SPEC = {"type": "function", "function": {"name": "get_weather", "description": "Weather for a city.", "parameters": {
    "type": "object", "required": ["city"], "properties": {
        "city": {"type": "string", "description": "The city."},
        "unit": {"type": "string", "description": "Temperature unit.", "enum": ["celsius", "fahrenheit"],
                 "default": "celsius"},
        "days": {"type": "integer", "description": "Days ahead.", "default": 1},
        "hourly": {"type": "boolean", "default": False}}}}}


def test_choices_and_defaults_move_into_the_descriptions():
    out = in_prose(SPEC, random.Random(0))
    props = out["function"]["parameters"]["properties"]
    assert all("enum" not in p and "default" not in p for p in props.values())
    unit = props["unit"]["description"]
    assert unit.startswith("Temperature unit. ") and "'celsius' or 'fahrenheit'" in unit and unit.endswith("'celsius'.")
    assert props["days"]["description"].startswith("Days ahead. ") and props["days"]["description"].endswith("1.")
    assert props["hourly"]["description"].endswith("false.")          # no description before: the default alone
    assert props["city"] == SPEC["function"]["parameters"]["properties"]["city"]
    assert out["function"]["parameters"]["required"] == ["city"]
    assert "enum" in SPEC["function"]["parameters"]["properties"]["unit"]   # the input is not changed


def test_a_share_of_rows_changes_only_the_tools_of_those_rows():
    mix = dict(DEFAULT_KINDS)
    changed = 0
    for i in range(60):
        plain, _ = example(i, 0, mix)
        prose, _ = example(i, 0, mix, 0.5)
        assert prose["messages"] == plain["messages"]
        Record.from_dict(prose)
        if prose["tools"] != plain["tools"]:
            changed += 1
            assert [t["function"]["name"] for t in prose["tools"]] == [t["function"]["name"] for t in plain["tools"]]
            assert all("enum" not in p and "default" not in p for t in prose["tools"]
                       for p in t["function"]["parameters"].get("properties", {}).values())
    assert 5 < changed < 45      # about half the rows, less those whose tools have no choices or defaults


def test_a_bad_share_is_refused():
    with pytest.raises(ValueError, match="from 0 to 1"):
        next(generate(1, prose_schema=1.5))
