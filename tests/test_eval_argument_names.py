"""eval/argument_names.py: argument names a function lacks, sorted by where they came from, on hand-made items.

Run: .venv/bin/python -m pytest tests/test_eval_argument_names.py -q
"""

import json

from eval.argument_names import classify, count_suite, main, near_miss, unknown_keys
from nanoagent.suites import EvalItem

FUNCTIONS = [
    {"name": "deposit", "parameters": {"type": "dict", "required": ["account_id", "amount"], "properties": {
        "account_id": {"type": "string"}, "amount": {"type": "float"}, "detail_level": {"type": "string"}}}},
    {"name": "convert", "parameters": {"type": "dict", "required": ["amount", "from_currency"], "properties": {
        "amount": {"type": "float"}, "from_currency": {"type": "string"}}}}]
SPECS = {f["name"]: f["parameters"] for f in FUNCTIONS}
ANSWERS = [{"deposit": {"account_id": ["A1"], "amount": [50.0], "detail_level": [""]}},
           {"convert": {"amount": [50.0], "from_currency": ["EUR"]}}]


def item(item_id="x_0"):
    return EvalItem(id=item_id, suite="x", messages=[{"role": "user", "content": "deposit 50 into A1, convert 50 EUR"}],
                    tools=[], answers=ANSWERS, functions=FUNCTIONS)


def call(name, **arguments):
    return {"name": name, "arguments": arguments}


def test_each_class_is_named():
    given = {"account_id", "amount"}
    assert classify("required", "deposit", given, SPECS) == "schema word"
    assert classify("from_currency", "deposit", given, SPECS) == "another tool's parameter"
    assert classify("details_level", "deposit", given, SPECS) == "near miss"
    assert classify("colour", "deposit", given, SPECS) == "invented"


def test_a_near_miss_must_be_a_parameter_the_call_left_out():
    assert near_miss("DetailLevel", {"detail_level"}) == "detail_level"
    assert near_miss("details_level", set()) is None      # nothing left out for it to stand for
    assert near_miss("colour", {"detail_level"}) is None


def test_known_keys_and_unoffered_functions_are_not_counted():
    reply = {"calls": [call("deposit", account_id="A1", amount=50.0, required=["amount"]),
                       call("withdraw", whatever=1),                        # unknown_tool: another error
                       call("convert", amount=50.0, from_currency="EUR")]}
    assert unknown_keys(item(), reply) == [(0, "required", "schema word")]


def test_replies_wrong_only_for_the_made_up_keys_are_counted():
    right_but_for_it = {"correct": False, "calls": [call("deposit", account_id="A1", amount=50.0, from_currency="EUR"),
                                                    call("convert", amount=50.0, from_currency="EUR")]}
    wrong_anyway = {"correct": False, "calls": [call("deposit", account_id="B2", amount=50.0, colour="red"),
                                                call("convert", amount=50.0, from_currency="EUR")]}
    clean = {"correct": True, "calls": [call("deposit", account_id="A1", amount=50.0),
                                        call("convert", amount=50.0, from_currency="EUR")]}
    t = count_suite([item(i) for i in "abc"], {"a": right_but_for_it, "b": wrong_anyway, "c": clean})
    assert (t["replies"], t["keys"], t["replies_with"], t["cost"]) == (3, 2, 2, 1)
    assert t["by_class"] == {"schema word": 0, "another tool's parameter": 1, "near miss": 0, "invented": 1}
    assert t["shown"]["invented"] == ["b: deposit(colour=...) has (account_id, amount, detail_level)"]


def test_the_command_reads_a_real_suite_and_reports_json(tmp_path, capsys):
    result = {"format": "nanoagent.eval", "version": 1, "kind": "toolcall", "label": "t", "suites": {"simple_python": {
        "items": [{"id": "simple_python_0", "correct": False,
                   "calls": [{"name": "calculate_triangle_area", "arguments": {"base": 10, "height": 5,
                                                                               "required": ["base"]}}]}]}}}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(result))
    assert main([str(path), "--json"]) == 0
    t = json.loads(capsys.readouterr().out)[str(path)]["simple_python"]
    assert (t["keys"], t["replies_with"], t["by_class"]["schema word"]) == (1, 1, 1)
    assert t["cost"] == 1                                # base 10, height 5 is simple_python_0's answer


def test_a_missing_file_is_a_clear_error(tmp_path, capsys):
    assert main([str(tmp_path / "none.json")]) == 2
    assert "none.json" in capsys.readouterr().err
