"""Generic optional settings on a called tool (a timeout, a response language, a result limit, ...), which the
request leaves unsaid in most rows and the call then leaves out.

Real tool lists give most functions optional parameters nobody asks for: BFCL live_simple's functions do, and the
flags-seed2 model filled them anyway (`cinema_hall="Bombay"` on "What movies are playing today in Mumbai?",
`unit="Celsius"` unasked): 56 such arguments in 39 of 258 replies, 12 replies wrong for them alone
(`python -m eval.optional_args`). In the generator only 27% of calls went to a tool with any optional parameter,
and 9 of 4,054 calls to one with three or more of which the request stated none (`generate(3000, seed=5)`).

`with_settings(record, kind, rng)` gives each called tool of a call row 1-3 settings at the end of its parameters
(none that would blur the tool's name or a parameter it has), with probability P_SETTINGS; in P_STATED of the rows
with one call the request also states one of them ("Limit it to 5 results."; only in rows that end with the call,
and not in clarify rows, whose last user turn answers a question) and the call carries it. The draws come from the
rng the caller passes, so the rows of the stream stay as they were apart from these settings.

Run: through data_recipes.synthetic.generate (on by default); `generate(..., settings=0)` turns it off, and
`generate(..., settings_stated=0)` offers the settings without ever stating one (every one unasked).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from data_recipes.synthetic.catalogue import by_name

P_SETTINGS = 0.35
P_STATED = 0.5  # of the rows that may state one (a one-call row that ends with the call)
KINDS = {"single", "distractor", "parallel", "parallel_multiple", "multi_turn", "clarify", "normalize", "broad_tool",
         "session", "sibling_multiple", "parallel_multiple_wide"}


@dataclass(frozen=True)
class Setting:
    name: str
    schema: dict
    verbs: frozenset = frozenset()  # catalogue verbs it suits (empty: any tool)
    said: tuple = ()  # (request sentence with {v}, value) pairs; empty: never stated
    values: tuple = ()  # for a sentence with {v}: the values drawn, (as said, as called) or one for both
    clashes: tuple = ()  # not offered beside a parameter whose name holds one of these (its meaning would blur)
    functions: bool = True  # offered on function-library tools (math, science, finance: verb "fn")


READS = frozenset({"get", "list", "search"})
MANY = frozenset({"list", "search"})  # tools that return several results
WRITES = frozenset({"create", "update", "delete", "do"})
SETTINGS = [
    Setting("timeout", {"type": "integer", "description": "Seconds to wait for an answer before giving up.",
                        "default": 30},
            said=(("Give up after {v} seconds.", None), ("Use a timeout of {v} seconds.", None)), values=(5, 10, 60),
            clashes=("timeout", "wait")),
    Setting("language", {"type": "string", "description": "Language of the response text, as an ISO 639-1 code.",
                         "default": "en"},
            said=(("Answer in {v}.", None),), values=(("French", "fr"), ("German", "de"), ("Spanish", "es")),
            clashes=("lang", "locale"), functions=False),
    Setting("response_format", {"type": "string", "enum": ["json", "text"],
                                "description": "Shape of the response.", "default": "json"},
            said=(("Plain text is fine.", "text"),), clashes=("format", "text")),
    Setting("verbose", {"type": "boolean", "description": "Include extra detail in the response.", "default": False},
            said=(("Give me all the details.", True), ("Keep the full details in.", True)),
            clashes=("detail", "verbose", "full", "include")),
    Setting("include_metadata", {"type": "boolean", "description": "Add the record's metadata to the response.",
                                 "default": False}, clashes=("meta", "detail", "include"), functions=False),
    Setting("request_id", {"type": "string", "description": "An identifier to trace this request in the logs."},
            clashes=("request", "trace"), functions=False),
    Setting("use_cache", {"type": "boolean", "description": "Answer from the cache when a recent answer is there.",
                          "default": True}, READS,
            said=(("Don't use cached data.", False), ("Skip the cache.", False)), clashes=("cache", "fresh"),
            functions=False),
    Setting("limit", {"type": "integer", "description": "Most results to return.", "default": 10}, MANY,
            said=(("Limit it to {v} results.", None), ("Just the top {v}.", None)), values=(3, 5, 20),
            clashes=("limit", "max", "top", "count", "num", "size", "results")),
    Setting("page", {"type": "integer", "description": "Page of results, from 1.", "default": 1}, MANY,
            clashes=("page", "offset", "cursor")),
    Setting("sort_order", {"type": "string", "enum": ["asc", "desc"], "description": "Order of the results.",
                           "default": "desc"}, MANY, clashes=("sort", "order")),
    Setting("dry_run", {"type": "boolean", "description": "Check the request without carrying it out.",
                        "default": False}, WRITES,
            said=(("Just a dry run for now.", True), ("Only check it, don't actually do it yet.", True)),
            clashes=("dry", "test", "simulate", "preview", "confirm")),
    Setting("notify", {"type": "boolean", "description": "Send a notification when it is done.", "default": False},
            WRITES, said=(("Notify me when it's done.", True),),
            clashes=("notif", "alert", "email", "message", "remind")),
]


def _verb(name: str) -> str | None:
    tool = by_name().get(name)
    return tool.verb if tool is not None else None


def _fits(setting: Setting, tool: str, verb: str | None, taken: set[str]) -> bool:
    """Whether a setting may go on a tool: its verb suits, and neither a parameter's name nor the tool's own holds the
    setting's name or a clash word (`language` on `get_detected_language`, `notify` on `create_reminder`)."""
    blurred = any(word in name.lower() for name in (*taken, tool) for word in (setting.name, *setting.clashes))
    return not blurred and (not setting.verbs or verb in setting.verbs) and (setting.functions or verb != "fn")


def _said(setting: Setting, rng: random.Random) -> tuple[str, object]:
    text, value = rng.choice(setting.said)
    if value is not None:
        return text, value
    drawn = rng.choice(setting.values)
    spoken, value = drawn if isinstance(drawn, tuple) else (drawn, drawn)
    return text.format(v=spoken), value


def with_settings(record: dict, kind: str, rng: random.Random, share: float = P_SETTINGS,
                  stated: float = P_STATED) -> dict:
    """The record with settings added to its called tools' specs (in place; see the module docstring); `stated` is the
    share of the rows that may state one whose request does."""
    if kind not in KINDS or rng.random() >= share:
        return record
    turns = [m for m in record["messages"] if m.get("tool_calls")]
    called = {c["function"]["name"] for m in turns for c in m["tool_calls"]}
    added: dict[str, list[Setting]] = {}
    for spec in record.get("tools") or []:
        fn = spec["function"]
        if fn["name"] not in called:
            continue
        props = fn["parameters"].setdefault("properties", {})
        pool = [s for s in SETTINGS if _fits(s, fn["name"], _verb(fn["name"]), set(props))]
        chosen = rng.sample(pool, min(len(pool), rng.randint(1, 3)))
        for s in chosen:
            props[s.name] = dict(s.schema)
        added[fn["name"]] = chosen
    # stated only where the call ends the row: a tool result or an answer after it would not show the setting
    # ("Answer in Spanish." met by an English reply); not in clarify rows, whose last user turn answers a question
    one_call = (len(turns) == 1 and len(turns[0]["tool_calls"]) == 1 and kind != "clarify"
                and record["messages"][-1] is turns[0])
    sayable = [s for s in added.get(turns[0]["tool_calls"][0]["function"]["name"], []) if s.said] if one_call else []
    if sayable and rng.random() < stated:
        at = record["messages"].index(turns[0])
        user = record["messages"][at - 1]
        if user.get("role") == "user" and isinstance(user.get("content"), str):
            setting = rng.choice(sayable)
            text, value = _said(setting, rng)
            content = user["content"].rstrip()
            user["content"] = content + ("" if content.endswith((".", "?", "!")) else ".") + " " + text
            turns[0]["tool_calls"][0]["function"]["arguments"][setting.name] = value
    return record
