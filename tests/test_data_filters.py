"""Row filters: turn cleanup, <think> stripping, schema validity, response shortening, the token cap.

Run: .venv/bin/python -m pytest tests/test_data_filters.py -q
"""

import pytest

from data_recipes.convert import Drop
from data_recipes.filters import apply_filters, clean_turns, cut_text, strip_think
from data_recipes.recipe import FilterConfig

TOOL = {"type": "function", "function": {"name": "f", "description": "", "parameters": {
    "type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}}}


def rec(*messages, tools=()):
    return {"messages": list(messages), "tools": list(tools), "meta": {"source": "t"}}


def u(text):
    return {"role": "user", "content": text}


def a(text="", calls=None):
    m = {"role": "assistant", "content": text}
    if calls:
        m["tool_calls"] = [{"type": "function", "function": {"name": "f", "arguments": c}} for c in calls]
    return m


def test_trailing_unanswered_turns_are_trimmed_and_empty_turns_drop():
    out = clean_turns(rec({"role": "system", "content": " "}, u("hi"), a("hello"), u("thanks")))
    assert [m["role"] for m in out["messages"]] == ["user", "assistant"]
    with pytest.raises(Drop, match="empty_user_turn"):
        clean_turns(rec(u("  "), a("x")))
    with pytest.raises(Drop, match="no_assistant_turn"):
        clean_turns(rec(u("only a question")))


def test_strip_think():
    out = strip_think(rec(u("q"), a("<think>long\nreasoning</think>\nThe answer is 4.")))
    assert out["messages"][1]["content"] == "The answer is 4."
    with pytest.raises(Drop, match="empty_after_think"):
        strip_think(rec(u("q"), a("<think>only thoughts</think>")))
    with pytest.raises(Drop, match="unclosed_think"):
        strip_think(rec(u("q"), a("<think>never closed")))


def test_schema_check_drops_off_schema_calls(tiny_tok):
    ok = rec(u("q"), a(calls=[{"n": 3}]), tools=[TOOL])
    apply_filters(ok, FilterConfig(), tiny_tok)
    bad = rec(u("q"), a(calls=[{"n": "three"}]), tools=[TOOL])
    with pytest.raises(Drop, match="arguments_off_schema"):
        apply_filters(bad, FilterConfig(), tiny_tok)
    apply_filters(bad, FilterConfig(check_schema=False), tiny_tok)


def test_long_responses_are_cut_at_a_sentence_end_or_dropped(tiny_tok):
    text = " ".join(f"Sentence number {i} says something." for i in range(200))
    kept = cut_text(text, tiny_tok, 100, 0.5)
    assert kept and kept.endswith("something.") and len(kept) < len(text)
    n = len(tiny_tok.backend_tokenizer.encode(kept, add_special_tokens=False).ids)
    assert 50 <= n <= 100
    assert cut_text("x" * 5000, tiny_tok, 100, 0.5) is None  # no place to cut: dropped
    out, info = apply_filters(rec(u("q"), a(text)), FilterConfig(max_response_tokens=100), tiny_tok)
    assert info["shortened"] and out["messages"][1]["content"] == kept
    with pytest.raises(Drop, match="response_too_long"):
        apply_filters(rec(u("q"), a("y" * 5000)), FilterConfig(max_response_tokens=100), tiny_tok)


def test_token_cap_counts_the_rendered_record(tiny_tok):
    r = rec(u("word " * 300), a("ok"))
    _, info = apply_filters(r, FilterConfig(max_tokens=10_000), tiny_tok)
    assert info["tokens"] > 300 and 0 < info["supervised"] < 10
    with pytest.raises(Drop, match="over_token_cap"):
        apply_filters(r, FilterConfig(max_tokens=info["tokens"] - 1), tiny_tok)
