"""data_recipes/synthetic/session.py: several requests against one tool list, in a conversation a real agent could
have had.

Run: .venv/bin/python -m pytest tests/test_data_session.py -q
"""

import random

import pytest

from data_recipes.synthetic import generate
from data_recipes.synthetic.generate import check_kinds
from data_recipes.synthetic.session import follow, turn_plan
from nanoagent.record import Record
from nanoagent.toolcall import check_arguments


def turns(record):
    """(user request, [assistant messages until the next request]) per request."""
    out = []
    for m in record["messages"]:
        if m["role"] == "user":
            out.append((m["content"], []))
        elif m["role"] != "system":
            out[-1][1].append(m)
    return out


@pytest.fixture(scope="module")
def rows():
    return list(generate(300, seed=7, kinds={"session": 1}))


def test_every_call_fits_an_offered_tool_and_every_session_calls_at_least_twice(rows):
    for rec in rows:
        Record.from_dict(rec)
        specs = {t["function"]["name"]: t["function"]["parameters"] for t in rec["tools"]}
        assert 2 <= len(specs) <= 4
        call_turns = 0
        for _, replies in turns(rec):
            calls = [c["function"] for m in replies for c in m.get("tool_calls") or []]
            call_turns += bool(calls)
            for c in calls:
                assert c["name"] in specs and check_arguments(c["arguments"], specs[c["name"]]) == []
        assert call_turns >= 2


def test_the_user_speaks_again_only_after_results_and_an_answer(rows):
    for rec in rows:
        asked = turns(rec)
        for i, (_, replies) in enumerate(asked):
            if not replies[0].get("tool_calls"):   # an unfit request: declined or answered in text, one message
                assert len(replies) == 1 and replies[0]["content"]
                continue
            n_calls = len(replies[0]["tool_calls"])
            rest = replies[1:]
            if i < len(asked) - 1 or rest:
                assert [m["role"] for m in rest] == ["tool"] * n_calls + ["assistant"]
                assert rest[-1]["content"] and not rest[-1].get("tool_calls")


def test_sessions_mix_tools_turn_kinds_and_lengths(rows):
    lengths = [len(turns(r)) for r in rows]
    assert set(lengths) == {2, 3}
    unfit = sum(not replies[0].get("tool_calls") for r in rows for _, replies in turns(r))
    parallel = sum(len(replies[0].get("tool_calls") or []) > 1 for r in rows for _, replies in turns(r))
    two_tools = sum(len({c["function"]["name"] for m in r["messages"] for c in m.get("tool_calls") or []}) > 1
                    for r in rows)
    n_turns = sum(lengths)
    assert 0.05 * n_turns < unfit < 0.2 * n_turns and 0.08 * n_turns < parallel < 0.3 * n_turns
    assert two_tools > 0.3 * len(rows)                          # later requests move to another offered tool


def test_a_plan_opens_with_a_call_and_holds_two():
    for seed in range(200):
        plan = turn_plan(random.Random(seed))
        assert plan[0] == "call" and plan.count("call") >= 2 and len(plan) in (2, 3)


def test_a_later_request_drops_its_greeting_after_a_lead():
    assert follow("Thanks. ", "Hi, find hotels in Paris.") == "Thanks. Find hotels in Paris."
    assert follow("", "Hi, find hotels in Paris.") == "Hi, find hotels in Paris."


def test_the_kind_is_off_by_default_and_a_recipe_can_weight_it():
    assert "session" not in check_kinds(None)
    assert check_kinds({"session": 0.2, "single": 0.8}) == {"session": 0.2, "single": 0.8}


def test_a_later_call_takes_its_values_from_its_own_request(rows):
    """Values are copied from the latest request, not carried from an earlier one (dates may be normalised)."""
    later = own = 0
    for rec in rows:
        request, first = None, True
        for m in rec["messages"]:
            if m["role"] == "user":
                request = m["content"].lower()
            elif m.get("tool_calls"):
                if first:
                    first = False
                    continue
                values = [v for c in m["tool_calls"] for v in c["function"]["arguments"].values()
                          if isinstance(v, str) and len(v) > 2]
                if values:
                    later += 1
                    own += all(v.lower() in request for v in values)
                assert not request.startswith(("thanks. hi", "great. hi", "ok. hi")), request
    assert later > 50 and own >= 0.85 * later, (own, later)   # 106 of 115 at seed 7; the rest are dates


def test_the_ab_recipe_moves_call_weight_to_sessions_and_keeps_the_no_call_share():
    from data_recipes.recipe import load_recipe, validate
    from data_recipes.synthetic import DEFAULT_KINDS

    recipe = load_recipe("data_recipes/recipes/session-ab.yaml")
    validate(recipe)
    kinds = next(s for s in recipe.sources if s.id == "synthetic").kinds
    assert kinds["session"] > 0.2 and set(kinds) == set(DEFAULT_KINDS) | {"session"}
    no_call = [m["no_tool"] / sum(m.values()) for m in (kinds, DEFAULT_KINDS)]
    assert abs(no_call[0] - no_call[1]) < 1e-9
