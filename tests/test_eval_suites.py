"""Suites and scoring end to end on real BFCL data and on validation records: replies written from the possible
answers must score correct, broken or wrong replies must not, and bad input fails before any model loads.

Run: .venv/bin/python -m pytest -q tests/test_eval_suites.py
(The BFCL tests skip with a reason when the bfcl-eval wheel is absent: `pip install --no-deps bfcl-eval`.)
"""

import importlib.util
import json

import nanoagent  # noqa: F401
import pytest

from nanoagent.scoring import score_reply
from nanoagent.suites import (BFCL_SUITES, EvalItem, SuiteError, expand_suites, load_suite, load_valid)
from nanoagent.toolcall import format_tool_call

needs_bfcl = pytest.mark.skipif(importlib.util.find_spec("bfcl_eval") is None,
                                reason="bfcl-eval wheel not installed (pip install --no-deps bfcl-eval)")


def pick(allowed, required=False):
    """A value the possible answer allows, built recursively; OMIT where it may be left out."""
    if "" in allowed and not required:
        return OMIT
    for a in allowed:
        if isinstance(a, dict) and all(isinstance(v, list) for v in a.values()):
            out = {k: pick(v) for k, v in a.items()}
            return {k: v for k, v in out.items() if v is not OMIT}
        if isinstance(a, list):
            return [pick([x]) if isinstance(x, dict) else x for x in a]
        return a
    return OMIT


OMIT = object()
# Items whose only allowed values contradict their own spec, so no reply passes the type check (BFCL's data).
UNWINNABLE = {"parallel_multiple_21": "x and y are arrays in the spec, the answer allows only strings"}


def reply_from_answers(answers, functions=()):
    """The calls an answer describes, leaving out what may be omitted."""
    required = {f["name"]: set((f.get("parameters") or {}).get("required") or []) for f in functions}
    parts = []
    for ans in answers:
        (name, args), = ans.items()
        chosen = {k: pick(v, k in required.get(name, ())) for k, v in args.items()}
        parts.append(format_tool_call(name, {k: v for k, v in chosen.items() if v is not OMIT}))
    return "\n".join(parts)


@needs_bfcl
@pytest.mark.parametrize("suite", BFCL_SUITES)
def test_answers_written_as_replies_score_correct(suite):
    items, dropped = load_suite(suite, limit=40)
    assert items and not dropped
    for item in items:
        if item.id in UNWINNABLE:
            assert not score_reply(reply_from_answers(item.answers, item.functions), item)["correct"]
            continue
        if item.expect == "no_call":
            text, wrong = "I can't do that with these tools.", reply_from_answers(
                [{item.tools[0]["function"]["name"]: {}}])
        elif item.expect == "any_call":
            name = item.tools[0]["function"]["name"]
            text, wrong = f'<tool_call>\n{{"name": "{name}", "arguments": {{}}}}\n</tool_call>', "No."
        else:
            text, wrong = reply_from_answers(item.answers, item.functions), "Sure! The answer is 42."
        got = score_reply(text, item)
        assert got["correct"], (item.id, text, got)
        assert not score_reply(wrong, item)["correct"], item.id


@needs_bfcl
def test_parallel_reply_in_reverse_order_is_correct_and_one_missing_call_is_not():
    items, _ = load_suite("parallel", limit=10)
    for item in items:
        forward = reply_from_answers(item.answers, item.functions)
        assert score_reply(reply_from_answers(item.answers[::-1], item.functions), item)["correct"], item.id
        got = score_reply(reply_from_answers(item.answers[:-1], item.functions), item)
        assert not got["correct"] and got["kind"] == "wrong_count"
        assert score_reply(forward, item)["valid"]


@needs_bfcl
def test_parser_rejections_are_scored_invalid_never_raised():
    item = load_suite("simple_python", limit=1, sample="first")[0][0]  # calculate_triangle_area
    for text, kind in [("<tool_call>\n{\"name\": \"calculate_triangle_area\"", "unclosed_tag"),
                       ("<tool_call>\n{name: area}\n</tool_call>", "not_json"),
                       ('<tool_call>\n{"name": "nope", "arguments": {}}\n</tool_call>', "unknown_tool"),
                       ('<tool_call>\n{"name": "calculate_triangle_area", "arguments": {"base": "ten"}}\n</tool_call>',
                        "missing_required+bad_arguments"),
                       # a call with bad arguments, then an unclosed one (a trained model's reply crashed train.dft)
                       ('<tool_call>\n{"name": "calculate_triangle_area", "arguments": {"base": "ten"}}\n</tool_call>'
                        '\n<tool_call>\n{"name": "calculate_triangle_area"', "unclosed_tag")]:
        got = score_reply(text, item)
        assert got == {**got, "has_call": True, "valid": False, "correct": False, "kind": kind}


def test_a_broken_call_on_irrelevance_is_wrong():
    item = EvalItem(id="x", suite="irrelevance", messages=[{"role": "user", "content": "hi"}], tools=[],
                    answers=[], expect="no_call")
    assert score_reply("Hello!", item)["correct"]
    assert not score_reply("<tool_call>\n{oops\n</tool_call>", item)["correct"]


def test_unknown_suite_and_groups():
    assert expand_suites("core") == ["simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance"]
    assert expand_suites(["simple_python,valid", "simple_python"]) == ["simple_python", "valid"]
    with pytest.raises(SuiteError, match="unknown suite 'simple_rust'"):
        expand_suites("simple_rust")


def test_missing_bfcl_wheel_says_how_to_install(monkeypatch):
    import nanoagent.bfcl_data as bd

    bd.data_dir.cache_clear()
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None)
    try:
        with pytest.raises(SuiteError, match="pip install --no-deps bfcl-eval"):
            load_suite("simple_python", limit=1)
    finally:
        monkeypatch.undo()
        bd.data_dir.cache_clear()


def test_validation_split_items_and_drops(tmp_path):
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]
    rows = [
        {"messages": [{"role": "user", "content": "Weather in Paris?"},
                      {"role": "assistant", "content": "", "tool_calls": [
                          {"function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]}],
         "tools": tools, "meta": {"id": "a"}},
        {"messages": [{"role": "user", "content": "Tell me a joke"}, {"role": "assistant", "content": "No."}],
         "tools": tools, "meta": {"id": "b"}},
        {"messages": [{"role": "user", "content": "2+2?"}, {"role": "assistant", "content": "4"}]},
    ]
    path = tmp_path / "valid.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    items, dropped = load_valid(path)
    assert [i.expect for i in items] == ["calls", "no_call"] and dropped == {"no tools offered": 1}
    call = format_tool_call("get_weather", {"city": "paris"})
    assert score_reply(call, items[0])["correct"]
    assert not score_reply(format_tool_call("get_weather", {"city": "Rome"}), items[0])["correct"]
    assert score_reply("Why did the chicken...", items[1])["correct"]
    assert not score_reply(call, items[1])["correct"]


@pytest.mark.parametrize("line, problem", [
    ("{not json", "is not JSON"), ('{"messages": [{"role": "robot", "content": "x"}]}', "is not a valid record")])
def test_malformed_validation_file_is_a_clear_error(tmp_path, line, problem):
    path = tmp_path / "v.jsonl"
    path.write_text(line + "\n")
    with pytest.raises(SuiteError, match=f"v.jsonl:1 {problem}"):
        load_suite(f"valid:{path}")
    with pytest.raises(SuiteError, match="does not exist"):
        load_suite(f"valid:{tmp_path / 'missing.jsonl'}")


def test_the_eval_prompt_is_the_prefix_training_renders(tmp_path, tiny_tok):
    """Eval sees exactly what training saw: the item's prompt ids are the training ids up to the assistant's reply."""
    from nanoagent.record import Record
    from nanoagent.render import render, render_prompt

    row = {"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Weather in Oslo?"},
                        {"role": "assistant", "content": "", "tool_calls": [
                            {"function": {"name": "get_weather", "arguments": {"city": "Oslo"}}}]}],
           "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {
               "type": "object", "properties": {"city": {"type": "string"}}}}}]}
    path = tmp_path / "v.jsonl"
    path.write_text(json.dumps(row) + "\n")
    item = load_valid(path)[0][0]
    ids, mask = render(Record.from_dict(row), tiny_tok)
    prompt = render_prompt(item.messages, item.tools, tiny_tok)
    first_supervised = mask.index(1)
    assert ids[:first_supervised] == prompt


@needs_bfcl
def test_limit_takes_a_seeded_random_sample_in_file_order_and_first_n_on_request():
    """--limit once took the first N items, which are neither random nor representative (issue: eval can't see 10
    points); now it draws a seeded sample and keeps `first` as an option."""
    whole, _ = load_suite("simple_python")
    a, _ = load_suite("simple_python", limit=25)
    b, _ = load_suite("simple_python", limit=25)
    assert [i.id for i in a] == [i.id for i in b], "the same seed draws the same items"
    order = {item.id: n for n, item in enumerate(whole)}
    assert [order[i.id] for i in a] == sorted(order[i.id] for i in a), "kept in file order"
    assert [i.id for i in a] != [i.id for i in whole[:25]]
    assert max(order[i.id] for i in a) > 200, "drawn from the whole suite, not its head"
    other, _ = load_suite("simple_python", limit=25, seed=1)
    assert [i.id for i in other] != [i.id for i in a]
    first, _ = load_suite("simple_python", limit=25, sample="first")
    assert [i.id for i in first] == [i.id for i in whole[:25]]
    assert len(load_suite("simple_python", limit=10_000)[0]) == len(whole)
    with pytest.raises(SuiteError, match="sample 'head'"):
        load_suite("simple_python", limit=5, sample="head")


def test_a_suite_can_carry_its_own_sample_size():
    from nanoagent.suites import split_limit

    assert split_limit("live_irrelevance@250", 10) == ("live_irrelevance", 250)
    assert split_limit("simple_python", 10) == ("simple_python", 10)
    assert split_limit("valid:data/x/valid.jsonl@40") == ("valid:data/x/valid.jsonl", 40)
    assert "live_irrelevance@250" in expand_suites("quality") and "simple_python" in expand_suites("quality")
    for bad in ("irrelevance@0", "irrelevance@ten", "nope@5"):
        with pytest.raises(SuiteError, match="irrelevance@|unknown suite"):
            expand_suites(bad)
