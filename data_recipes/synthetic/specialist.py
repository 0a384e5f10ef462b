"""Training rows for one user's tool set: every row offers all of its tools, in its order, under one system prompt.

`SpecialistSource(specs, system=None)` turns the tools into generator tools (from_schema.py) and `row(i, seed)`
draws row i of the stream from its own `random.Random(f"{seed}:{i}")`, of one of the kinds a user of those tools
meets (KINDS, relative weights): a single call (which is also picking among the offered tools), parallel calls of
one tool, calls of several tools in one turn, a clarifying question when a required value is missing (then the
answer and the call), and requests the tools cannot serve, answered in text: near misses in the same domain (an
action no tool offers on a noun the tools know, a tool of the general catalogue from another domain) and small talk
or general knowledge. Optional arguments appear only when the request states them. The prompt is the same for every
row (the system text and the tool list), so training can run it once per batch (train.dft --share-prefix).

    src = SpecialistSource(toolset.tools)
    rec = src.row(0, seed=0)          # {"messages", "tools", "meta": {"source": "specialist", "kind", "id"}}

Left out: tool results (the generator cannot know what the user's tools return, so no row shows one).
"""

from __future__ import annotations

import random
import re

from data_recipes.synthetic import phrasing as T
from data_recipes.synthetic import values as V
from data_recipes.synthetic.catalogue import Tool, catalogue
from data_recipes.synthetic.chitchat import GENERAL
from data_recipes.synthetic.from_schema import check_tool, label_of, request_tool, tool_from_spec, words_of
from data_recipes.synthetic.grammar import tidy_record
from data_recipes.synthetic.kinds import (ASK_FOR, ASK_FOR_ALL, ANSWER_ALL, askable, asked_as, assistant_calls, call,
                                          same_tool_calls, sample_args)

KINDS = {"single": 0.42, "parallel": 0.10, "parallel_multiple": 0.08, "clarify": 0.08, "near_miss": 0.14,
         "no_tool": 0.08, "normalize": 0.10}
NO_CALL_KINDS = ("near_miss", "no_tool")  # the kinds answered in text: about one row in five
OPTIONAL_COUNTS = {0: 0.45, 1: 0.3, 2: 0.15, 3: 0.1}  # how many optional arguments a request states: people
# name one or two settings at most, rarely every one the tool has
OTHER_ACTIONS = ["delete", "rename", "export", "share", "duplicate", "archive", "undo", "print out", "compare",
                 "merge", "translate", "email me", "order more of", "back up", "reset", "move"]
REFUSALS = [
    "Sorry, I can't {want} with the tools I have. I can {can}.",
    "I'm not able to {want}: none of my tools does that. I can {can}.",
    "That's not something I can do here. My tools let me {can}.",
    "I can't help with that one: I can only {can}.",
]
P_TERSE = 0.12  # requests cut to their values ("P03 status", "PETG, bracket.stl, P03")
LEADS = ["", "", "", "", "Hi! ", "Hey, ", "Morning. ", "Quick one: ", "OK, ", "Next: ", "One more thing: ",
         "When you get a chance, ", "I'm in a hurry. "]


class SpecialistSource:
    def __init__(self, specs: list[dict], system: str | None = None, kinds: dict[str, float] | None = None):
        self.specs = [s if "function" in s else {"type": "function", "function": s} for s in specs]
        self.system = system
        self.tools = [tool_from_spec(s) for s in self.specs]
        for t in self.tools:
            check_tool(t)
        self.descriptions = {t.name: s["function"].get("description") or "" for t, s in zip(self.tools, self.specs)}
        self.kinds = dict(kinds or KINDS)
        self.callable = [t for t in self.tools if t.params]
        self.with_required = [t for t in self.tools if t.required()]
        known = {w for t in self.tools for w in words_of(t.name)}
        self.outside = [t for t in catalogue() if t.verb != "fn" and not known & set(t.noun.split("_"))]

    # --- pieces ---------------------------------------------------------------------------------------------
    def start(self) -> list[dict]:
        return [{"role": "system", "content": self.system}] if self.system else []

    def request(self, tool: Tool, args: dict, values: dict, rng: random.Random, normalise: bool = False) -> str:
        asked = request_tool(tool, self.descriptions[tool.name], rng)
        if args and rng.random() < P_TERSE and all(values[k].text for k in args):
            said = [values[p.name].surface(rng, normalise) for p, _ in tool.params
                    if p.name in args and values[p.name].text]
            if said:
                return rng.choice([f"{label_of(tool.name)}: {', '.join(said)}", f"{', '.join(said)} - "
                                   f"{' '.join(words_of(tool.name))}"])
        text = T.request(asked, args, values, rng, normalise)
        lead = rng.choice(LEADS) if not text.lower().startswith(("hi", "hey")) else ""
        if lead.endswith((", ", ": ")) and not re.match(r"I\b|[A-Z]{2}", text):
            text = text[:1].lower() + text[1:]
        return lead + text

    def args(self, tool: Tool, rng: random.Random) -> tuple[dict, dict]:
        return sample_args(tool, rng, n_opt=rng.choices(list(OPTIONAL_COUNTS), list(OPTIONAL_COUNTS.values()))[0])

    def can(self, rng: random.Random) -> str:
        picked = rng.sample(self.tools, min(len(self.tools), rng.randint(2, 3)))
        return V.join_and([" ".join(words_of(t.name)) for t in picked])

    def record(self, msgs: list[dict]) -> dict:
        return {"messages": self.start() + msgs, "tools": self.specs}

    # --- kinds -------------------------------------------------------------------------------------------------
    def single(self, rng, normalise: bool = False):
        tool = rng.choice(self.callable or self.tools)
        args, values = self.args(tool, rng)
        return self.record([{"role": "user", "content": self.request(tool, args, values, rng, normalise)},
                            assistant_calls([call(tool, args)])]), [tool.name]

    def normalize(self, rng):
        return self.single(rng, normalise=True)

    def parallel(self, rng):
        if not self.with_required:
            return self.single(rng)
        tool = rng.choice(self.with_required)
        k = rng.choices([2, 3, 4], [6, 2, 1])[0]
        pairs, user, _ = same_tool_calls(request_tool(tool, self.descriptions[tool.name], rng), k, rng)
        calls = [call(tool, a) for _, a in pairs]
        return self.record([{"role": "user", "content": user}, assistant_calls(calls)]), [tool.name]

    def parallel_multiple(self, rng):
        if len(self.callable) < 2:
            return self.parallel(rng)
        targets = rng.sample(self.callable, min(len(self.callable), rng.choice([2, 2, 3])))
        if rng.random() < 0.25:
            targets.append(targets[0])
        pairs, clauses = [], []
        for t in targets:
            args, values = self.args(t, rng)
            pairs.append((t, args))
            clauses.append(T.clause(request_tool(t, self.descriptions[t.name], rng), args, values, rng))
        joiner = rng.choice([" and ", ", then ", ". Also, ", "; and ", ". After that, "])
        text = joiner.join(clauses[:-1]) + (" and " if joiner == ", then " else joiner) + clauses[-1]
        return self.record([{"role": "user", "content": T.wrap(text, rng)},
                            assistant_calls([call(t, a) for t, a in pairs])]), sorted({t.name for t in targets})

    def clarify(self, rng):
        asking = [t for t in self.with_required if askable(t)]
        if not asking:
            return self.no_tool(rng)
        tool = rng.choice(asking)
        args, values = self.args(tool, rng)
        if rng.random() < 0.5 or len(askable(tool)) == len(tool.required()) == 1:
            missing = askable(tool) if rng.random() < 0.5 else [rng.choice(askable(tool))]
        else:
            missing = [rng.choice(askable(tool))]
        said = {k: v for k, v in args.items() if k not in {p.name for p in missing}}
        user = self.request(tool, said, values, rng)
        names = [asked_as(p) for p in missing]
        if len(names) == 1:
            question = rng.choice(ASK_FOR).format(d=names[0])
            v = values[missing[0].name]
            answer = rng.choice([v.surface(rng), f"It's {v.surface(rng)}.", T.end(missing[0].phrase(rng, v))])
        else:
            question = rng.choice(ASK_FOR_ALL).format(d=V.join_and(names))
            answer = rng.choice(ANSWER_ALL).replace("{a}", " ".join(p.phrase(rng, values[p.name]) for p in missing))
        msgs = [{"role": "user", "content": user}, {"role": "assistant", "content": question}]
        if rng.random() < 0.7:  # most go on: the user answers and the call follows
            msgs += [{"role": "user", "content": T.cap(answer)}, assistant_calls([call(tool, args)])]
        return self.record(msgs), [tool.name]

    def near_miss(self, rng):
        """A request in the tools' own domain that none of them serves: another action on a noun they know, or a
        tool of the general catalogue (another domain) asked for by name."""
        if rng.random() < 0.6 or not self.outside:
            tool = rng.choice(self.tools)
            noun = " ".join(w for w in words_of(tool.name)[1:] if w not in ("id", "ids")) or tool.name
            action = rng.choice(OTHER_ACTIONS)
            if any(words_of(t.name)[0] == action.split()[0] for t in self.tools):
                action = "delete" if action != "delete" else "rename"
            user = T.wrap(f"{action} the {noun}", rng)
            want = f"{action} the {noun}"
        else:
            other = rng.choice(self.outside)
            args, values = sample_args(other, rng)
            user = T.request(other, args, values, rng)
            want = "do that" if other.verb == "do" else f"{re.sub(r'_', ' ', other.verb)} {other.hp}"
        reply = rng.choice(REFUSALS).format(want=want, can=self.can(rng))
        return self.record([{"role": "user", "content": user}, {"role": "assistant", "content": reply}]), []

    def no_tool(self, rng):
        question, reply, _ = GENERAL[rng.randrange(len(GENERAL))](rng)
        return self.record([{"role": "user", "content": question}, {"role": "assistant", "content": reply}]), []

    # --- the stream --------------------------------------------------------------------------------------------
    def row(self, i: int, seed: int = 0) -> dict:
        rng = random.Random(f"{seed}:{i}")
        names = [k for k, w in self.kinds.items() if w > 0]
        kind = rng.choices(names, [self.kinds[k] for k in names])[0]
        record, needs = getattr(self, kind)(rng)
        tidy_record(record)
        record["meta"] = {"source": "specialist", "kind": kind, "id": f"specialist-{seed}-{i}", "needs": needs}
        return record
