"""The tool catalogue: the domain table crossed with its verbs, plus the function library, as JSON-Schema tool specs.

`catalogue()` returns the `Tool`s (built once, cached): name, domain, verb, the phrases a user would use for the
action, its parameters (required or optional with defaults) and the fields its results carry. `Tool.spec()` is the
canonical `{"type": "function", "function": {name, description, parameters}}` that goes into a record's `tools`.
Names are composed as verb_noun (`get_weather_forecast`, `search_hotels`, `book_flight`, `convert_currency`);
descriptions from per-verb templates picked by a stable hash of the name, so the catalogue is the same every run.
The function library (library.py: formulas and data functions in four naming styles) joins as verb "fn" tools.
Names that BFCL's functions carry, or that an earlier tool took, are renamed by reserved.free_name.

Run: `python -c "from data_recipes.synthetic.catalogue import catalogue; print(len(catalogue()))"`.
Left out: tools the model must call without any argument it can read from the request (every tool here has
at least one parameter the user states, or only optional ones).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Callable

from data_recipes.synthetic.domains import ROWS
from data_recipes.synthetic.param_table import PARAMS
from data_recipes.synthetic.params import Param
from data_recipes.synthetic.reserved import free_name

VERB_NAMES = {"get": "get_{n}", "search": "search_{p}", "list": "list_{p}", "create": "{w}_{n}",
              "update": "update_{n}", "delete": "{w}_{n}", "calc": "{w}_{n}"}
DEFAULT_WORD = {"get": "get", "create": "create", "delete": "delete", "calc": "calculate"}

DESCRIPTIONS = {
    "get": ["Get the {h} for the given {req}.", "Look up the {h} by {req}. Returns {fields}.",
            "Returns the {h} for the given {req}."],
    "search": ["Search {hp} by {req}, with optional filters.", "Find {hp} matching {req}. Returns {fields}.",
               "Search for {hp}; each result has {fields}."],
    "list": ["List {hp} for the given {req}.", "List the {hp} with their {fields}.", "Returns the list of {hp}."],
    "create": ["{W} a {h}.", "{W} a new {h} with the given {req}.", "{W} a {h} and return its id."],
    "update": ["Update an existing {h}; only the fields given change.", "Change the details of a {h}."],
    "delete": ["{W} a {h} by {req}.", "{W} the {h} identified by {req}."],
    "calc": ["{W} the {h} from {req}.", "{W} the {h}. Returns {fields}."],
    "do": ["{W} {the}{req}.", "{W}. Returns {fields}."],
}


@dataclass(frozen=True)
class Tool:
    name: str
    domain: str
    noun: str
    plural: str
    verb: str  # get, search, list, create, update, delete, calc, do
    word: str  # the action word (book, cancel, convert...) or the phrase of a `do` action
    params: tuple[tuple[Param, bool], ...]  # (param, required) in schema order
    res: tuple[tuple[str, str], ...]  # (result field, value kind)
    description: str
    # function-library tools (verb "fn", library.py): the base function, its exact result, argument renames;
    # a renamed everyday tool keeps its composed name in `base` (results.py keys its special cases by it)
    base: str = ""
    compute: Callable | None = None
    arg_names: tuple[tuple[str, str], ...] = ()
    style: str = "snake"
    obj: str = ""  # the ask without its first word ("the area of a triangle")

    @property
    def h(self) -> str:
        return self.noun.replace("_", " ")

    @property
    def hp(self) -> str:
        return self.plural.replace("_", " ")

    def required(self) -> list[Param]:
        return [p for p, req in self.params if req]

    def optional(self) -> list[Param]:
        return [p for p, req in self.params if not req]

    def parameters(self) -> dict:
        props = {p.name: p.spec(req) for p, req in self.params}
        schema = {"type": "object", "properties": props, "required": [p.name for p in self.required()]}
        return schema

    def spec(self) -> dict:
        return {"type": "function",
                "function": {"name": self.name, "description": self.description, "parameters": self.parameters()}}


def _parse_params(text: str, where: str) -> tuple[tuple[Param, bool], ...]:
    out = []
    for token in text.split():
        required = not token.startswith("?")
        name = token.lstrip("?")
        if name not in PARAMS:
            raise KeyError(f"{where}: unknown parameter {name!r}; add it to data_recipes/synthetic/param_table.py")
        out.append((PARAMS[name], required))
    return tuple(out)


def _describe(verb: str, name: str, word: str, h: str, hp: str, params, res) -> str:
    options = DESCRIPTIONS[verb]
    template = options[zlib.crc32(name.encode()) % len(options)]
    req = [p.name.replace("_", " ") for p, r in params if r] or ["optional filters"]
    fields = ", ".join(f.replace("_", " ") for f, _ in res)
    # "Check the spelling of the text." / "Unfreeze my card, given the card last4."
    the = "the " if word.split()[-1] in ("of", "for", "to", "in", "on", "from", "by", "with") else ", given the "
    text = template.format(h=h, hp=hp, W=word[:1].upper() + word[1:], fields=fields, req=" and ".join(req),
                           the=the).replace(" , given", ", given")
    return text


@lru_cache(maxsize=1)
def catalogue() -> tuple[Tool, ...]:
    """The everyday-API tools of domains.py, then the function library (library.py), with unique allowed names."""
    from data_recipes.synthetic.library import library_tools

    tools: dict[str, Tool] = {}

    def add(tool: Tool):
        if tool.name in tools:
            raise ValueError(f"tool name {tool.name!r} is composed twice (domains.py rows "
                             f"{tools[tool.name].domain}/{tools[tool.name].noun} and {tool.domain}/{tool.noun})")
        tools[tool.name] = tool

    for row in ROWS:
        res = tuple(tuple(item.split(":")) if ":" in item else (item, item) for item in row.res.split())
        h, hp = row.noun.replace("_", " "), row.plural.replace("_", " ")
        for verb, (word, ptext) in row.verbs.items():
            word = word or DEFAULT_WORD.get(verb, verb)
            name = VERB_NAMES[verb].format(n=row.noun, p=row.plural, w=word)
            params = _parse_params(ptext, f"{row.domain}/{row.noun}/{verb}")
            add(Tool(name, row.domain, row.noun, row.plural, verb, word, params, res,
                     _describe(verb, name, word, h, hp, params, res)))
        for name, phrase, ptext in row.do:
            params = _parse_params(ptext, f"{row.domain}/{name}")
            add(Tool(name, row.domain, row.noun, row.plural, "do", phrase, params, res,
                     _describe("do", name, phrase.rstrip(":"), h, hp, params, res)))
    out, taken = [], set()
    for tool in list(tools.values()) + list(library_tools()):
        name = free_name(tool.name, taken)  # BFCL's function names and names already used are renamed
        taken.add(name)
        out.append(tool if name == tool.name else replace(tool, name=name, base=tool.base or tool.name))
    return tuple(out)


@lru_cache(maxsize=1)
def by_domain() -> dict[str, tuple[Tool, ...]]:
    out: dict[str, list[Tool]] = {}
    for tool in catalogue():
        out.setdefault(tool.domain, []).append(tool)
    return {d: tuple(ts) for d, ts in out.items()}


@lru_cache(maxsize=1)
def by_name() -> dict[str, Tool]:
    return {t.name: t for t in catalogue()}
