"""The synthetic function library and the lint on what it writes: scale, naming styles, schema kinds, exact results,
BFCL name decontamination, and the defects generated data must not show (tripled letters in names, placeholder
descriptions, units said twice).

Run: .venv/bin/python -m pytest tests/test_data_library.py -q
Left out: phrasing quality a regex can't judge (read samples with `python -m data_recipes.synthetic --n 20`).
"""

import nanoagent  # noqa: F401  (before anything that may import mlx)

import math
import random
import re

import jsonschema
import pytest

from data_recipes.decontam import EvalIndex
from data_recipes.recipe import DecontamConfig
from data_recipes.synthetic import DEFAULT_KINDS, example
from data_recipes.synthetic.catalogue import catalogue
from data_recipes.synthetic.kinds import canonical, sample_args
from data_recipes.synthetic.library import F, SpecError, computed, functions, parse_params
from data_recipes.synthetic.reserved import free_name, reserved

SNAKE = re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+)*")
CAMEL = re.compile(r"[a-z][a-z0-9]*([A-Z][a-z0-9]*)+")
MODULE = re.compile(r"[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*")


def test_two_thousand_tools_in_150_domains_in_the_naming_styles_of_the_wild():
    tools = catalogue()
    names = [t.name for t in tools]
    assert len(set(names)) == len(names) >= 2000
    assert len({t.domain for t in tools}) >= 150
    styles = {t.style for t in tools if t.verb == "fn"}
    assert styles == {"snake", "module", "camel", "bare"}
    for t in tools:
        assert SNAKE.fullmatch(t.name) or CAMEL.fullmatch(t.name) or MODULE.fullmatch(t.name), t.name
        if t.style == "camel":
            assert all(not p.name.count("_") for p, _ in t.params), t.name


def test_every_json_schema_kind_appears_and_every_schema_is_valid():
    kinds = set()
    for t in catalogue():
        params = t.spec()["function"]["parameters"]
        jsonschema.Draft202012Validator.check_schema(params)
        for prop in params["properties"].values():
            kind = prop["type"]
            if "enum" in prop:
                kind = "enum"
            if prop["type"] == "array":
                kind = "array of " + prop["items"]["type"] + ("s" if prop["items"]["type"] == "object" else "")
            kinds.add(kind)
            if "default" in prop:
                kinds.add("optional with default")
    assert kinds >= {"string", "integer", "number", "boolean", "enum", "object", "array of string", "array of integer",
                     "array of number", "array of objects", "array of array", "optional with default"}


def test_no_tool_carries_a_bfcl_function_name_and_free_name_avoids_them():
    names = {t.name for t in catalogue()}
    assert len(reserved()) > 1000 and not names & reserved()
    assert free_name("calculate_factorial") == "compute_factorial"  # a BFCL name: verb swapped
    assert free_name("get_current_weather") not in reserved()
    assert free_name("my_own_tool", taken={"my_own_tool"}) == "my_own_tool_tool"
    assert free_name("calculateAge", taken={"calculateAge"}) == "computeAge"  # camelCase verbs swap too


def test_the_build_drops_rows_whose_tools_carry_an_eval_function_name():
    index = EvalIndex(DecontamConfig())
    index.function_names = frozenset({"calculate_triangle_area"})
    row = {"tools": [{"type": "function", "function": {"name": "calculate_triangle_area"}}]}
    assert index.name_hit(row) == "bfcl:function_name"
    assert index.name_hit({"tools": [{"type": "function", "function": {"name": "triangle_area"}}]}) is None


def test_computed_results_are_exact_values_for_sampled_arguments():
    rng = random.Random(0)
    tools = [t for t in catalogue() if t.verb == "fn" and t.compute is not None]
    assert len({t.base for t in tools}) >= 250
    for t in tools:
        for _ in range(3):
            args, _ = sample_args(t, rng)
            try:
                value = computed(t, args)
            except (ZeroDivisionError, ValueError, OverflowError):
                continue  # a domain edge the sampler can reach (0 hits, asin > 1); such rows get no result turn
            flat = value if isinstance(value, list) else [value]
            for v in flat:
                assert isinstance(v, (int, float, str, bool, list)), (t.name, v)
                if isinstance(v, float):
                    assert math.isfinite(v), (t.name, args, v)
    tri = next(t for t in tools if t.base == "calculate_rectangle_area" and t.style == "camel")
    assert computed(tri, {"length": 3.0, "width": 4.0}) == 12.0  # camelCase names map back to the formula's


def test_table_errors_name_the_function_and_the_token():
    with pytest.raises(SpecError, match="geometry_2d/calculate_x.*unknown parameter type 'q'"):
        parse_params(F("geometry_2d", "calculate_x", "calculate x", "X.", "side:q:1:2"), "snake")
    with pytest.raises(SpecError, match="snake_case"):
        parse_params(F("geometry_2d", "calculate_x", "calculate x", "X.", "Side:n:1:2"), "snake")
    with pytest.raises(SpecError, match="at least one parameter"):
        parse_params(F("geometry_2d", "calculate_x", "calculate x", "X.", ""), "snake")
    assert len({f.name for f in functions()}) == len(functions())


def test_lint_names_descriptions_and_requests():
    for t in catalogue():
        assert not re.search(r"([a-z])\1\1", t.name), f"tripled letter in {t.name}"
        assert not re.search(r"mans(_|$)", t.name, re.I), f"regular plural of an irregular noun in {t.name}"
        desc = t.description
        assert desc.endswith("."), (t.name, desc)
        slot = re.search(r" \(([a-z0-9_ ,]+)\)\.$", desc)  # "Check the spelling of (text).": names in brackets
        param_words = {w for p, _ in t.params for w in p.name.split("_")}
        assert not (slot and set(re.findall(r"[a-z0-9]+", slot.group(1))) <= param_words | {"and"}), \
            f"placeholder-style description: {t.name}: {desc}"
        for p, _ in t.params:
            d = p.schema.get("description")
            assert d, f"{t.name}.{p.name}"
            # a label suffix read as a unit: "side_a" as "Side in amperes.", coverage_m2_per_l as "per in litres"
            assert "in amperes" not in d or p.name.lower().startswith("current"), (t.name, p.name, d)
            assert "in degrees Celsius" not in d or "temperature" in p.name.lower(), (t.name, p.name, d)
            assert " per in " not in d, (t.name, p.name, d)
            assert not d.startswith("Light in "), (t.name, p.name, d)  # light_years is a distance, not "in years"
    doubled = re.compile(r"(?:\b|(?<=\d))(years|hours|days|minutes|number|in|out|mm|kg|m|cm)\s+\1\b", re.I)  # "5kg kg" too
    # agreement a template's fill can break (grammar.tidy fixes them, phrasing.wrap and the diet phrases avoid them)
    agreement = re.compile(r"(?<![\d.,-])\b1 (?:passengers|items|years|days|coats|people|guests|seats)\b"
                           r"|\ba (?:8\d*|11|18|electric|oak|aluminium|eighth|advanced|intermediate)\b"
                           r"|\ba \d+ years old [a-z]|\ba meal plan that are|please,? I need")
    for i in range(1500):
        rec, info = example(i, 0, DEFAULT_KINDS)
        # a value may be such a word: "the sales tax for $277.25 in in" is India's code, typed in lower case
        said_values = {str(v).lower() for m in rec["messages"] for c in m.get("tool_calls") or []
                       for v in c["function"]["arguments"].values()}
        for m in rec["messages"]:
            if m["role"] == "user":
                hit = doubled.search(m["content"])
                assert not hit or hit.group(1).lower() in said_values, (info["kind"], m["content"])
                assert not agreement.search(m["content"]), (info["kind"], m["content"])
    plural_y = re.compile(r"\b[a-z]+[b-df-hj-np-tv-z]ys\b")  # "pharmacys": a template's "{}s" on a noun in -y
    rng = random.Random(0)
    for t in catalogue():
        for p, _ in t.params:
            for _ in range(64 if "enum" in p.schema else 8):  # an enum: every value in every template
                said = p.phrase(rng, p.sample(rng))
                assert not plural_y.search(said), (t.name, p.name, said)


def test_finance_rates_follow_the_name_convention_across_the_catalogue():
    """A money rate under a plain name (tax_rate, vat_rate, interest_rate, ...) is a fraction unless its description
    says percent; a `_percent` name is the percent. The quality-cpu-lr5e-5 model wrote 10 for BFCL's 0.1 on 13 of
    400 simple_python items, when only 6 of our functions took a fraction."""
    finance = {"personal_finance", "loans", "investing", "corporate_finance", "tax", "real_estate", "economics",
               "payroll", "legal"}
    rng = random.Random(5)
    fraction, percent = set(), set()
    for tool in catalogue():
        for p, _ in tool.params:
            snake = canonical(tool, p.name)
            plain = snake.endswith("rate") and not snake.endswith(("hourly_rate", "heart_rate"))
            if not (plain or snake.endswith("_percent")) or p.schema.get("type") != "number":
                continue
            says_percent = snake.endswith("_percent") or "percent" in p.schema.get("description", "").lower()
            values = [p.sample(rng) for _ in range(5)]
            if says_percent:
                assert any(v.value >= 1 for v in values), (tool.name, p.name)
                percent.add(snake)
            elif tool.domain in finance:
                assert all(0 <= v.value < 1 and "%" in v.text for v in values), (tool.name, p.name, values)
                fraction.add(snake)
    assert {"discount_rate", "tax_rate", "vat_rate", "interest_rate", "inflation_rate"} <= fraction, fraction
    # one name, one convention: `annual_rate` was a fraction in the compound-interest function and a percent in the
    # catalogue's loan tools, so the same word asked for both 0.05 and 5
    assert not fraction & percent, f"a fraction in one tool and a percent in another: {fraction & percent}"


def test_a_plain_rate_is_called_as_the_fraction_the_user_says_in_percent():
    """`r` parameters (discount_rate, interest_rate, tax_rate): the user says '8.5%', the call carries 0.085, while
    a `_percent` name carries the percent itself (simple_python's calculate_NPV asks for the fraction)."""
    rng = random.Random(3)
    npv = next(t for t in catalogue() if t.base == "calculate_npv" and t.style == "snake")
    loan = next(t for t in catalogue() if t.base == "calculate_monthly_payment" and t.style == "snake")
    for _ in range(20):
        args, values = sample_args(npv, rng)
        rate = args["discount_rate"]
        assert 0 < rate < 1 and values["discount_rate"].text == f"{rate * 100:g}%", values["discount_rate"]
        args, _ = sample_args(loan, rng)
        assert args["annual_rate_percent"] >= 1
    assert computed(npv, {"cash_flows": [110.0], "discount_rate": 0.1}) == 110.0
    assert computed(npv, {"cash_flows": [0.0, 110.0], "discount_rate": 0.1}) == pytest.approx(100.0)
    (rate, _), = parse_params(F("finance", "calculate_x", "calculate x", "X.", "?rate:r:1:9=0.05"), "snake")[0]
    assert rate.default == 0.05 and rate.schema["type"] == "number"


def test_a_unit_follows_the_values_it_measures():
    """"a radius of 4 inches" -> radius 4, unit "inches" (BFCL states a geometry unit so, not "with
    unit in"): the unit is said after each measured value, once per request, or in its own phrase when
    no measured value is said."""
    from data_recipes.synthetic import phrasing as T
    tools = [t for t in catalogue() if any(p.measures for p, _ in t.params)]
    assert len(tools) >= 60  # 18 geometry functions in four naming styles
    rng = random.Random(4)
    seen_glued = seen_spaced = 0
    for tool in tools:
        unit = next(p for p, _ in tool.params if p.measures)
        for _ in range(5):
            args, values = sample_args(tool, rng, p_opt=1.0)
            word = args[unit.name]
            text = T.clause(tool, args, values, rng)
            measured = [(values[n].text, *values[n].alt) for n in unit.measures if n in args]
            for forms in measured:  # as typed, or in words ("five mm")
                glued = any(re.search(rf"{re.escape(f)}{re.escape(word)}\b", text) for f in forms)
                spaced = any(re.search(rf"{re.escape(f)} {re.escape(word)}\b", text) for f in forms)
                assert glued or spaced, (text, forms, word)
                seen_glued += bool(glued)
                seen_spaced += bool(spaced)
            assert f"with unit {word}" not in text
            alone = T.clause(tool, {unit.name: word}, values, rng)
            assert re.search(rf"\bin {re.escape(word)}\b", alone), alone
    assert seen_glued and seen_spaced > seen_glued


def test_a_unit_must_name_arguments_of_its_function():
    with pytest.raises(SpecError, match="measures"):
        parse_params(F("geometry_2d", "calculate_square_area", "find the area of a square", "Area of a square.",
                       "side:n:1:9@with side {}; ?unit:u:length:edge"), "snake")


def test_lookups_offer_optional_flags_said_as_people_say_them():
    """BFCL's simple_python tools offer an optional boolean on 38 of 400 functions ("including human impact",
    "with details"), and the default model left out 16 of the 21 its requests state, trained on lookups that offered
    one on 1 function. A flag the request states is in the call, and its phrase is in the request."""
    from data_recipes.synthetic import phrasing as T
    lookups = [fn for fn in functions() if fn.compute is None]
    flagged = [fn for fn in lookups if re.search(r"(?:^|;)\s*\?[a-z_]+:b\b", fn.params)]
    assert len(flagged) >= 15
    rng = random.Random(8)
    tools = [t for t in catalogue() if t.verb == "fn" and t.base in {fn.name for fn in flagged}]
    for tool in tools:
        args, values = sample_args(tool, rng, p_opt=1.0)
        text = T.clause(tool, args, values, rng)
        for p, required in tool.params:
            if not required and p.schema["type"] == "boolean":
                assert any(ph in text for ph in (p.phrases if args[p.name] else p.false_phrases)), (text, p.name)
