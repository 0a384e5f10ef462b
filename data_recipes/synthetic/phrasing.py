"""How synthetic users ask and how the assistant answers: request templates, politeness, typos, system prompts.

`request(tool, args, rng)` writes a user request for one call from the tool's verb (many paraphrases per verb),
the argument phrases (required first, optional ones shuffled, word order varied) and a politeness wrapper; a rare
typo lands only in template words, never in a value. `system_prompt(rng)` draws a varied system message (or none).

Run: imported by data_recipes.synthetic.kinds.
Left out: languages other than English; the tokenizer and the model are English-first.
"""

from __future__ import annotations

import random
import re

from data_recipes.synthetic import values as V
from data_recipes.synthetic.grammar import article

ACTIONS = {
    "get": ["get the {h}", "check the {h}", "look up the {h}", "tell me the {h}", "fetch the {h}",
            "show me the {h}", "find out the {h}", "pull up the {h}", "what's the {h}"],
    "search": ["find {hp}", "search for {hp}", "look for {hp}", "show me {hp}", "find me some {hp}",
               "search {hp}", "I'm looking for {hp}", "any {hp}"],
    "list": ["list the {hp}", "show all {hp}", "give me the {hp}", "list {hp}", "what are the {hp}",
             "show me the {hp}"],
    "update": ["update the {h}", "change the {h}", "edit the {h}", "modify the {h}"],
    "calc": ["{w} the {h}", "{w} the {h}", "work out the {h}", "figure out the {h}", "what's the {h}"],
}
WORDS = {  # other ways to say a verb's word
    "create": ["create", "set up", "make", "add"], "book": ["book", "reserve"], "delete": ["delete", "remove"],
    "cancel": ["cancel", "call off"], "calculate": ["calculate", "compute"], "schedule": ["schedule", "set up"],
    "send": ["send"], "place": ["place", "put in"], "log": ["log", "record"], "remove": ["remove", "take out"],
}
WRAPPERS = ["{x}", "{x}.", "Please {x}.", "Could you {x}?", "Can you {x}?", "I need you to {x}.", "Hey, {x}.",
            "{X}, please.", "{X}, thanks!", "Quick one: {x}.", "I'd like you to {x}.", "Would you {x}?",
            "{X} please", "hi! {x}", "Can you please {x}?", "{X} for me?", "Pls {x}", "{X} asap."]
SYSTEM_PROMPTS = [
    None, None, "You are a helpful assistant.", "You are a helpful assistant with access to tools.",
    "You are a concise assistant. Call a tool when it helps; otherwise answer directly.",
    "You are {name}, the assistant of {company}. Keep answers short.",
    "You help users by calling the right function with the right arguments.",
    "You are a friendly assistant. Use tools only when the request needs them.",
    "Answer briefly. Use the available functions when they fit the request.",
    "You are an AI assistant for {company} customers.",
    "You are {name}. Be brief and accurate.",
    "Use a function only if it matches the request; never invent tools or arguments.",
    "You are a support bot for {company}. If a request is outside your tools, say so briefly.",
    "Reply in one or two sentences.",
]
COMPANIES = ["Acme Corp", "Northwind", "Globex", "Initech", "Contoso", "Umbrella Travel", "Stark Finance"]
NAMES = ["Ava", "Orion", "Sage", "Nova", "Echo", "Pip"]


def cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def typo(text: str, rng: random.Random) -> str:
    """Swap two letters or drop one in one longer word of template text."""
    words = text.split(" ")
    idx = [i for i, w in enumerate(words) if len(w) >= 5 and w.isalpha()]
    if not idx:
        return text
    i = rng.choice(idx)
    w = words[i]
    j = rng.randrange(1, len(w) - 2)
    words[i] = w[:j] + w[j + 1] + w[j] + w[j + 2:] if rng.random() < 0.6 else w[:j] + w[j + 1:]
    return " ".join(words)


FN_LEADS = {"calculate": ["calculate", "compute", "work out", "figure out", "find", "determine", "get me"],
            "compute": ["compute", "calculate", "work out", "find"], "find": ["find", "figure out", "get", "work out"],
            "estimate": ["estimate", "roughly work out", "give me an estimate of"],
            "convert": ["convert", "change", "turn"], "check": ["check", "verify", "tell me"],
            "count": ["count", "tell me"], "get": ["get", "show me", "look up", "fetch"]}


def fn_action(tool, rng: random.Random) -> str:
    """The action of a function-library tool: its ask with the verb varied, or as a question."""
    first, _, rest = tool.word.partition(" ")
    if rest.startswith("the ") and first in ("calculate", "compute", "find", "work", "estimate") and rng.random() < 0.2:
        return rng.choice(["what is ", "what's ", "I need "]) + rest
    return rng.choice(FN_LEADS.get(first, [first])) + " " + rest


def action(tool, rng: random.Random) -> str:
    if tool.verb == "do":
        return tool.word
    if tool.verb == "fn":
        return fn_action(tool, rng)
    if tool.domain == "units":
        return rng.choice(["convert", "convert", "how much is", "what's"])
    if tool.verb in ACTIONS:
        word = rng.choice(WORDS.get(tool.word, [tool.word]))
        return rng.choice(ACTIONS[tool.verb]).format(h=tool.h, hp=tool.hp, w=word)
    word = rng.choice(WORDS.get(tool.word, [tool.word]))
    if tool.verb == "create":
        return rng.choice([f"{word} {article(tool.h)} {tool.h}", f"{word} a new {tool.h}"])
    return f"{word} the {tool.h}"  # delete / cancel / remove


def slot_phrases(tool, args: dict, values: dict, rng: random.Random, normalise: bool, act: str = "") -> list[str]:
    """One phrase per given argument: required ones in schema order, then the optional ones shuffled; a quarter of
    everyday requests in any order, and P_FN_REORDER of a function's (below: only where its phrases read in any
    order and no phrase fills a placeholder of the ask `act`). A unit that `measures` other arguments follows their
    values ("a radius of 4 inches" -> radius 4, unit "inches"), or has its own phrase where none of them is said
    (a request that leaves the radius for a question: "the circumference of a circle in inches")."""
    values, glued = dict(values), set()
    for unit in (p for p, _ in tool.params if p.measures and p.name in args):  # "with a radius of 4 inches"
        sep = V.unit_separator(values[unit.name], rng)
        for name in unit.measures:
            if name in args:
                values[name] = V.with_unit_after(values[name], values[unit.name], sep)
                glued.add(unit.name)
    req = [p for p in tool.required() if p.name in args and p.name not in glued]
    opt = [p for p in tool.optional() if p.name in args and p.name not in glued]
    rng.shuffle(opt)
    order = req + opt
    if len(order) > 1 and tool.domain != "units" and tool.verb != "fn" and rng.random() < 0.25:
        rng.shuffle(order)
    slots = [p.phrase(rng, values[p.name], normalise) for p in order]
    if (tool.verb == "fn" and len(slots) > 1 and _reorderable(tool, args)
            and all(merged(act, s) == (act, s) for s in slots) and rng.random() < P_FN_REORDER):
        rng.shuffle(slots)
    return slots


_OF_PLACEHOLDER = re.compile(r" (of|between|from|for) (?:a|an|two|some) [a-z]+$")  # "the factorial of a number"
_PLACEHOLDER = re.compile(r" (?:a|an|some) ([a-z]+)$")            # "roll some dice"
_WHETHER = re.compile(r"^(.*?) (?:whether|if) ")                  # "check whether a number is prime"
_PREPOSITIONS = {"of", "for", "from", "between", "in", "on", "to", "with", "at", "by"}
_KEPT_NOUNS = {"vector", "vectors", "matrix"}  # the bare value does not say what it is: "of the matrix ..."
_REAL_NOUNS = {"investment", "solution"}  # "the future value of an investment of $500" reads well as it is


def merged(act: str, first: str, fn: bool = True) -> tuple[str, str]:
    """A function's ask and first phrase with the placeholder the phrase fills taken out of the ask: "find the
    factorial of a number" + "of 5" -> "find the factorial" + "of 5", and so for "between two lists" and "from a
    list"; a vector or matrix keeps its noun ("the length of the vector [1, 2]"); "roll some dice" + "3 dice" ->
    "roll" + "3 dice"; "check whether a year is a leap year" + "whether 2024 is a leap year" -> "check" + the phrase.
    Without this merge requests read "the factorial of a number of 5", "roll some dice 3 dice" and "check whether a
    number is prime is 80000 prime". For any tool, an ask whose last word opens the phrase gives it up ("look up the
    insurance claim" + "claim CLM-39679"; `fn` False applies only this)."""
    head, _, last = act.rpartition(" ")
    if head and len(last) >= 3 and last.isalpha() and last not in _PREPOSITIONS and first.split(" ", 1)[0] == last:
        return head, first
    if not fn:
        return act, first
    if ((m := _OF_PLACEHOLDER.search(act)) and first.startswith(m.group(1) + " ")
            and (noun := act.rsplit(" ", 1)[1]) not in _REAL_NOUNS):
        if noun in _KEPT_NOUNS:  # "the determinant of the matrix [[1, 2], [3, 4]]", not "of [[1, 2], [3, 4]]"
            return f"{act[:m.start()]} {m.group(1)} the {noun}", first.split(" ", 1)[1]
        return act[:m.start()], first
    if first.startswith("whether ") and (m := _WHETHER.match(act)):
        return m.group(1), first
    if ((m := _PLACEHOLDER.search(act)) and first.endswith(" " + m.group(1))
            and act[:m.start()].rsplit(" ", 1)[-1] not in _PREPOSITIONS):  # not "the emissions of" + "for a flight"
        return act[:m.start()], first
    return act, first


P_FN_REORDER = 0.35  # the share of a function's requests that state its arguments out of schema order
# a phrase opening with one of these reads only after the one before it, or belongs to the ask's noun ("the
# momentum of a 1593.7 kg object moving at 7 m/s", not "the momentum moving at 7 m/s of a 1593.7 kg object")
_BOUND_WORDS = {"and", "plus", "whether", "of"}


def _reorderable(tool, args: dict) -> bool:
    """Whether a function's phrases for `args` each name what they carry, so they read in any order: "with p = 0.4",
    "in 12 trials", "exponent 3"; not "{} kg" (a bare value), "and {}" or "({})"."""
    return all(t[:1].isalpha() and t.split(" ", 1)[0] not in _BOUND_WORDS
               for p, _ in tool.params if p.name in args for t in p.phrases + p.false_phrases)


def clause(tool, args: dict, values: dict, rng: random.Random, normalise: bool = False, p_typo: float = 0.04) -> str:
    """The request for one call without a politeness wrapper: 'find hotels in Paris checking in ...'.

    A function's request states its arguments in schema order, the order of its call, unless it is one of the
    P_FN_REORDER that slot_phrases shuffles. Trained on schema order alone, four runs of the default recipe
    got 45-49% of simple_python's items with two or more values located in the request right where it names them in
    the schema's order, 14-24% where it does not ("predict the house price in San Francisco based on an area of
    2500": `location` left out; train/results/quality-cpu-order-seed2/)."""
    act = action(tool, rng)
    slots = slot_phrases(tool, args, values, rng, normalise, act)
    if slots:
        act, slots[0] = merged(act, slots[0], tool.verb == "fn")
    if rng.random() < p_typo:
        act = typo(act, rng)
    sep = ", " if len(slots) > 2 and tool.domain != "units" and rng.random() < 0.3 else " "
    text = act
    for i, slot in enumerate(slots):  # a phrase ", {}" follows the value before it, with no space or second comma
        text += ("" if slot.startswith(",") else " " if i == 0 else sep) + slot
    return text.strip()


def wrap(x: str, rng: random.Random) -> str:
    """Put a clause in a politeness wrapper; the result starts with a capital letter."""
    if x.startswith(("I'm", "what's", "what is", "what are", "any ", "how much")):
        text = rng.choice(["{X}?", "{X}? Thanks.", "Hi, {x}?"]).format(x=x, X=cap(x))
    elif x.startswith("I need "):  # not "Can you please I need the ..."
        text = rng.choice(["{X}.", "{X}, please.", "Hi, {x}.", "{X}, thanks!", "Hey, {x}."]).format(x=x, X=cap(x))
    else:
        text = rng.choice(WRAPPERS).format(x=x, X=cap(x))
    text = text.replace("..", ".").replace("?.", "?").replace("?,", "?")
    if rng.random() < 0.08:
        text = text.lower()
    return cap(text) if rng.random() < 0.9 else text


def request(tool, args: dict, values: dict, rng: random.Random, normalise: bool = False) -> str:
    return wrap(clause(tool, args, values, rng, normalise), rng)


def system_prompt(rng: random.Random, coding: bool = False) -> str | None:
    s = rng.choice(SYSTEM_PROMPTS)
    if s is None:
        return None
    s = s.format(name=rng.choice(NAMES), company=rng.choice(COMPANIES))
    if rng.random() < 0.2:
        s += f" Today is {V.date(rng).value}."
    return s


def end(text: str) -> str:
    """`text` with a full stop, unless it already ends with punctuation."""
    return text if text.endswith((".", "?", "!")) else text + "."
