"""The tool-calling conversation kinds: each builder draws one conversation from the catalogue with its own rng.

Kinds (the `kind` in each record's meta):
- single: one request, one call, 1-4 tools offered.
- parallel: 2-3 calls in one turn (the same tool for several values, or different tools), sometimes with results
  and a final answer.
- multi_turn: call -> tool result -> answer that uses it, sometimes a follow-up request and a second round.
- no_tool: the offered tools don't fit (a request from another domain, or small talk / general knowledge) -> a
  plain answer without a call.
- distractor: the right tool among siblings from the same domain and tools from others.
- normalize: arguments the user states loosely (numbers in words, currency names, country names, spelled-out
  dates, odd casing) that the call must normalise.
Every builder returns `(record_dict, info)`; info says which tools the request needs (tests use it).

Run: through data_recipes.synthetic.generate.
Left out: calls that depend on an earlier call's result in the same turn (sequential chains are multi-turn).
"""

from __future__ import annotations

import random
from functools import lru_cache

from data_recipes.synthetic import phrasing as T
from data_recipes.synthetic import results as R
from data_recipes.synthetic import values as V
from data_recipes.synthetic.catalogue import Tool, by_domain, catalogue
from data_recipes.synthetic.chitchat import GENERAL, related_domains

ORDERED_DATES = [("check_in", "check_out"), ("departure_date", "return_date"), ("start_date", "end_date")]
DIFFERENT = [("origin", "destination"), ("base_currency", "target_currency"), ("origin_place", "destination_place"),
             ("station_from", "station_to"), ("origin_city", "destination_city"), ("source_language", "target_language"),
             ("length_from", "length_to"), ("mass_from", "mass_to"), ("temp_from", "temp_to"),
             ("volume_from", "volume_to"), ("speed_from", "speed_to"), ("data_from", "data_to"),
             ("citizenship", "destination_country")]


def sample_args(tool: Tool, rng: random.Random, p_opt: float = 0.35) -> tuple[dict, dict]:
    """Arguments in schema order and the Value behind each (for phrasing)."""
    chosen = [p for p, req in tool.params if req or rng.random() < p_opt]
    if tool.verb == "update" and tool.optional() and len(chosen) == len(tool.required()):  # must change something
        chosen.append(rng.choice(tool.optional()))
    names = {p.name for p in chosen}
    values = {p.name: p.sample(rng) for p, _ in tool.params if p.name in names}
    for a, b in ORDERED_DATES:
        if a in values and b in values:
            values[b] = V.date_after(rng, values[a].value)
    for a, b in DIFFERENT:
        if a in values and b in values:
            for _ in range(10):
                if values[a].value != values[b].value:
                    break
                values[b] = tool_param(tool, b).sample(rng)
    args = {p.name: values[p.name].value for p, _ in tool.params if p.name in values}
    return args, values


def tool_param(tool: Tool, name: str):
    return next(p for p, _ in tool.params if p.name == name)


def call(tool: Tool, args: dict) -> dict:
    return {"type": "function", "function": {"name": tool.name, "arguments": args}}


def others(rng: random.Random, avoid: set[str], k: int) -> list[Tool]:
    """k tools from domains not in `avoid` (distinct names)."""
    pool = [t for t in catalogue() if t.domain not in avoid]
    return rng.sample(pool, k) if k else []


def offered(rng: random.Random, targets: list[Tool], extra: int) -> list[dict]:
    avoid = set().union(*(related_domains(t.domain) for t in targets))
    tools = list({t.name: t for t in targets}.values()) + others(rng, avoid, extra)
    rng.shuffle(tools)
    return [t.spec() for t in tools]


def start(rng: random.Random) -> list[dict]:
    s = T.system_prompt(rng)
    return [{"role": "system", "content": s}] if s else []


def assistant_calls(calls: list[dict], rng: random.Random) -> dict:
    return {"role": "assistant", "content": rng.choice(T.PREAMBLES).strip(), "tool_calls": calls}


def tool_turns(pairs: list[tuple[Tool, dict]], rng: random.Random) -> tuple[list[dict], list[dict]]:
    results = [R.tool_result(t, a, rng) for t, a in pairs]
    msgs = [{"role": "tool", "name": t.name, "content": R.json.dumps(r, ensure_ascii=False)}
            for (t, _), r in zip(pairs, results)]
    return msgs, results


@lru_cache(maxsize=1)
def normalisable() -> frozenset[str]:
    """Tools with a required parameter that users may state loosely (it has alternative surface forms)."""
    probe = random.Random(0)
    return frozenset(t.name for t in catalogue()
                     if any(any(p.sample(probe).alt for _ in range(5)) for p in t.required()))


def pick_tool(rng: random.Random, pred=None) -> Tool:
    pool = catalogue() if pred is None else [t for t in catalogue() if pred(t)]
    if not pool:
        raise RuntimeError("no catalogue tool satisfies the predicate")
    return pool[rng.randrange(len(pool))]


def single(rng: random.Random, normalise: bool = False) -> tuple[dict, dict]:
    tool = pick_tool(rng, (lambda t: t.name in normalisable()) if normalise else None)
    args, values = sample_args(tool, rng, p_opt=0.5 if normalise else 0.35)
    msgs = start(rng) + [{"role": "user", "content": T.request(tool, args, values, rng, normalise)},
                         assistant_calls([call(tool, args)], rng)]
    if rng.random() < (0.3 if normalise else 0.0):
        tmsgs, res = tool_turns([(tool, args)], rng)
        msgs += tmsgs + [{"role": "assistant", "content": R.answer(tool, args, res[0], rng)}]
    rec = {"messages": msgs, "tools": offered(rng, [tool], rng.randint(0, 3))}
    return rec, {"needs": [tool.name]}


def normalize(rng: random.Random) -> tuple[dict, dict]:
    return single(rng, normalise=True)


def parallel(rng: random.Random) -> tuple[dict, dict]:
    k = rng.choice([2, 2, 3])
    if rng.random() < 0.5:
        tool = pick_tool(rng, lambda t: bool(t.required()))
        args, values = sample_args(tool, rng)
        key = tool.required()[0]
        pairs, extra_vals = [(tool, args)], []
        seen = {repr(args[key.name])}
        for _ in range(10 * k):
            v = key.sample(rng)
            if repr(v.value) not in seen:
                seen.add(repr(v.value))
                a2 = dict(args)
                a2[key.name] = v.value
                pairs.append((tool, a2))
                extra_vals.append(v)
            if len(pairs) == k:
                break
        first = T.clause(tool, args, values, rng)
        more = T.join_and([key.phrase(rng, v) for v in extra_vals])
        text = rng.choice([f"{first}, and the same {more}", f"{first}. Same thing {more}, please",
                           f"{first}, and also {more}"])
        user = T.cap(text) + rng.choice([".", "", "?"] if not text.endswith("please") else ["."])
        targets = [tool]
    else:
        targets, used = [], set()
        while len(targets) < k:
            t = pick_tool(rng, lambda t: t.domain not in used)
            used |= related_domains(t.domain)
            targets.append(t)
        pairs = [(t, *sample_args(t, rng)) for t in targets]
        clauses = [T.clause(t, a, v, rng) for t, a, v in pairs]
        joiner = rng.choice([" and ", ", then ", ". Also, ", "; and "])
        user = T.wrap(joiner.join(clauses[:-1]) + (" and " if joiner == ", then " else joiner) + clauses[-1], rng)
        pairs = [(t, a) for t, a, _ in pairs]
    msgs = start(rng) + [{"role": "user", "content": user}, assistant_calls([call(t, a) for t, a in pairs], rng)]
    if rng.random() < 0.5:
        tmsgs, res = tool_turns(pairs, rng)
        answers = [R.answer(t, a, r, rng) for (t, a), r in zip(pairs, res)]
        msgs += tmsgs + [{"role": "assistant", "content": " ".join(answers)}]
    rec = {"messages": msgs, "tools": offered(rng, targets, rng.randint(0, 2))}
    return rec, {"needs": sorted({t.name for t in targets})}


def multi_turn(rng: random.Random) -> tuple[dict, dict]:
    tool = pick_tool(rng)
    args, values = sample_args(tool, rng)
    msgs = start(rng) + [{"role": "user", "content": T.request(tool, args, values, rng)},
                         assistant_calls([call(tool, args)], rng)]
    tmsgs, res = tool_turns([(tool, args)], rng)
    msgs += tmsgs + [{"role": "assistant", "content": R.answer(tool, args, res[0], rng)}]
    targets = [tool]
    if rng.random() < 0.35:
        same = rng.random() < 0.4 and tool.required()
        nxt = tool if same else pick_tool(rng, lambda t: t.domain == tool.domain and t.name != tool.name) \
            if len(by_domain()[tool.domain]) > 1 else tool
        a2, v2 = sample_args(nxt, rng)
        lead = rng.choice(["", "Thanks. ", "Great, ", "OK. ", "Perfect. Now "])
        follow = T.clause(nxt, a2, v2, rng)
        follow = T.cap(follow) if lead.endswith(". ") or not lead else follow
        msgs += [{"role": "user", "content": T.cap(lead + follow) + rng.choice([".", "?", ""])},
                 assistant_calls([call(nxt, a2)], rng)]
        tmsgs, res2 = tool_turns([(nxt, a2)], rng)
        msgs += tmsgs + [{"role": "assistant", "content": R.answer(nxt, a2, res2[0], rng)}]
        targets.append(nxt)
    rec = {"messages": msgs, "tools": offered(rng, targets, rng.randint(0, 3))}
    return rec, {"needs": sorted({t.name for t in targets})}


def distractor(rng: random.Random) -> tuple[dict, dict]:
    tool = pick_tool(rng, lambda t: len(by_domain()[t.domain]) >= 3)
    siblings = [t for t in by_domain()[tool.domain] if t.name != tool.name]
    near = rng.sample(siblings, min(len(siblings), rng.randint(2, 3)))
    args, values = sample_args(tool, rng)
    msgs = start(rng) + [{"role": "user", "content": T.request(tool, args, values, rng)},
                         assistant_calls([call(tool, args)], rng)]
    if rng.random() < 0.4:
        tmsgs, res = tool_turns([(tool, args)], rng)
        msgs += tmsgs + [{"role": "assistant", "content": R.answer(tool, args, res[0], rng)}]
    far = others(rng, related_domains(tool.domain), rng.randint(0, 2))
    tools = [tool] + near + far
    rng.shuffle(tools)
    return {"messages": msgs, "tools": [t.spec() for t in tools]}, {"needs": [tool.name]}


def no_tool(rng: random.Random) -> tuple[dict, dict]:
    if rng.random() < 0.5:
        want = pick_tool(rng)
        args, values = sample_args(want, rng)
        user = T.request(want, args, values, rng)
        avoid = related_domains(want.domain)
        tools = others(rng, avoid, rng.randint(1, 4))
        domains = T.join_and(sorted({t.domain.replace("_", " ") for t in tools}))
        reply = rng.choice([f"I can't do that here: none of the available tools handles {want.hp}.",
                            f"Sorry, I don't have a tool for {want.hp}. My tools only cover {domains}.",
                            f"None of my tools can help with {want.hp}, so I can't do that for you.",
                            f"I can only help with {domains} right now, not {want.hp}."])
        info = {"needs": [], "request_domain": want.domain, "avoid": sorted(avoid)}
    else:
        question, reply, avoid = GENERAL[rng.randrange(len(GENERAL))](rng)
        user = question
        tools = others(rng, avoid, rng.randint(1, 4))
        info = {"needs": [], "request_domain": None, "avoid": sorted(avoid)}
    msgs = start(rng) + [{"role": "user", "content": user}, {"role": "assistant", "content": reply}]
    rng.shuffle(tools)
    return {"messages": msgs, "tools": [t.spec() for t in tools]}, info


BUILDERS = {"single": single, "parallel": parallel, "multi_turn": multi_turn, "no_tool": no_tool,
            "distractor": distractor, "normalize": normalize}
