"""nanoagent.fastschema: the plain-Python schema check gives jsonschema's verdict wherever it answers.

Run: .venv/bin/python -m pytest tests/test_fastschema.py -q
"""

import json
import random

from nanoagent.fastschema import compile_check
from nanoagent.toolcall import _FAST_TYPES, _Validator, _compiled, arguments_fit

NAMES = ["a", "b", "c"]
TYPE_NAMES = ["string", "integer", "number", "boolean", "object", "array", "null", "int", "float", "str", "dict",
              "list", "bool", "tuple", "any"]
VALUES = [None, True, False, 0, 1, -3, 1.0, 2.5, "", "x", "a", [], [1], ["a", "b"], [1.0, None], {}, {"a": 1},
          {"a": "x", "b": [1]}, {"c": {"a": True}}, {"d": 1}, {"a": 1.5, "b": None, "c": "x"}]


def random_schema(rng: random.Random, depth: int = 0):
    if depth > 2 or rng.random() < 0.1:
        return rng.choice([True, False, {}, {"type": rng.choice(TYPE_NAMES)}])
    s = {}
    if rng.random() < 0.7:
        s["type"] = rng.choice(TYPE_NAMES) if rng.random() < 0.8 else rng.sample(TYPE_NAMES, rng.randint(1, 3))
    if rng.random() < 0.5:
        s["properties"] = {n: random_schema(rng, depth + 1) for n in rng.sample(NAMES, rng.randint(0, 3))}
    if rng.random() < 0.4:
        s["required"] = rng.sample(NAMES, rng.randint(0, 2))
    if rng.random() < 0.3:
        s["additionalProperties"] = rng.choice([True, False, random_schema(rng, depth + 1)])
    if rng.random() < 0.3:
        s["items"] = random_schema(rng, depth + 1)
    if rng.random() < 0.2:
        s["enum"] = rng.sample(["x", "a", "", "y"], rng.randint(1, 3))
    if rng.random() < 0.3:
        s.update(description="ignored", default=rng.choice(VALUES), title="t", format="date")
    if rng.random() < 0.05:
        s[rng.choice(["minimum", "anyOf", "pattern", "$ref", "const"])] = 1  # outside the subset
    if rng.random() < 0.03:
        s["type"] = "frobnicate"  # unknown type name: jsonschema raises, fastschema declines
    return s


def jsonschema_verdict(schema, value) -> bool:
    return next(_Validator(schema).iter_errors(value), None) is None


def random_value(rng: random.Random, depth: int = 0):
    if depth < 2 and rng.random() < 0.3:
        if rng.random() < 0.5:
            return [random_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
        return {rng.choice(NAMES + ["d"]): random_value(rng, depth + 1) for _ in range(rng.randint(0, 3))}
    return rng.choice(VALUES)


def test_verdicts_equal_jsonschema_on_random_schemas_and_values():
    rng = random.Random(0)
    compiled = declined = checked = 0
    verdicts = set()
    for _ in range(3000):
        schema = random_schema(rng)
        fast = compile_check(schema, _FAST_TYPES)
        if fast is None:
            declined += 1
            continue
        compiled += 1
        for value in VALUES + [random_value(rng) for _ in range(8)]:
            expected = jsonschema_verdict(schema, value)
            assert fast(value) == expected, (json.dumps(schema), value)
            verdicts.add(expected)
            checked += 1
    assert verdicts == {True, False}
    assert compiled > 2000 and declined > 50 and checked > 50_000


def test_declines_what_it_does_not_handle():
    assert compile_check({"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}]}}}) is None
    assert compile_check({"type": "integer", "minimum": 0}) is None
    assert compile_check({"type": "frobnicate"}) is None
    assert compile_check({"enum": [1, True]}) is None  # bool/number equality stays with jsonschema
    assert compile_check({"required": True}) is None
    assert compile_check({"properties": {"a": "not a schema"}}) is None


def test_arguments_fit_takes_the_fast_path_for_tool_schemas():
    params = {"type": "object", "properties": {"city": {"type": "string", "description": "name"},
                                               "days": {"type": "int", "default": 3},
                                               "units": {"type": "string", "enum": ["c", "f"]}},
              "required": ["city"]}
    assert _compiled(json.dumps(params, sort_keys=True))[1] is not None
    assert arguments_fit({"city": "Paris", "days": 2, "units": "c"}, params)
    assert not arguments_fit({"days": 2}, params)
    assert not arguments_fit({"city": "Paris", "units": "k"}, params)
    assert not arguments_fit({"city": "Paris", "days": True}, params)  # a bool is not an integer
    assert arguments_fit({"city": "Paris", "days": 2.0}, params)  # an integral float is
    with_range = {**params, "properties": {**params["properties"], "days": {"type": "integer", "minimum": 1}}}
    assert _compiled(json.dumps(with_range, sort_keys=True))[1] is None
    assert not arguments_fit({"city": "Paris", "days": 0}, with_range)  # jsonschema's verdict
