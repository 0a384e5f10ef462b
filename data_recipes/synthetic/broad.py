"""The broad_tool kind: a request met by an offered tool whose name does not echo the request's words.

Real tool lists (BFCL live_simple) hold tools like `ChaFod` ("Changes the food item based on the customer's
request"), `cmd_controller.execute` or `todo_manager.handle_action` with an `action` enum: the request fits the tool's
description, not its name. Every other call kind here offers a tool whose name repeats the request's verb and noun,
and the near-miss refusals (kinds.near_miss) teach the model to decline when only related tools are offered. The
quality-gpu model declined 87 of live_simple's 258 requests, 76 of them with one of the synthetic refusal
templates (kinds.REFUSALS), though each item's single offered tool fitted
(eval/results/quality/toolcall_quality-gpu-q8_0-whole.json). This kind gives the contrast:
- opaque: one catalogue tool under an abbreviated or generic name (`TraCur`, `currency_api_v2`), its description kept;
- dispatcher: 2-4 tools of one domain merged into one tool with a required `action` enum and their parameters
  (`banking.handle_action(action="send_payment", recipient_email=..., amount=...)`); in half of those whose domain
  allows it, the enum holds plain verbs, one per tool, under `action`, `type`, `operation` or `op`
  (`reminders_manager(type="remove", reminder_id=...)`), and the request says the verb its own way.
The request is phrased for the underlying tool as in every other kind; the call uses the offered name.

Weight 0.05 in the default mix. A CPU A/B at 0.10 (train/results/parallel-ab/README.md, "broad") raised live_simple
by 6.2 points (+1.9 to +10.5) with irrelevance and parallel unchanged, but not by cutting refusals (59 against 60):
opaque names alone do not teach the model to call a tool whose words differ from the request's.

Run: through data_recipes.synthetic.generate, e.g. `generate(10, kinds={"broad_tool": 1})`.
"""

from __future__ import annotations

import random
from dataclasses import replace

from data_recipes.synthetic import phrasing as T
from data_recipes.synthetic.catalogue import Tool, by_domain
from data_recipes.synthetic.chitchat import related_domains
from data_recipes.synthetic.kinds import assistant_calls, call, ident, others, pick_tool, sample_args, start
from data_recipes.synthetic.library import camel

DISPATCH_NAMES = ["{d}.handle_action", "{d}_manager", "{D}Manager", "{d}_api", "{D}Service.run", "manage_{d}"]
DISPATCH_DESCRIPTIONS = [
    "Manages {hp}: {actions}. Set `{key}` and the fields that action needs.",
    "One endpoint for {hp}. Supported actions: {actions}.",
    "Performs an operation on {hp} ({actions}) chosen by `{key}`.",
]
# Verb-labelled dispatchers: the enum holds plain verbs and its parameter may be called `type` or
# `operation`, as in BFCL live_simple's `todo(type="delete", content=...)`: the request says "remove" or "add" and
# the call picks the matching label. Four seed-2 models (choices, flags, round, rates) never gave such a required
# enum on live_simple's 10 todo items (9 calls left it out, 1 item got no call). A tool's verb -> the labels it may
# go by (none shared between verbs).
VERB_LABELS = {"create": ["add", "create", "new"], "delete": ["delete", "remove"], "update": ["update", "edit"],
               "get": ["get", "view", "read"], "list": ["list"], "search": ["search", "find"]}
READ_VERBS = {"get", "list", "search"}  # at most one of them in a group: which one a request means is a guess
P_VERB_LABELS = 0.5  # of dispatchers, when the domain has tools of two or more of these verbs
ACTION_KEYS = ["action", "type", "operation", "op"]
OPAQUE_NAMES = ["{abbr}", "{abbr}", "{d}_api_v2", "{d}.op{n}", "{abbr}Handler", "tool_{n}"]


def _abbr(tool: Tool) -> str:
    """'transform_currency' -> 'TraCur' (the first three letters of its first two words)."""
    words = [w for w in (tool.base or tool.name).replace(".", "_").split("_") if w] or [tool.name]
    return "".join(w[:3].capitalize() for w in words[:2])


def _domain_word(domain: str) -> str:
    return domain.replace(" ", "_").lower()


def everyday(tool: Tool) -> bool:
    return tool.verb != "fn" and bool(tool.required())


def opaque(rng: random.Random) -> tuple[dict, dict]:
    tool = pick_tool(rng, everyday)
    d = _domain_word(tool.domain)
    renamed = replace(tool, name=rng.choice(OPAQUE_NAMES).format(abbr=_abbr(tool), d=d, n=rng.randint(1, 99)))
    args, values = sample_args(tool, rng)
    record = _record(rng, tool, renamed.spec(), call(renamed, args), args, values)
    return record, {"needs": [renamed.name], "shape": "opaque", "underlying": tool.name}


def dispatcher(rng: random.Random) -> tuple[dict, dict] | None:
    """None when the drawn tool's domain has no other everyday tool to merge with."""
    tool = pick_tool(rng, everyday)
    sibs = [t for t in by_domain()[tool.domain] if everyday(t) and ident(t) != ident(tool)]
    if not sibs:
        return None
    by_verb = verb_group(tool, sibs, rng) if rng.random() < P_VERB_LABELS else None
    group = by_verb or [tool] + rng.sample(sibs, min(len(sibs), rng.randint(1, 3)))
    rng.shuffle(group)
    props: dict[str, dict] = {}
    for t in group:
        for p, _ in t.params:
            props.setdefault(p.name, p.spec(True))  # one Param per name (param_table), so specs never clash
    keys = [k for k in (ACTION_KEYS if by_verb else ACTION_KEYS[:1]) if k not in props]
    if not keys:
        return None
    key = rng.choice(keys)
    labels = [rng.choice(VERB_LABELS[t.verb]) for t in group] if by_verb else [t.name for t in group]
    label = labels[group.index(tool)]
    d = _domain_word(tool.domain)
    name = rng.choice(DISPATCH_NAMES).format(d=d, D=camel(d)[:1].upper() + camel(d)[1:])
    description = rng.choice(DISPATCH_DESCRIPTIONS).format(hp=tool.domain.replace("_", " "),
                                                            actions=", ".join(labels), key=key)
    schema = {"type": "object",
              "properties": {key: {"type": "string", "enum": labels, "description": "The operation to run."},
                             **props},
              "required": [key]}
    spec = {"type": "function", "function": {"name": name, "description": description, "parameters": schema}}
    args, values = sample_args(tool, rng)
    the_call = {"type": "function", "function": {"name": name, "arguments": {key: label, **args}}}
    info = {"needs": [name], "shape": "dispatcher", "underlying": tool.name, "key": key, "label": label,
            "labels": "verb" if by_verb else "name"}
    return _record(rng, tool, spec, the_call, args, values), info


def verb_group(tool: Tool, sibs: list[Tool], rng: random.Random) -> list[Tool] | None:
    """The tool and 1-3 siblings, each of another verb in VERB_LABELS (so the labels say one verb apiece) and at most
    one of them a reading verb; None when the tool's verb has no labels or no sibling has another."""
    if tool.verb not in VERB_LABELS:
        return None
    group, verbs = [tool], {tool.verb}
    for t in rng.sample(sibs, len(sibs)):
        reads_twice = t.verb in READ_VERBS and verbs & READ_VERBS  # "view" or "list" would be a guess
        if t.verb in VERB_LABELS and t.verb not in verbs and not reads_twice and len(group) < 4:
            group.append(t)
            verbs.add(t.verb)
    return group if len(group) > 1 else None


def _record(rng: random.Random, tool: Tool, spec: dict, the_call: dict, args: dict, values: dict) -> dict:
    tools = [spec] + [t.spec() for t in others(rng, related_domains(tool.domain), rng.randint(0, 2))]
    rng.shuffle(tools)
    msgs = start(rng) + [{"role": "user", "content": T.request(tool, args, values, rng)},
                         assistant_calls([the_call])]
    return {"messages": msgs, "tools": tools}


def broad_tool(rng: random.Random) -> tuple[dict, dict]:
    if rng.random() < 0.5:
        made = dispatcher(rng)
        if made is not None:
            return made
    return opaque(rng)
