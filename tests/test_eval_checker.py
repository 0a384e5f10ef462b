"""The BFCL-convention checker (nanoagent/checker.py) on hand-made correct and incorrect answers, one group per category.

Run: .venv/bin/python -m pytest -q tests/test_eval_checker.py
"""

import nanoagent  # noqa: F401
import pytest

from nanoagent.checker import check_calls, normalize_string, type_matches, value_matches


def call(name, **args):
    return {"type": "function", "function": {"name": name, "arguments": args}}


TRIANGLE = [{"name": "calculate_triangle_area", "parameters": {"type": "dict", "properties": {
    "base": {"type": "integer"}, "height": {"type": "integer"}, "unit": {"type": "string"}},
    "required": ["base", "height"]}}]
TRIANGLE_ANSWER = [{"calculate_triangle_area": {"base": [10], "height": [5], "unit": ["units", ""]}}]


# ---------------------------------------------------------------------------------------------- simple (one call)

def test_simple_correct_with_and_without_optional():
    assert check_calls([call("calculate_triangle_area", base=10, height=5)], TRIANGLE_ANSWER, TRIANGLE).correct
    assert check_calls([call("calculate_triangle_area", base=10, height=5, unit="Units")], TRIANGLE_ANSWER,
                       TRIANGLE).correct


@pytest.mark.parametrize("calls, kind", [
    ([call("triangle_area", base=10, height=5)], "wrong_name"),
    ([call("calculate_triangle_area", base=10)], "missing_required"),
    ([call("calculate_triangle_area", base=10, height=6)], "wrong_value"),
    ([call("calculate_triangle_area", base=10, height=5, unit="cm")], "wrong_value"),
    ([call("calculate_triangle_area", base="10", height=5)], "wrong_type"),
    ([call("calculate_triangle_area", base=10.0, height=5)], "wrong_type"),   # float where int is declared
    ([call("calculate_triangle_area", base=True, height=5)], "wrong_type"),   # bool is not an int
    ([call("calculate_triangle_area", base=10, height=5, color="red")], "unexpected_argument"),
    ([], "no_call"),
    ([call("calculate_triangle_area", base=10, height=5)] * 2, "wrong_count"),
])
def test_simple_incorrect(calls, kind):
    result = check_calls(calls, TRIANGLE_ANSWER, TRIANGLE)
    assert not result.correct and result.kind == kind, result


def test_answer_argument_without_empty_marker_must_be_given():
    funcs = [{"name": "f", "parameters": {"type": "dict", "properties": {"a": {"type": "string"},
                                                                          "b": {"type": "string"}}, "required": ["a"]}}]
    answer = [{"f": {"a": ["x"], "b": ["y"]}}]
    assert check_calls([call("f", a="x")], answer, funcs).kind == "missing_argument"
    assert check_calls([call("f", a="x", b="y")], answer, funcs).correct


def test_float_accepts_int_but_integer_refuses_float():
    funcs = [{"name": "f", "parameters": {"type": "dict", "properties": {"x": {"type": "float"}}, "required": ["x"]}}]
    assert check_calls([call("f", x=3)], [{"f": {"x": [3.0]}}], funcs).correct
    assert check_calls([call("f", x=3.0)], [{"f": {"x": [3.0]}}], funcs).correct
    assert check_calls([call("f", x=3.5)], [{"f": {"x": [3.0]}}], funcs).kind == "wrong_value"


def test_string_normalisation_like_bfcl():
    assert normalize_string("New York, NY") == normalize_string("new york ny")
    assert value_matches("San_Francisco", "san francisco")
    assert value_matches("it's", 'it"s')
    assert not value_matches("Paris", "London")
    assert not value_matches("10", 10)          # a string is never a number


def test_types_of_lists_tuples_dicts_and_any():
    assert type_matches([1, 2], {"type": "array", "items": {"type": "integer"}})
    assert not type_matches([1, "2"], {"type": "array", "items": {"type": "integer"}})
    assert type_matches([1, 2], {"type": "tuple"})
    assert type_matches({"a": 1}, {"type": "dict", "properties": {"a": {"type": "integer"}}})
    assert not type_matches({"a": "1"}, {"type": "dict", "properties": {"a": {"type": "integer"}}})
    assert type_matches(object(), {"type": "any"})


def test_list_values_compare_in_order():
    funcs = [{"name": "f", "parameters": {"type": "dict", "properties": {"m": {"type": "array"}}, "required": ["m"]}}]
    answer = [{"f": {"m": [[3, 5]]}}]
    assert check_calls([call("f", m=[3, 5])], answer, funcs).correct
    assert not check_calls([call("f", m=[5, 3])], answer, funcs).correct
    assert not check_calls([call("f", m=[3])], answer, funcs).correct


def test_nested_dict_answers():
    funcs = [{"name": "drink", "parameters": {"type": "dict", "properties": {
        "id": {"type": "string"}, "prefs": {"type": "dict", "properties": {
            "size": {"type": "string"}, "milk": {"type": "string"}, "note": {"type": "string"}}}},
        "required": ["id"]}}]
    answer = [{"drink": {"id": ["latte"], "prefs": [{"size": ["large"], "milk": ["coconut"], "note": ["", "hot"]}]}}]
    assert check_calls([call("drink", id="latte", prefs={"size": "Large", "milk": "coconut"})], answer, funcs).correct
    assert check_calls([call("drink", id="latte", prefs={"size": "large", "milk": "coconut", "note": "hot"})],
                       answer, funcs).correct
    assert not check_calls([call("drink", id="latte", prefs={"size": "large"})], answer, funcs).correct
    assert not check_calls([call("drink", id="latte", prefs={"size": "large", "milk": "oat"})], answer, funcs).correct
    assert not check_calls([call("drink", id="latte", prefs={"size": "large", "milk": "coconut", "ice": "yes"})],
                           answer, funcs).correct


# ---------------------------------------------------------------------------------------------- multiple

MULTI_FUNCS = [{"name": "weather.get", "parameters": {"type": "dict", "properties": {"city": {"type": "string"}},
                                                      "required": ["city"]}},
               {"name": "stocks.get", "parameters": {"type": "dict", "properties": {"ticker": {"type": "string"}},
                                                     "required": ["ticker"]}}]


def test_multiple_picks_the_right_function():
    answer = [{"stocks.get": {"ticker": ["AAPL"]}}]
    assert check_calls([call("stocks.get", ticker="aapl")], answer, MULTI_FUNCS).correct
    assert check_calls([call("weather.get", city="AAPL")], answer, MULTI_FUNCS).kind == "wrong_name"


# ---------------------------------------------------------------------------------------------- parallel (+ multiple)

PLAY = [{"name": "spotify.play", "parameters": {"type": "dict", "properties": {
    "artist": {"type": "string"}, "duration": {"type": "integer"}}, "required": ["artist", "duration"]}}]
PLAY_ANSWER = [{"spotify.play": {"artist": ["Taylor Swift"], "duration": [20]}},
               {"spotify.play": {"artist": ["Maroon 5"], "duration": [15]}}]


def test_parallel_any_order():
    a = call("spotify.play", artist="Taylor Swift", duration=20)
    b = call("spotify.play", artist="Maroon 5", duration=15)
    assert check_calls([a, b], PLAY_ANSWER, PLAY).correct
    assert check_calls([b, a], PLAY_ANSWER, PLAY).correct


def test_parallel_incorrect():
    a = call("spotify.play", artist="Taylor Swift", duration=20)
    swapped = [call("spotify.play", artist="Taylor Swift", duration=15), call("spotify.play", artist="Maroon 5",
                                                                               duration=20)]
    assert check_calls([a], PLAY_ANSWER, PLAY).kind == "wrong_count"
    assert check_calls([a, a], PLAY_ANSWER, PLAY).correct is False        # one call can't serve two answers
    assert check_calls(swapped, PLAY_ANSWER, PLAY).kind == "wrong_value"


def test_parallel_matching_is_one_to_one_not_greedy():
    # call 0 fits both answers, call 1 only the first: a greedy first-fit would give call 0 to answer 0 and fail
    funcs = [{"name": "f", "parameters": {"type": "dict", "properties": {"x": {"type": "string"}}}}]
    answers = [{"f": {"x": ["a", "b"]}}, {"f": {"x": ["a"]}}]
    assert check_calls([call("f", x="a"), call("f", x="b")], answers, funcs).correct


def test_parallel_multiple():
    answer = [{"weather.get": {"city": ["Paris"]}}, {"stocks.get": {"ticker": ["MSFT"]}}]
    good = [call("stocks.get", ticker="MSFT"), call("weather.get", city="paris")]
    assert check_calls(good, answer, MULTI_FUNCS).correct
    bad = [call("stocks.get", ticker="MSFT"), call("stocks.get", ticker="AAPL")]
    assert check_calls(bad, answer, MULTI_FUNCS).kind == "wrong_name"


# ---------------------------------------------------------------------------------------------- (ir)relevance

def test_irrelevance_means_no_call():
    assert check_calls([], [], MULTI_FUNCS).correct
    result = check_calls([call("weather.get", city="Paris")], [], MULTI_FUNCS)
    assert not result.correct and result.kind == "called_irrelevant"


def test_relevance_means_any_call():
    assert check_calls([call("weather.get", city="Nowhere")], [], MULTI_FUNCS, expect_call=True).correct
    assert check_calls([], [], MULTI_FUNCS, expect_call=True).kind == "no_call"


def test_malformed_answer_is_a_clear_error():
    with pytest.raises(ValueError, match="possible answer"):
        check_calls([call("f")], [{"f": {}, "g": {}}], [])
