"""The tool-calling conversation kinds: each builder draws one conversation from the catalogue with its own rng.

Kinds (the `kind` in each record's meta):
- single: one request, one call, 1-4 tools offered.
- parallel: 2-4 calls in one turn, 2 in most rows (the same tool asked for several values, as a list, case by
  case, "the same for ..." changing one or two arguments, or two arguments listed at once, as a grid or
  "respectively"; or 2-3 different tools), sometimes with results and a final answer.
- multi_turn: call -> tool result -> answer that uses it, sometimes a follow-up request and a second round.
- no_tool: the offered tools don't fit (a request from another domain, or small talk / general knowledge) -> a
  plain answer without a call.
- distractor: the right tool among siblings from the same domain and tools from others.
- normalize: arguments the user states loosely (numbers in words, currency names, country names, spelled-out
  dates, odd casing) that the call must normalise.
- parallel_multiple: two or three different tools in one turn, some of them called more than once (2-6 calls).
- parallel_multiple_wide: two to four different tools in one turn, in BFCL parallel_multiple's shapes (two tools for
  two values each, four tools); not in the default mix, a recipe gives it a weight.
- sibling_multiple: the same within one domain (sibling functions called together, more siblings offered); not in
  the default mix, a recipe gives it a weight.
- clarify: a required argument is missing from the request -> the assistant asks for it, the user answers, the
  assistant calls. In half of them (`bare`) the request states no value at all ("Pull up the order, please.") and
  the question asks for every required one.
no_tool also draws near misses: a function-library request with only other functions of its domain offered.
Every builder returns `(record_dict, info)`; info says which tools the request needs (tests use it).

Run: through data_recipes.synthetic.generate.
Left out: calls that depend on an earlier call's result in the same turn (sequential chains are multi-turn).
"""

from __future__ import annotations

import random
import re
from functools import lru_cache
from itertools import accumulate

from data_recipes.synthetic import phrasing as T
from data_recipes.synthetic import results as R
from data_recipes.synthetic import values as V
from data_recipes.synthetic.catalogue import Tool, by_domain, catalogue
from data_recipes.synthetic.chitchat import GENERAL, related_domains
from data_recipes.synthetic.library import fraction_rate_functions

ORDERED_DATES = [("check_in", "check_out"), ("departure_date", "return_date"), ("start_date", "end_date")]
DIFFERENT = [("origin", "destination"), ("base_currency", "target_currency"), ("origin_place", "destination_place"),
             ("station_from", "station_to"), ("origin_city", "destination_city"), ("source_language", "target_language"),
             ("length_from", "length_to"), ("mass_from", "mass_to"), ("temp_from", "temp_to"),
             ("volume_from", "volume_to"), ("speed_from", "speed_to"), ("data_from", "data_to"),
             ("citizenship", "destination_country"), ("from_unit", "to_unit"), ("from_scale", "to_scale"),
             ("from_timezone", "to_timezone"), ("fromUnit", "toUnit"), ("fromScale", "toScale"),
             ("fromTimezone", "toTimezone"), ("citizenship", "destination"), ("word_a", "word_b"),
             ("wordA", "wordB"), ("source", "target"), ("base", "quote"), ("drug_a", "drug_b"),
             ("version_a", "version_b")]


def sample_args(tool: Tool, rng: random.Random, p_opt: float = 0.5, n_opt: int | None = None) -> tuple[dict, dict]:
    """Arguments in schema order and the Value behind each (for phrasing).

    Each optional parameter is asked for with probability `p_opt` (0.5: at 0.35 a trained model left out an
    optional argument the request named on 51 of BFCL's 400 simple_python items, "in Celsius"), or, given `n_opt`,
    exactly that many optional parameters (as many as there are, when fewer)."""
    if n_opt is None:
        chosen = [p for p, req in tool.params if req or rng.random() < p_opt]
    else:
        optional = [p for p, req in tool.params if not req]
        picked = {p.name for p in rng.sample(optional, min(n_opt, len(optional)))}
        chosen = [p for p, req in tool.params if req or p.name in picked]
    if tool.verb == "update" and tool.optional() and len(chosen) == len(tool.required()):  # must change something
        chosen.append(rng.choice(tool.optional()))
    names = {p.name for p in chosen}
    values = {p.name: p.sample(rng) for p, _ in tool.params if p.name in names}
    named = {canonical(tool, n): n for n in values}  # a pair rule holds under any naming style (startDate)
    for a, b in ORDERED_DATES:
        if a in named and b in named:
            a, b = named[a], named[b]
            values[b] = V.date_after(rng, values[a].value)
    for a, b in DIFFERENT:
        if a in named and b in named:
            a, b = named[a], named[b]
            for _ in range(10):
                if values[a].value != values[b].value:
                    break
                values[b] = tool_param(tool, b).sample(rng)
    args = {p.name: values[p.name].value for p, _ in tool.params if p.name in values}
    return args, values


def keeps_pair_rules(tool: Tool, args: dict) -> bool:
    """Whether a call's arguments keep ORDERED_DATES (end after start) and DIFFERENT (the two differ), under any
    naming style; a call that changes one argument of an earlier call checks it here."""
    named = {canonical(tool, n): n for n in args}
    return (all(args[named[a]] < args[named[b]] for a, b in ORDERED_DATES if a in named and b in named)
            and all(args[named[a]] != args[named[b]] for a, b in DIFFERENT if a in named and b in named))


def tool_param(tool: Tool, name: str):
    return next(p for p, _ in tool.params if p.name == name)


def call(tool: Tool, args: dict) -> dict:
    return {"type": "function", "function": {"name": tool.name, "arguments": args}}


def ident(tool: Tool) -> str:
    """What a tool does: the naming styles of one library function share it, so a row offers at most one of them."""
    return tool.base or tool.name


def others(rng: random.Random, avoid: set[str], k: int) -> list[Tool]:
    """k tools from domains not in `avoid` (distinct functions)."""
    pool = [t for t in catalogue() if t.domain not in avoid]
    out, seen = [], set()
    while len(out) < k:
        t = pool[rng.randrange(len(pool))]
        if ident(t) not in seen:
            seen.add(ident(t))
            out.append(t)
    return out


def siblings(tool: Tool) -> list[Tool]:
    """Other functions of the tool's domain, one naming style each (the tool's own style when it has one)."""
    out: dict[str, Tool] = {}
    for t in by_domain()[tool.domain]:
        if ident(t) != ident(tool) and (t.style == tool.style or ident(t) not in out):
            out[ident(t)] = t
    return list(out.values())


def offered(rng: random.Random, targets: list[Tool], extra: int) -> list[dict]:
    avoid = set().union(*(related_domains(t.domain) for t in targets))
    tools = list({t.name: t for t in targets}.values()) + others(rng, avoid, extra)
    rng.shuffle(tools)
    return [t.spec() for t in tools]


def start(rng: random.Random) -> list[dict]:
    s = T.system_prompt(rng)
    return [{"role": "system", "content": s}] if s else []


def assistant_calls(calls: list[dict]) -> dict:
    """A turn that calls: the reply opens with the call, no words before it. Its first token is then the whole
    call-or-answer decision, which the decision weight and the call threshold read. (Half the call turns used to open
    with "Sure." or "On it."; a model trained on them put about 0.4 on those words whatever the request, so the call
    opening `<` got 0.25-0.45 on prompts that need a call and on prompts that need none alike.)"""
    return {"role": "assistant", "content": "", "tool_calls": calls}


@lru_cache(maxsize=1)
def with_siblings() -> frozenset[str]:
    """Tools whose domain has at least two other functions (distractor and sibling_multiple draw from them)."""
    return frozenset(t.name for t in catalogue() if len(siblings(t)) >= 2)


def answerable(pairs) -> bool:
    """Whether every call in `pairs` can get a tool result (library functions only when computed exactly)."""
    return all(R.has_result(t) for t, *_ in pairs)


def tool_turns(pairs: list[tuple[Tool, dict]], rng: random.Random) -> tuple[list[dict], list[dict]]:
    results = [R.tool_result(t, a, rng) for t, a in pairs]
    msgs = [{"role": "tool", "name": t.name, "content": R.json.dumps(r, ensure_ascii=False)}
            for (t, _), r in zip(pairs, results)]
    return msgs, results


@lru_cache(maxsize=1)
def normalisable() -> frozenset[str]:
    """Tools with a required parameter that users may state loosely (it has alternative surface forms)."""
    probe = random.Random(0)

    def loose(p) -> bool:  # an alternative form that does not contain the value itself ("twelve", "euros")
        v = p.sample(probe)
        return any(str(v.value) not in a for a in v.alt)
    return frozenset(t.name for t in catalogue() if any(any(loose(p) for _ in range(5)) for p in t.required()))


# Tools whose call carries a rate as a fraction ("at 5%" -> "interest_rate": 0.05) are drawn RATE_WEIGHT times as
# often as others: 5.8% of synthetic rows call one (generate(5000, seed=3)). At weight 1, 1.8% did,
# a run read about 15, and the default model wrote 5 for 0.05 on 16-30 of the 54 fractional rates in BFCL's calling
# suites, right on 6-22 (five runs; train/results/quality-cpu-order-seed2/rates.py).
RATE_WEIGHT = 4
# Tools with an array-of-enum parameter ("amenities": ["Pool", "Gym"]) likewise: 31 of 2,228 tools have one, and
# BFCL's calling suites ask for one in about 5% of items (69 of 1,258), which the default model got right 5 times.
CHOICES_WEIGHT = 6


@lru_cache(maxsize=1)
def choices_tools() -> frozenset[str]:
    """The catalogue tools with a parameter that is an array of enum strings."""
    return frozenset(t.name for t in catalogue()
                     if any(p.schema["type"] == "array" and "enum" in p.schema.get("items", {}) for p, _ in t.params))


def _weight(tool: Tool) -> int:
    if tool.verb == "fn" and tool.base in fraction_rate_functions():
        return RATE_WEIGHT
    return CHOICES_WEIGHT if tool.name in choices_tools() else 1


@lru_cache(maxsize=1)
def _catalogue_cum_weights() -> list[int]:
    return list(accumulate(_weight(t) for t in catalogue()))


def pick_tool(rng: random.Random, pred=None) -> Tool:
    if pred is None:
        return rng.choices(catalogue(), cum_weights=_catalogue_cum_weights())[0]
    pool = [t for t in catalogue() if pred(t)]
    if not pool:
        raise RuntimeError("no catalogue tool satisfies the predicate")
    return rng.choices(pool, [_weight(t) for t in pool])[0]


def single(rng: random.Random, normalise: bool = False) -> tuple[dict, dict]:
    tool = pick_tool(rng, (lambda t: t.name in normalisable()) if normalise else None)
    args, values = sample_args(tool, rng, p_opt=0.6 if normalise else 0.5)
    msgs = start(rng) + [{"role": "user", "content": T.request(tool, args, values, rng, normalise)},
                         assistant_calls([call(tool, args)])]
    if rng.random() < (0.3 if normalise else 0.15) and answerable([(tool,)]):
        tmsgs, res = tool_turns([(tool, args)], rng)
        msgs += tmsgs + [{"role": "assistant", "content": R.answer(tool, args, res[0], rng)}]
    rec = {"messages": msgs, "tools": offered(rng, [tool], rng.randint(0, 3))}
    return rec, {"needs": [tool.name]}


def normalize(rng: random.Random) -> tuple[dict, dict]:
    return single(rng, normalise=True)


# How many calls a parallel request asks for: two is the commonest, as in what people ask (BFCL's parallel category
# wants 2 calls in 55% of its items, 3 in 26%, 4 in 18%). The generator used to draw 2 and 3 alike and write
# parallel_multiple rows of 3-6 calls, so 3 calls were the commonest of its multi-call rows; the quality-gpu model then
# gave 3 calls for 38 of BFCL parallel's 109 two-call requests (train/results/parallel-ab/README.md).
CALL_COUNTS, CALL_COUNT_WEIGHTS = [2, 3, 4], [6, 2, 2]


def call_count(rng: random.Random) -> int:
    return rng.choices(CALL_COUNTS, weights=CALL_COUNT_WEIGHTS)[0]


def parallel(rng: random.Random, same_tool: float = 0.8) -> tuple[dict, dict]:
    k = call_count(rng)
    if rng.random() < same_tool:
        made = None
        if rng.random() < (P_GRID if k == 4 else P_RESPECTIVELY):
            tool = pick_tool(rng, lambda t: t.name in listable(k == 4))
            made = two_lists(tool, k, rng)
        if made is None:
            tool = pick_tool(rng, lambda t: bool(t.required()))
        pairs, user = made or same_tool_calls(tool, k, rng)[:2]
        targets = [tool]
    else:
        targets, used = [], set()
        k = min(k, 3)
        while len(targets) < k:
            t = pick_tool(rng, lambda t: t.domain not in used)
            used |= related_domains(t.domain)
            targets.append(t)
        pairs = [(t, *sample_args(t, rng)) for t in targets]
        clauses = [T.clause(t, a, v, rng) for t, a, v in pairs]
        joiner = rng.choice([" and ", ", then ", ". Also, ", "; and "])
        user = T.wrap(joiner.join(clauses[:-1]) + (" and " if joiner == ", then " else joiner) + clauses[-1], rng)
        pairs = [(t, a) for t, a, _ in pairs]
    msgs = start(rng) + [{"role": "user", "content": user}, assistant_calls([call(t, a) for t, a in pairs])]
    if rng.random() < 0.4 and answerable(pairs):
        tmsgs, res = tool_turns(pairs, rng)
        answers = [R.answer(t, a, r, rng) for (t, a), r in zip(pairs, res)]
        msgs += tmsgs + [{"role": "assistant", "content": " ".join(answers)}]
    rec = {"messages": msgs, "tools": offered(rng, targets, rng.randint(0, 2))}
    return rec, {"needs": sorted({t.name for t in targets})}


ORDINALS = ["first", "second", "third", "fourth"]


def same_tool_calls(tool: Tool, k: int, rng: random.Random, style: str | None = None, p_two: float = 0.8
                    ) -> tuple[list[tuple[Tool, dict]], str, str]:
    """Up to k calls of one tool and the request for them, in the three ways people ask (BFCL's parallel category
    holds all three):
    - "the same": one full request, then the other values of its first required argument ("..., and the same for
      Lyon"), or with probability p_two of it and one more argument ("..., and the same for Lyon in May"; 137 of
      BFCL parallel's 200 items change two or more arguments between calls);
    - a list: the values of that argument listed in one clause ("... for 10, 20 and 30 years");
    - cases: each call with its own arguments, numbered ("First, ... Second, ...").
    Returns the calls, the request and the style it was written in (a list or cases falls back to "same" where it
    would read ambiguously)."""
    style = style or rng.choice(["same", "list", "cases"])
    key = tool.required()[0]
    if style == "list" and key.schema.get("type") not in ("string", "integer", "number"):
        style = "same"  # a boolean's phrases carry no value; listed arrays and objects would read ambiguously
    if style == "cases":
        drawn = [sample_args(tool, rng) for _ in range(k)]
        pairs, clauses, seen = [], [], set()
        for args, values in drawn:
            if repr(args) not in seen:
                seen.add(repr(args))
                pairs.append((tool, args))
                clauses.append(T.clause(tool, args, values, rng))
        if len(pairs) == 1:  # a tool with few argument values drew the same call every time
            return same_tool_calls(tool, k, rng, "same")
        n = str(len(pairs)) if rng.random() < 0.5 else V.number_words(len(pairs))
        lead = rng.choice(["", "", f"I need this {n} times. ", f"{T.cap(n)} requests. "])
        numbered = rng.random() < 0.7
        parts = [f"{T.cap(ORDINALS[i])}, {c}" if numbered else T.cap(c) for i, c in enumerate(clauses)]
        return pairs, lead + " ".join(T.end(p) for p in parts), "cases"
    args, values = sample_args(tool, rng)
    if style == "same" and rng.random() < p_two and (second := second_varied(tool, args, key)):
        made = same_with_two_changes(tool, key, second, args, values, k, rng)
        if made is not None:
            return made
    pairs, extra_vals = [(tool, args)], []
    seen = {repr(args[key.name])}
    for _ in range(10 * k):
        v = key.sample(rng)
        if repr(v.value) not in seen and keeps_pair_rules(tool, {**args, key.name: v.value}):
            seen.add(repr(v.value))
            pairs.append((tool, {**args, key.name: v.value}))
            extra_vals.append(v)
        if len(pairs) == k:
            break
    surfaces = [v.surface(rng) for v in [values[key.name], *extra_vals]]
    if style == "list" and extra_vals and not any(" and " in x or "," in x for x in surfaces):
        # "for 10, 20 and 30 years"; a value written with its own "and" or comma ("one hundred and five") would
        # make the list ambiguous, so such requests take the "same" style
        text = T.clause(tool, args, {**values, key.name: V.Value(None, V.join_and(surfaces))}, rng)
        if text.count(" and ") == 1:  # another slot's "and" ("of 12, 18 and 30 and 6") would blur the list
            return pairs, T.wrap(text, rng), "list"
    first = T.clause(tool, args, values, rng)
    if not extra_vals:
        return pairs, T.wrap(first, rng), "same"
    more = V.join_and([key.phrase(rng, v) for v in extra_vals])
    text = rng.choice([f"{first}, and the same {more}", f"{first}. Same thing {more}, please",
                       f"{first}, and also {more}"])
    return pairs, T.cap(text) + rng.choice([".", "", "?"] if not text.endswith("please") else ["."]), "same"


# Two arguments listed at once. BFCL parallel asks 11 of its 200 items as a grid, every value of
# one argument with every value of another ("the Lakers and the Bulls in 2018 and 2020": 4 calls), which no row
# here did; the flags-seed2 model got none of them, making 1 or 2 calls on 10. P_GRID: the share of 4-call same-tool
# requests written as a 2 x 2 grid; P_RESPECTIVELY: of 2-3 call ones, the two lists paired in order ("for Lyon and
# Rome in May and June respectively": 2 calls).
P_GRID, P_RESPECTIVELY = 0.5, 0.1


@lru_cache(maxsize=2)
def listable(grid: bool) -> frozenset[str]:
    """Tools whose first required argument and another required scalar can be listed together (two_lists): both
    string, integer or number, neither measured by a unit nor tied to another by a pair rule, and for a grid one of
    them a string (an entity to cross with a number, not two numbers that belong together)."""
    out = set()
    for t in catalogue():
        if not t.required():
            continue
        key = t.required()[0]
        scalar = ("string", "integer", "number")
        others = [p for p in t.required()[1:] if p.schema.get("type") in scalar and not p.measures
                  and canonical(t, p.name) not in PAIRED]
        if key.schema.get("type") not in scalar or canonical(t, key.name) in PAIRED or not others:
            continue
        if grid and "string" not in (key.schema.get("type"), others[0].schema.get("type")):
            continue
        out.add(t.name)
    return frozenset(out)


def two_lists(tool: Tool, k: int, rng: random.Random) -> tuple[list[tuple[Tool, dict]], str] | None:
    """Calls of one tool whose request lists values of two arguments in one clause: a 2 x 2 grid when k is 4,
    else k values of each paired in order ("respectively"). None where the tool has no second argument to vary,
    its values cannot differ, or a value's own "and" or comma would blur the lists."""
    grid = k == 4
    n = 2 if grid else k
    key = tool.required()[0]
    args, values = sample_args(tool, rng)
    second = second_varied(tool, args, key) if key.schema.get("type") in ("string", "integer", "number") else None
    if second is None or (grid and "string" not in (key.schema.get("type"), second.schema.get("type"))):
        return None  # two numbers crossed ("12.8 km and 16 km run in 94 and 24 minutes") pair what belongs together
    firsts, seconds = [values[key.name]], [values[second.name]]
    for param, drawn in ((key, firsts), (second, seconds)):
        for _ in range(10 * n):
            v = param.sample(rng)
            if all(repr(v.value) != repr(d.value) for d in drawn):
                drawn.append(v)
            if len(drawn) == n:
                break
    if len(firsts) < n or len(seconds) < n:
        return None
    combos = [(a, b) for a in firsts for b in seconds] if grid else list(zip(firsts, seconds))
    pairs = [(tool, {**args, key.name: a.value, second.name: b.value}) for a, b in combos]
    if not all(keeps_pair_rules(tool, a) for _, a in pairs):
        return None
    listed = {}
    for param, drawn in ((key, firsts), (second, seconds)):
        surfaces = [v.surface(rng) for v in drawn]
        if any(" and " in x or "," in x for x in surfaces):
            return None
        listed[param.name] = V.Value(None, V.join_and(surfaces))
    text = T.clause(tool, args, {**values, **listed}, rng)
    if text.count(" and ") != 2:  # another slot's "and" would blur the lists
        return None
    spans = sorted((text.find(v.text), text.find(v.text) + len(v.text)) for v in listed.values())
    if spans[0][0] < 0 or not re.search(r"[A-Za-z]{3}", text[spans[0][1]:spans[1][0]]):
        return None  # lists side by side ("y = -4.3 and -1 x = 1.8 and 3.7") read as one
    if not grid:  # "respectively" after the later list and its noun, before the next phrase
        rest = text[spans[1][1]:]
        stop = re.search(r",|;|\b(?:" + "|".join(PHRASE_STARTS) + r")\b", rest)
        at = spans[1][1] + (stop.start() if stop else len(rest))
        text = text[:at].rstrip() + " respectively" + (" " if stop and text[at] not in ",;" else "") + text[at:]
    return pairs, T.wrap(text, rng)


PHRASE_STARTS = ["for", "to", "from", "with", "in", "on", "at", "of", "by", "minus", "plus", "using", "starting",
                 "ending", "and", "over", "under", "per", "into", "between"]


PAIRED = {name for pair in ORDERED_DATES + DIFFERENT for name in pair}  # values drawn together in sample_args


def canonical(tool: Tool, name: str) -> str:
    """A parameter's name before a library naming style renamed it (`startDate` -> `start_date`)."""
    name = dict(tool.arg_names).get(name, name)
    return re.sub(r"(?<=[a-z0-9])([A-Z])", lambda m: "_" + m.group(1).lower(), name)


def second_varied(tool: Tool, args: dict, key):
    """A second argument of the call that a "same" request can change along with `key`: a stated scalar that no
    ordering or difference rule ties to another argument (None when the call has none)."""
    if canonical(tool, key.name) in PAIRED:
        return None
    names = [p.name for p, _ in tool.params if p.name in args and p.name != key.name and not p.measures
             and canonical(tool, p.name) not in PAIRED and p.schema.get("type") in ("string", "integer", "number")]
    return tool_param(tool, names[0]) if names else None


def same_with_two_changes(tool: Tool, key, second, args: dict, values: dict, k: int, rng: random.Random
                          ) -> tuple[list[tuple[Tool, dict]], str, str] | None:
    """A full request, then k-1 more calls that each change `key` and `second` ("..., and the same for Lyon in May,
    and for Rome in June"); the other arguments carry over. None when the two parameters cannot give k calls with
    values of their own (a two-value enum), so the caller changes one argument instead."""
    pairs, groups = [(tool, args)], []
    seen_v, seen_w = {repr(args[key.name])}, {repr(args[second.name])}
    for _ in range(10 * k):
        v, w = key.sample(rng), second.sample(rng)
        changed = {**args, key.name: v.value, second.name: w.value}
        if repr(v.value) not in seen_v and repr(w.value) not in seen_w and v.value != w.value \
                and keeps_pair_rules(tool, changed):
            seen_v.add(repr(v.value))
            seen_w.add(repr(w.value))
            pairs.append((tool, changed))
            groups.append(f"{key.phrase(rng, v)} {second.phrase(rng, w)}")
        if len(pairs) == k:
            break
    if len(pairs) < k:
        return None
    first = T.clause(tool, args, values, rng)
    more = ", and ".join(groups)
    text = rng.choice([f"{first}, and the same {more}", f"{first}. Same thing {more}, please",
                       f"{first}, and then {more}", f"{first}. Do the same {more}."])
    return pairs, T.cap(text) + ("" if text.endswith(".") else rng.choice([".", "", "?"] if not text.endswith(
        "please") else ["."])), "same"


def multi_turn(rng: random.Random) -> tuple[dict, dict]:
    tool = pick_tool(rng, R.has_result)
    args, values = sample_args(tool, rng)
    msgs = start(rng) + [{"role": "user", "content": T.request(tool, args, values, rng)},
                         assistant_calls([call(tool, args)])]
    tmsgs, res = tool_turns([(tool, args)], rng)
    msgs += tmsgs + [{"role": "assistant", "content": R.answer(tool, args, res[0], rng)}]
    targets = [tool]
    if rng.random() < 0.35:
        same = rng.random() < 0.4 and tool.required()
        nxt = tool if same else pick_tool(rng, lambda t: t.domain == tool.domain and ident(t) != ident(tool)
                                          and R.has_result(t)) \
            if any(R.has_result(t) for t in siblings(tool)) else tool
        a2, v2 = sample_args(nxt, rng)
        lead = rng.choice(["", "Thanks. ", "Great, ", "OK. ", "Perfect. Now "])
        follow = T.clause(nxt, a2, v2, rng)
        follow = T.cap(follow) if lead.endswith(". ") or not lead else follow
        msgs += [{"role": "user", "content": T.cap(lead + follow) + rng.choice([".", "?", ""])},
                 assistant_calls([call(nxt, a2)])]
        tmsgs, res2 = tool_turns([(nxt, a2)], rng)
        msgs += tmsgs + [{"role": "assistant", "content": R.answer(nxt, a2, res2[0], rng)}]
        targets.append(nxt)
    rec = {"messages": msgs, "tools": offered(rng, targets, rng.randint(0, 3))}
    return rec, {"needs": sorted({t.name for t in targets})}


def distractor(rng: random.Random) -> tuple[dict, dict]:
    """The 'multiple' kind: the right tool among 2-6 offered, near siblings of its domain and far ones."""
    tool = pick_tool(rng, lambda t: t.name in with_siblings())
    sib = siblings(tool)
    near = rng.sample(sib, min(len(sib), rng.randint(1, 3)))
    args, values = sample_args(tool, rng)
    msgs = start(rng) + [{"role": "user", "content": T.request(tool, args, values, rng)},
                         assistant_calls([call(tool, args)])]
    if rng.random() < 0.3 and answerable([(tool,)]):
        tmsgs, res = tool_turns([(tool, args)], rng)
        msgs += tmsgs + [{"role": "assistant", "content": R.answer(tool, args, res[0], rng)}]
    far = others(rng, related_domains(tool.domain), rng.randint(0, 5 - len(near)))  # 2-6 offered: fits 1024 tokens
    tools = [tool] + near + far
    rng.shuffle(tools)
    return {"messages": msgs, "tools": [t.spec() for t in tools]}, {"needs": [tool.name]}


REFUSALS = ["I can't do that here: none of the available tools handles {want}.",
            "Sorry, I don't have a tool for {want}. My tools only cover {have}.",
            "None of my tools can help with {want}, so I can't do that for you.",
            "I can only help with {have} right now, not {want}.",
            "The functions I have ({names}) don't cover {want}, so I can't run that."]


def wanted(tool: Tool) -> str:
    """What a function-library request asks for, as a refusal names it ("the area of a triangle")."""
    return tool.obj if tool.obj.startswith("the ") else f"a request to {tool.word}"


def near_miss(rng: random.Random) -> tuple[dict, dict] | None:
    """A function-library request with only other functions of its domain offered (None if it has too few)."""
    want = pick_tool(rng, lambda t: t.verb == "fn")
    sib = siblings(want)
    if len(sib) < 2:
        return None
    args, values = sample_args(want, rng)
    tools = rng.sample(sib, rng.randint(1, min(3, len(sib))))
    names = ", ".join(t.name for t in tools)
    reply = rng.choice(REFUSALS).format(want=wanted(want), have=f"other {want.domain.replace('_', ' ')} "
                                        "functions", names=names)
    msgs = start(rng) + [{"role": "user", "content": T.request(want, args, values, rng)},
                         {"role": "assistant", "content": reply}]
    info = {"needs": [], "request_domain": want.domain, "avoid": [], "near_miss": ident(want)}
    return {"messages": msgs, "tools": [t.spec() for t in tools]}, info


def no_tool(rng: random.Random) -> tuple[dict, dict]:
    if rng.random() < 0.25:
        made = near_miss(rng)
        if made is not None:
            return made
    if rng.random() < 0.55:
        want = pick_tool(rng)
        args, values = sample_args(want, rng)
        user = T.request(want, args, values, rng)
        avoid = related_domains(want.domain)
        tools = others(rng, avoid, rng.randint(1, 4))
        domains = V.join_and(sorted({t.domain.replace("_", " ") for t in tools}))
        what = wanted(want) if want.verb == "fn" else want.hp
        reply = rng.choice(REFUSALS).format(want=what, have=domains, names=", ".join(t.name for t in tools))
        info = {"needs": [], "request_domain": want.domain, "avoid": sorted(avoid)}
    else:
        question, reply, avoid = GENERAL[rng.randrange(len(GENERAL))](rng)
        avoid = set().union(*(related_domains(d) for d in avoid)) if avoid else set()
        user = question
        tools = others(rng, avoid, rng.randint(1, 4))
        info = {"needs": [], "request_domain": None, "avoid": sorted(avoid)}
    msgs = start(rng) + [{"role": "user", "content": user}, {"role": "assistant", "content": reply}]
    rng.shuffle(tools)
    return {"messages": msgs, "tools": [t.spec() for t in tools]}, info


def unrelated_tool(rng: random.Random, used: set[str]) -> Tool:
    """A tool with a required parameter from a domain not in `used`, whose related domains then join `used`."""
    t = pick_tool(rng, lambda t: t.domain not in used and bool(t.required()))
    used |= related_domains(t.domain)
    return t


def parallel_multiple(rng: random.Random, p_twice: float = 0.3) -> tuple[dict, dict]:
    """Two or three different tools in one turn, each asked for a second value with probability p_twice: 2-6 calls,
    2 or 3 the commonest."""
    targets, used = [], set()
    while len(targets) < rng.choice([2, 2, 3]):
        targets.append(unrelated_tool(rng, used))
    msgs = calls_in_one_turn(targets, rng, p_twice)
    rec = {"messages": msgs, "tools": offered(rng, targets, rng.randint(0, 2))}
    return rec, {"needs": sorted({t.name for t in targets})}


# How many different tools a parallel_multiple_wide request calls, and how often each. BFCL parallel_multiple's 200
# requests, by (calls of each tool): (1, 1) 56, (1, 1, 1) 52, (2, 2) 34, (1, 1, 1, 1) 19, (1, 1, 2) 15, (1, 2) 13
# (one tool several times, 10, is the parallel kind's). The parallel_multiple kind draws three tools in a third of
# its rows, four never, and each tool a second time at 0.3, so (1, 2) is its second shape and (2, 2) 5% of it: in
# the default build, 847 turns call three different tools, 262 two tools twice each, none four. Models trained on
# it were right on 2 of the 52 three-tool items and none of the four-tool or (2, 2) ones, and gave the shape
# asked for on 8 of 52, 1 of 19 and 4 of 34 (compact-ul-seed3, Q8_0; `python -m eval.call_counts`). This kind draws
# (1, 1) 29%, (1, 1, 1) 23%, (2, 2) 13%, (1, 1, 2) 9%, (1, 1, 1, 1) 9%, (1, 2) 8% (2,000 rows, seed 7).
WIDE_TOOLS = {2: 0.50, 3: 0.35, 4: 0.15}
P_BOTH_TWICE = 0.3  # of the two-tool requests: each tool for two values ("the weather in A and B, the time in C and D")
P_TWICE_WIDE = 0.12  # otherwise, each tool a second time


def parallel_multiple_wide(rng: random.Random) -> tuple[dict, dict]:
    """Two to four different tools in one turn, in the shapes of WIDE_TOOLS, P_BOTH_TWICE and P_TWICE_WIDE: (1, 1)
    the commonest, then (1, 1, 1), (2, 2) and (1, 1, 1, 1). Not in the default mix; a recipe gives it a weight
    (recipes/wide-ab.yaml)."""
    k = rng.choices(list(WIDE_TOOLS), weights=list(WIDE_TOOLS.values()))[0]
    used: set[str] = set()
    targets = [unrelated_tool(rng, used) for _ in range(k)]
    both = k == 2 and rng.random() < P_BOTH_TWICE
    twice = [both or rng.random() < P_TWICE_WIDE for _ in targets]
    msgs = calls_in_one_turn(targets, rng, twice=twice)
    rec = {"messages": msgs, "tools": offered(rng, targets, rng.randint(0, 2))}
    return rec, {"needs": sorted({t.name for t in targets})}


def sibling_multiple(rng: random.Random, p_twice: float = 0.3) -> tuple[dict, dict]:
    """parallel_multiple within one domain: two or three sibling functions called in one turn (the area and the
    circumference of a circle), with 0-2 more siblings offered and not called, and 0-1 tools from elsewhere.

    parallel_multiple draws its tools from unrelated domains, so no row of it calls two functions of one catalogue
    domain in a turn. BFCL's parallel_multiple calls two functions with one first word (`circle.calculate_area` and
    `circle.calculate_circumference`) in 63 of its 200 items; by that measure, which a shared verb (`get_`) also
    meets, 16 of 314 of the kind's rows do (data_recipes/name_families.py); 520 of
    1,500 of this kind's. Models trained
    without it blended offered names (`circle.calculate_perimeter`) and gave one function another's parameters."""
    while True:
        first = pick_tool(rng, lambda t: t.name in with_siblings() and bool(t.required()))
        pool = [t for t in siblings(first) if t.required()]
        if pool:
            break
    called = rng.sample(pool, min(len(pool), rng.choice([1, 1, 2])))
    targets = [first] + called
    msgs = calls_in_one_turn(targets, rng, p_twice)
    spare = [t for t in siblings(first) if t not in called]
    tools = targets + rng.sample(spare, min(len(spare), rng.randint(0, 2)))
    tools += others(rng, related_domains(first.domain), rng.randint(0, 1))
    rng.shuffle(tools)
    return {"messages": msgs, "tools": [t.spec() for t in tools]}, {"needs": sorted({t.name for t in targets})}


def calls_in_one_turn(targets: list[Tool], rng: random.Random, p_twice: float = 0.0,
                      twice: list[bool] | None = None) -> list[dict]:
    """The messages of one turn calling each target, a second time with another value with probability p_twice, or
    where `twice` says so (one flag a target; then no draw)."""
    pairs, clauses = [], []
    for j, t in enumerate(targets):
        args, values = sample_args(t, rng)
        pairs.append((t, args))
        text = T.clause(t, args, values, rng)
        if twice[j] if twice is not None else rng.random() < p_twice:
            key = t.required()[0]
            v = key.sample(rng)
            if repr(v.value) != repr(args[key.name]) and keeps_pair_rules(t, {**args, key.name: v.value}):
                pairs.append((t, {**args, key.name: v.value}))
                text += rng.choice([", and the same ", " and also "]) + key.phrase(rng, v)
        clauses.append(text)
    joiner = rng.choice([" and ", ". Also, ", "; then ", ". And "])
    user = T.wrap(joiner.join(clauses), rng)
    return start(rng) + [{"role": "user", "content": user}, assistant_calls([call(t, a) for t, a in pairs])]


ASK_FOR = ["What {d} should I use?", "Sure, what's the {d}?", "I need the {d} to do that. What is it?",
           "Happy to help. Could you tell me the {d}?", "Which {d} do you mean?"]
ASK_FOR_ALL = ["Sure. What {d} should I use?", "Happy to help. Could you tell me the {d}?",
               "I can do that, but I need the {d} first. What are they?", "Which {d} do you mean?",
               "Sure, I just need a few details: the {d}. What are they?"]
ANSWER_ALL = ["{a}.", "{a}, please.", "Oh sorry, {a}.", "Right: {a}."]


def askable(tool: Tool) -> list:
    """Required parameters a clarifying question can ask for: a boolean has no value to say back ("What is female
    should I use?" -> an empty answer)."""
    return [p for p in tool.required() if p.schema.get("type") != "boolean"]


def asked_as(param) -> str:
    """How a question names a parameter: its description's head, lower-cased, without a leading article ("the
    quantity to convert" -> "quantity to convert", so "What quantity to convert should I use?")."""
    desc = param.schema.get("description", param.name.replace("_", " ")).split(",")[0].split(" (")[0].rstrip(".")
    desc = desc if re.match(r"[A-Z]{2}", desc) else desc[:1].lower() + desc[1:]  # "IBAN" stays, "A number" not
    return re.sub(r"^(the|a|an) ", "", desc)


def bare(rng: random.Random) -> tuple[dict, dict]:
    """A request that names what to do and none of the values it needs ("Book a table, please."): ask for them all,
    get them, then call. Real requests of this kind (BFCL live_irrelevance: "I'd like a cab", "Where is my order")
    want a question, and a model that has only seen requests with one value missing makes the values up."""
    tool = pick_tool(rng, lambda t: 1 <= len(t.required()) <= 3 and len(askable(t)) == len(t.required())
                     and t.verb != "update")  # an update needs a value to change besides the required ones
    args, values = sample_args(tool, rng, p_opt=0.0)
    user = T.request(tool, {}, values, rng)
    wanted_names = [asked_as(p) for p in tool.required()]
    if len(wanted_names) == 1:
        question = rng.choice(ASK_FOR).format(d=wanted_names[0])
        only = tool.required()[0]
        answer = rng.choice([values[only.name].surface(rng), T.end(only.phrase(rng, values[only.name])),
                             f"It's {values[only.name].surface(rng)}."])
    else:
        question = rng.choice(ASK_FOR_ALL).format(d=V.join_and(wanted_names))
        said = " ".join(p.phrase(rng, values[p.name]) for p in tool.required())  # as a request joins them
        answer = rng.choice(ANSWER_ALL).replace("{a}", said)  # values may hold braces (JSON text)
    msgs = start(rng) + [{"role": "user", "content": user},
                         {"role": "assistant", "content": question},
                         {"role": "user", "content": T.cap(answer)},
                         assistant_calls([call(tool, args)])]
    rec = {"messages": msgs, "tools": offered(rng, [tool], rng.randint(0, 3))}
    return rec, {"needs": [tool.name], "missing": tool.required()[0].name, "bare": True}


def clarify(rng: random.Random, p_bare: float = 0.5) -> tuple[dict, dict]:
    """A request without one of its required arguments: ask for it, get it, then call. With probability `p_bare`
    the request states none of them (`bare`)."""
    if rng.random() < p_bare:
        return bare(rng)
    tool = pick_tool(rng, lambda t: len(t.required()) >= 2 and bool(askable(t)))
    args, values = sample_args(tool, rng)
    missing = rng.choice(askable(tool))
    said = {k: v for k, v in args.items() if k != missing.name}
    user = T.request(tool, said, values, rng)
    desc = asked_as(missing)
    value = values[missing.name]
    answer = rng.choice([value.surface(rng), f"{value.surface(rng)}, please", f"Oh sorry, "
                         f"{missing.phrase(rng, value)}.", f"It's {value.surface(rng)}."])
    msgs = start(rng) + [{"role": "user", "content": user},
                         {"role": "assistant", "content": rng.choice(ASK_FOR).format(d=desc)},
                         {"role": "user", "content": T.cap(answer)},
                         assistant_calls([call(tool, args)])]
    rec = {"messages": msgs, "tools": offered(rng, [tool], rng.randint(0, 3))}
    return rec, {"needs": [tool.name], "missing": missing.name}


BUILDERS = {"single": single, "parallel": parallel, "multi_turn": multi_turn, "no_tool": no_tool,
            "distractor": distractor, "normalize": normalize, "parallel_multiple": parallel_multiple,
            "clarify": clarify, "sibling_multiple": sibling_multiple, "parallel_multiple_wide": parallel_multiple_wide}
