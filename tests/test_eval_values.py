"""eval/values.py: wrong argument values sorted by what went wrong, on hand-made cases and real BFCL prompts.

Run: .venv/bin/python -m pytest tests/test_eval_values.py -q
"""

import json

import pytest

from eval.values import classify, classify_result, main, seen_split, training_values


@pytest.mark.parametrize("value, allowed, others, prompt, expected", [
    ("Chicago", ["single"], {"location": "Chicago"}, "a single room in Chicago", "another argument's value"),
    (5, [0.05], {}, "a 5% return", "percent for fraction"),
    ("New York", ["New York, NY"], {}, "vegan food in New York", "partial surface form"),
    ("USA", ["United States", "USA "], {}, "in the USA", "partial surface form"),
    ("liquid", ["vaporization"], {}, "water turning from liquid to gas", "another span of the prompt"),
    ("Town", ["Tokyo"], {"country": "Japan"}, "weather in Tokyo, Japan", "invented"),
    (10, [1000], {}, "10 apples", "another span of the prompt"),  # 10 x 100 is not 1000: not a percent
    (True, [1.0], {}, "yes", "invented"),                         # booleans are not numbers here
    (True, [False], {"b": True}, "", "invented"),                 # nor another argument's value by chance
    (None, ["x"], {"c": None}, "", "invented"),
    (7, [0.07], {"years": 7}, "7% for 7 years", "percent for fraction"),   # checked first
    ("E", ["EUR"], {}, "pay in E", "another span of the prompt"),  # one letter is no surface form
    (5, [7], {}, "a loan of $15000", "invented"),                  # '5' is not a token of '$15000'
    (5, [50], {}, "a loan of $15000", "zeros miscounted"),         # nor is it there: 50 with a zero dropped
    (500, [5000], {}, "invest $5000", "zeros miscounted"),
    (1000, [10000, 10000.0], {}, "$10,000 at 5%", "zeros miscounted"),
    (0.6, [0.06], {}, "a 6% growth rate", "zeros miscounted"),
    (500, [5000], {}, "500 shares worth $5000", "another span of the prompt"),  # the span comes first
    (5001, [5000], {}, "$5000", "invented"),
    (-500, [5000], {}, "$5000", "invented"),
])
def test_each_class_on_a_hand_made_case(value, allowed, others, prompt, expected):
    assert classify(value, allowed, others, prompt) == expected


def result_with(items):
    return {"suites": {"simple_python": {"items": items}}}


def test_a_result_file_on_real_bfcl_prompts(tmp_path, capsys):
    items = [
        {"id": "simple_python_35", "kind": "wrong_value", "calls": [{"name": "vegan_restaurant.find_nearby",
         "arguments": {"location": "New York", "operating_hours": 23}}],
         "message": "vegan_restaurant.find_nearby: location='New York' is not among ['New York, NY']"},
        {"id": "simple_python_27", "kind": "wrong_value", "calls": [{"name": "final_velocity",
         "arguments": {"initial_velocity": 2, "acceleration": 2, "time": 5}}],
         "message": "final_velocity: initial_velocity=2 is not among [10]"},
        {"id": "simple_python_1", "kind": "ok", "calls": [], "message": ""},
        {"id": "simple_python_2", "kind": "wrong_value", "calls": [], "message": "something else"},
    ]
    table = classify_result(result_with(items))["simple_python"]
    assert table["wrong_value"] == 3
    assert table["classes"] == {"another argument's value": 1, "partial surface form": 1, "unclassified": 1}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(result_with(items)))
    assert main([str(path)]) == 0
    out = capsys.readouterr().out
    assert "simple_python: 3 wrong values" in out and "simple_python_35" in out


def test_parallel_calls_compare_the_call_that_gave_the_value():
    items = [{"id": "simple_python_27", "kind": "wrong_value", "message":
              "expected call 2: final_velocity: initial_velocity=7 is not among [10]",
              "calls": [{"name": "final_velocity", "arguments": {"initial_velocity": 10, "time": 7}},
                        {"name": "final_velocity", "arguments": {"initial_velocity": 7, "time": 5}}]}]
    classes = classify_result(result_with(items))["simple_python"]["classes"]
    assert classes == {"invented": 1}  # 7 is not the second call's other value, nor in the prompt


def test_a_file_that_is_not_a_result_is_a_clear_error(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    assert main([str(bad)]) == 2 and "not an eval.toolcall result" in capsys.readouterr().err
    assert main([str(tmp_path / "missing.json")]) == 2


def test_stated_strings_split_by_whether_training_calls_carried_them(tmp_path, capsys):
    train = tmp_path / "train.jsonl"
    rows = [{"messages": [{"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {
        "name": "f", "arguments": {"method": "Simpson", "opts": [{"unit": "in"}]}}}]}]},
            {"messages": [{"role": "user", "content": "x**3"}]}]  # a user's words are not a call's value
    train.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    seen = training_values(train)
    assert seen == {"simpson", "in"}
    items = [  # simple_python_15 states function 'x**3' and method 'simpson'; _7 states unit 'inches' ('in' too)
        {"id": "simple_python_15", "kind": "wrong_value", "calls": [{"name": "integrate", "arguments": {
            "function": "x^3", "start_x": -2, "end_x": 3, "method": "trapezoid"}}]},
        {"id": "simple_python_7", "kind": "ok", "calls": [{"name": "calculate_circumference",
                                                          "arguments": {"radius": 4}}]},
        {"id": "simple_python_5", "kind": "wrong_func", "calls": [{"name": "other", "arguments": {}}]},
    ]
    split = seen_split(result_with(items), seen)["simple_python"]
    assert split == {"seen": {"right": 0, "wrong": 1, "left out": 1},
                     "unseen": {"right": 1, "wrong": 0, "left out": 0}}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(result_with(items)))
    assert main([str(path), "--train", str(train)]) == 0
    assert "2 distinct strings" in capsys.readouterr().out
    (tmp_path / "bad.jsonl").write_text("{not json\n")
    assert main([str(path), "--train", str(tmp_path / "bad.jsonl")]) == 2
    assert "bad.jsonl:1 is not JSON" in capsys.readouterr().err
