"""eval/optional_args.py: stated optional arguments given or left out, on hand-made items and real BFCL prompts.

Run: .venv/bin/python -m pytest tests/test_eval_optional_args.py -q
"""

import json

from eval.optional_args import count_result, count_suite, main
from nanoagent.checker import stated_optional
from nanoagent.suites import EvalItem

FUNCTIONS = [{"name": "area", "parameters": {"type": "dict", "required": ["radius"], "properties": {
    "radius": {"type": "integer"}, "unit": {"type": "string"}, "round": {"type": "boolean"}}}}]


def item(answers, item_id="x_0"):
    return EvalItem(id=item_id, suite="x", messages=[{"role": "user", "content": "a radius of 4 inches"}], tools=[],
                    answers=answers, functions=FUNCTIONS)


def test_an_optional_argument_counts_only_where_its_answers_accept_no_empty_value():
    fn, wanted = stated_optional({"area": {"radius": [4], "unit": ["inches", "in"], "round": [True, ""]}},
                                 {f["name"]: f for f in FUNCTIONS})
    assert fn == "area" and wanted == {"unit": "string"}   # required radius and skippable round are not counted


def test_given_left_out_and_not_called_are_told_apart():
    answers = [{"area": {"radius": [4], "unit": ["inches"]}}]
    replies = {"a": {"calls": [{"name": "area", "arguments": {"radius": 4, "unit": "cm"}}]},   # given (wrong value)
               "b": {"calls": [{"name": "area", "arguments": {"radius": 4}}]},                  # left out
               "c": {"calls": [{"name": "other", "arguments": {}}]}}                             # not called
    t = count_suite([item(answers, i) for i in "abc"], replies)
    assert (t["needed"], t["called"], t["given"]) == (3, 2, 1)
    assert t["by_type"] == {"string": [2, 1]} and t["most_left_out"] == [("area.unit", 1)]
    assert t["left_out"] == ["b: unit (string) left out of: a radius of 4 inches"]


def test_the_nth_expected_call_is_matched_with_the_nth_call_of_its_function():
    answers = [{"area": {"radius": [1], "unit": [""]}}, {"area": {"radius": [2], "unit": ["cm"]}}]
    first_only = {"x_0": {"calls": [{"name": "area", "arguments": {"radius": 1, "unit": "cm"}},
                                    {"name": "area", "arguments": {"radius": 2}}]}}
    assert count_suite([item(answers)], first_only)["given"] == 0
    one_call = {"x_0": {"calls": [{"name": "area", "arguments": {"radius": 1, "unit": "cm"}}]}}
    assert count_suite([item(answers)], one_call)["called"] == 0


def test_unasked_optional_arguments_and_the_items_they_alone_cost():
    """Over-filling: an optional argument given where the answers accept '' but not that value, or do not name it,
    counts; the default's value, a required argument and a key the spec lacks do not. A reply wrong only for such
    arguments counts as their cost; one also wrong elsewhere does not."""
    answers = [{"area": {"radius": [4], "unit": ["", "inches"]}}]
    replies = {"a": {"correct": False, "calls": [{"name": "area", "arguments": {"radius": 4, "unit": "cm"}}]},
               "b": {"correct": True, "calls": [{"name": "area", "arguments": {"radius": 4, "unit": "inches"}}]},
               "c": {"correct": False, "calls": [{"name": "area", "arguments": {"radius": 5, "round": True}}]},
               "d": {"correct": False, "calls": [{"name": "area", "arguments": {"radius": 4, "made_up": 1}}]}}
    t = count_suite([item(answers, i) for i in "abcd"], replies)
    assert (t["overfilled"], t["overfilled_replies"], t["overfilled_cost"]) == (2, 2, 1)  # a: unit, c: round
    assert t["most_overfilled"] == [("area.unit", 1), ("area.round", 1)]
    assert t["overfilled_shown"] == ['a: unit="cm" given unasked']


def test_over_filling_is_read_in_any_call_order_and_an_explicit_empty_value_is_not_counted():
    answers = [{"area": {"radius": [4], "unit": ["", "inches"]}}, {"area": {"radius": [5], "unit": ["", "cm"]}}]
    swapped = {"x_0": {"correct": True, "calls": [{"name": "area", "arguments": {"radius": 5, "unit": "cm"}},
                                                  {"name": "area", "arguments": {"radius": 4, "unit": ""}}]}}
    assert count_suite([item(answers)], swapped)["overfilled"] == 0


def test_a_result_file_on_real_bfcl_prompts(tmp_path, capsys):
    result = {"kind": "toolcall", "suites": {
        "simple_python": {"items": [
            {"id": "simple_python_7", "calls": [{"name": "calculate_circumference", "arguments": {"radius": 4}}]},
            {"id": "simple_python_0", "calls": [{"name": "calculate_triangle_area",
                                                 "arguments": {"base": 10, "height": 5}}]}]},
        "irrelevance": {"items": [{"id": "irrelevance_0", "calls": []}]}}}
    table = count_result(result)
    assert set(table) == {"simple_python"}          # no expected calls on irrelevance
    assert table["simple_python"]["most_left_out"] == [("calculate_circumference.unit", 1)]
    assert table["simple_python"]["given"] == 0     # simple_python_0's unit accepts '': not counted
    path = tmp_path / "r.json"
    result["suites"]["simple_rust"] = {"items": []}  # a suite this checkout cannot load is named, not dropped quietly
    path.write_text(json.dumps(result))
    assert main([str(path)]) == 0
    out = capsys.readouterr()
    assert "given 0/1 (0.0%)" in out.out and "left out, not loadable here: simple_rust" in out.err


def test_a_file_that_is_not_a_result_gets_a_clear_error(tmp_path, capsys):
    path = tmp_path / "r.json"
    path.write_text("[]")
    assert main([str(path)]) == 2
    assert "not an eval.toolcall result" in capsys.readouterr().err
