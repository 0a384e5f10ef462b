"""The session kind: two to four requests in one conversation, all against the same offered tools.

Why. The default training run reads about 840 rows (150 steps of four packed rows of 1,024 tokens), and in the
default build 69% of a row's characters are its tool specs, which carry no loss: a row teaches about 72 supervised
tokens for 567 read. A session shows its tools once and asks several things of them, so each spec is read once for
several replies to learn from. It also asks what a one-request row cannot: after a call and its answer, the next
request needs another tool, another call of the same one with new values, or none of them at all, and the model
must read the latest request rather than the one before it (the parallel suites' `carried` values, eval.call_counts).

What a session holds. Two or three tools from unrelated domains (each with a required parameter and a result the
source can give), sometimes one more from another domain, offered once. Then 2-4 turns, at least two of which call:
- a call turn asks one offered tool for one call, or (P_PARALLEL) for 2-3 calls of it in the ways the parallel
  kind asks (kinds.same_tool_calls); a call turn that is not the session's last turn gets its tool results and a
  short answer, as a real conversation would before the user speaks again; a last one ends at the call or
  (P_LAST_ANSWERED) goes on to the answer;
- an unfit turn (P_UNFIT) asks for something no offered tool does, a request from another domain that is declined
  with one of the no_tool kind's refusals, or a general question answered in text.

Not in the default mix (its weight is 0 there): a recipe turns it on with a `session` weight under the synthetic
source's `kinds`. Its effect on BFCL is not measured yet (train/results/quality-cpu-session-seed2/README.md).

Run: through data_recipes.synthetic.generate, e.g. `generate(10, kinds={"session": 1})`.
"""

from __future__ import annotations

import random

from data_recipes.synthetic import phrasing as T
from data_recipes.synthetic import results as R
from data_recipes.synthetic import values as V
from data_recipes.synthetic.catalogue import Tool
from data_recipes.synthetic.chitchat import QUESTIONS, related_domains
from data_recipes.synthetic.kinds import (REFUSALS, assistant_calls, call, others, pick_tool, same_tool_calls,
                                          sample_args, start, tool_turns, wanted)

TURNS = [2, 3, 3]             # requests in a session (with a fourth, 20% of rows ran over 1,024 tokens; now 15%)
P_UNFIT = 0.25                # a later turn that no offered tool fits (at least two turns call)
P_PARALLEL = 0.2              # a call turn that asks for 2-3 calls of its tool
P_LAST_ANSWERED = 0.4         # the last call turn also gets its results and answer
P_EXTRA = 0.3                 # one more tool, from another domain, offered and never called
LEADS = ["", "", "", "Thanks. ", "Great. ", "OK. ", "One more thing. ", "Next one. "]


def targets(rng: random.Random) -> list[Tool]:
    """Two or three tools from unrelated domains, each with a required parameter and a result to give."""
    out: list[Tool] = []
    used: set[str] = set()
    while len(out) < rng.choice([2, 2, 3]):
        t = pick_tool(rng, lambda t: t.domain not in used and bool(t.required()) and R.has_result(t))
        used |= related_domains(t.domain)
        out.append(t)
    return out


def turn_plan(rng: random.Random) -> list[str]:
    """"call" or "unfit" for each turn: at least two calls, the first turn always one."""
    n = rng.choice(TURNS)
    plan = ["call"] + ["unfit" if rng.random() < P_UNFIT else "call" for _ in range(n - 1)]
    while plan.count("call") < 2:
        plan[plan.index("unfit")] = "call"
    return plan


def call_turn(tool: Tool, rng: random.Random) -> tuple[list[tuple[Tool, dict]], str]:
    """The calls of one turn and the request for them."""
    if rng.random() < P_PARALLEL:
        pairs, user = same_tool_calls(tool, rng.choice([2, 3]), rng)[:2]
        return pairs, user
    args, values = sample_args(tool, rng)
    return [(tool, args)], T.request(tool, args, values, rng)


def unfit_turn(rng: random.Random, offered: list[Tool]) -> tuple[str, str]:
    """A request none of `offered` fits and the reply to it: a declined request from another domain, or a general
    question answered in text."""
    avoid = set().union(*(related_domains(t.domain) for t in offered))
    if rng.random() < 0.5:
        for _ in range(5):
            question, reply, topics = QUESTIONS[rng.randrange(len(QUESTIONS))](rng)
            if not set().union(set(), *(related_domains(d) for d in topics)) & avoid:
                return question, reply
    want = pick_tool(rng, lambda t: t.domain not in avoid)
    args, values = sample_args(want, rng)
    domains = V.join_and(sorted({t.domain.replace("_", " ") for t in offered}))
    what = wanted(want) if want.verb == "fn" else want.hp
    reply = rng.choice(REFUSALS).format(want=what, have=domains, names=", ".join(t.name for t in offered))
    return T.request(want, args, values, rng), reply


def follow(lead: str, user: str) -> str:
    """A later turn's request after its lead ("Thanks. "), without a greeting the wrapper may have opened it with."""
    if not lead:
        return user
    for hello in ("Hi, ", "Hey, ", "Hi! ", "hi! "):  # the greetings phrasing.wrap may open a request with
        if user.startswith(hello):
            user = T.cap(user[len(hello):])
    return lead + user


def session(rng: random.Random) -> tuple[dict, dict]:
    """One session row and its info: the tools its calls need and the plan of its turns."""
    called = targets(rng)
    extra = others(rng, set().union(*(related_domains(t.domain) for t in called)), 1) \
        if rng.random() < P_EXTRA else []
    tools = called + extra
    plan = turn_plan(rng)
    msgs, needs = start(rng), set()
    for i, kind in enumerate(plan):
        lead = rng.choice(LEADS) if i else ""
        if kind == "unfit":
            user, reply = unfit_turn(rng, tools)
            msgs += [{"role": "user", "content": follow(lead, user)}, {"role": "assistant", "content": reply}]
            continue
        tool = rng.choice(called)
        pairs, user = call_turn(tool, rng)
        needs.add(tool.name)
        msgs += [{"role": "user", "content": follow(lead, user)},
                 assistant_calls([call(t, a) for t, a in pairs])]
        if i < len(plan) - 1 or rng.random() < P_LAST_ANSWERED:  # the user speaks again only after the answer
            tmsgs, res = tool_turns(pairs, rng)
            msgs += tmsgs + [{"role": "assistant",
                              "content": " ".join(R.answer(t, a, r, rng) for (t, a), r in zip(pairs, res))}]
    rng.shuffle(tools)
    rec = {"messages": msgs, "tools": [t.spec() for t in tools]}
    return rec, {"needs": sorted(needs), "turns": plan}
