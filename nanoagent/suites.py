"""Tool-calling eval suites as one item type: BFCL categories (offline, from the bfcl-eval wheel) and our own
validation split from the data recipes.

    items, dropped = load_suite("simple_python", limit=20)           # a seeded random sample of 20
    items, dropped = load_suite("simple_python", limit=20, sample="first")
    items, dropped = load_suite("valid")                      # data/default/valid.jsonl
    items, dropped = load_suite("valid:data/mine/valid.jsonl")

Each `EvalItem` has the prompt messages, the canonical tool specs (JSON Schema, what the renderer shows the model),
the BFCL-form possible answers (one `{name: {arg: [allowed...]}}` per expected call), the raw function specs the
checker reads types from, and what is expected: "calls" (match the answers), "no_call" (irrelevance) or
"any_call" (live_relevance). `dropped` counts what could not become an item, by reason; nothing is skipped silently.

For the validation split, the item is each record's first assistant turn: its tool calls become single-value
possible answers (arguments it does not give must not be given); a text answer with tools offered becomes a
"no_call" item; a record with no tools offered is dropped ("no tools offered").

Left out: BFCL's multi-turn, memory, web-search and format-sensitivity categories (they need state-based or
executable checking) and simple_java / simple_javascript (their values are language-typed strings).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from nanoagent.record import Record, RecordError, jsonl_lines

BFCL_SUITES = ("simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance", "live_simple",
               "live_multiple", "live_parallel", "live_parallel_multiple", "live_irrelevance", "live_relevance")
NO_CALL = ("irrelevance", "live_irrelevance")
ANY_CALL = ("live_relevance",)
VALID = "valid"
DEFAULT_VALID_PATH = "data/default/valid.jsonl"
ALL_SUITES = BFCL_SUITES + (VALID,)
GROUPS = {"all": ALL_SUITES, "bfcl": BFCL_SUITES, "live": tuple(s for s in BFCL_SUITES if s.startswith("live_")),
          "core": ("simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance"),
          # the quality run's figures (issue 15): whole suites, a seeded 250 of live_irrelevance's 882
          "quality": ("simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance", "live_simple",
                      "live_irrelevance@250", "valid")}


class SuiteError(ValueError):
    """An unknown suite or an unreadable data file; the message says what to do."""


@dataclass
class EvalItem:
    id: str
    suite: str
    messages: list[dict]
    tools: list[dict]                   # canonical specs, JSON Schema parameters
    answers: list[dict]                 # BFCL possible-answer form, one per expected call
    functions: list[dict] = field(default_factory=list)  # specs the checker reads types from
    expect: str = "calls"               # "calls" | "no_call" | "any_call"


def expand_suites(names) -> list[str]:
    """Suite names (comma-separated strings or lists, groups allowed) checked and de-duplicated, in order."""
    if isinstance(names, str):
        names = [names]
    out = []
    for chunk in names:
        for name in (n.strip() for n in chunk.split(",")):
            if not name:
                continue
            members = GROUPS.get(name, (name,))
            for m in members:
                split_limit(m)  # a bad @N is an error here, before any file is read
                base = m.split("@", 1)[0].split(":", 1)[0]
                if base not in ALL_SUITES:
                    raise SuiteError(f"unknown suite {m!r}; known: {', '.join(ALL_SUITES)}, groups: "
                                     f"{', '.join(GROUPS)}, or valid:PATH for a validation file")
                if m not in out:
                    out.append(m)
    if not out:
        raise SuiteError("no suite given; pass e.g. --suites simple_python,irrelevance,valid")
    return out


SAMPLES = ("random", "first")


def split_limit(name: str, default: int | None = None) -> tuple[str, int | None]:
    """`"live_irrelevance@250"` -> ("live_irrelevance", 250): a suite's own sample size, which overrides --limit;
    without `@N`, (name, default)."""
    base, at, n = name.rpartition("@")
    if not at:
        return name, default
    if not n.isdigit() or int(n) <= 0:
        raise SuiteError(f"suite {name!r}: after '@' give a positive number of items, e.g. {base}@250")
    return base, int(n)


def pick(items: list, limit: int | None, sample: str = "random", seed: int = 0, key: str = "") -> list:
    """`limit` of `items`: a seeded random sample kept in file order (the same for a seed and key on every
    machine), or the first `limit` with sample="first"; all of them when limit is None or covers them."""
    if sample not in SAMPLES:
        raise SuiteError(f"sample {sample!r} is not one of {', '.join(SAMPLES)}")
    if limit is not None and limit <= 0:
        raise SuiteError(f"--limit must be a positive number of items per suite (or left out for whole suites), "
                         f"got {limit}")
    if limit is None or limit >= len(items):
        return list(items)
    if sample == "first":
        return list(items[:limit])
    chosen = sorted(random.Random(f"{seed}:{key}").sample(range(len(items)), limit))
    return [items[i] for i in chosen]


def load_suite(name: str, limit: int | None = None, sample: str = "random",
               seed: int = 0) -> tuple[list[EvalItem], Counter]:
    """A suite's items: all of them, or `limit` of them by `pick` (a seeded random sample unless sample="first")."""
    base, _, path = name.partition(":")
    if base == VALID:
        items, dropped = load_valid(path or DEFAULT_VALID_PATH, suite=name)
    elif base not in BFCL_SUITES:
        raise SuiteError(f"unknown suite {name!r}; known: {', '.join(ALL_SUITES)}")
    else:
        items, dropped = load_bfcl(base)
    return pick(items, limit, sample, seed, key=name), dropped


def load_bfcl(category: str, limit: int | None = None) -> tuple[list[EvalItem], Counter]:
    from nanoagent.bfcl_data import BFCLDataMissing, load

    try:
        raw = load(category, limit=limit)
    except BFCLDataMissing as e:
        raise SuiteError(str(e)) from None
    except (json.JSONDecodeError, KeyError) as e:
        raise SuiteError(f"the bfcl-eval data file for {category!r} is malformed ({e}); reinstall it with "
                         "`pip install --no-deps --force-reinstall bfcl-eval`") from None
    expect = "no_call" if category in NO_CALL else "any_call" if category in ANY_CALL else "calls"
    items, dropped = [], Counter()
    for it in raw:
        if expect == "calls" and not it.answers:
            dropped["no possible answer shipped"] += 1
            continue
        if not it.messages():
            dropped["no question"] += 1
            continue
        items.append(EvalItem(id=it.id, suite=category, messages=it.messages(), tools=it.tools(),
                              answers=list(it.answers or []) if expect == "calls" else [],
                              functions=it.functions, expect=expect))
    return items, dropped


def _answer_of(call: dict) -> dict:
    fn = call["function"]
    return {fn["name"]: {k: [v] for k, v in fn["arguments"].items()}}


def record_item(rec: Record, item_id: str, suite: str) -> EvalItem | str:
    """The eval item for one record, or the reason it can't be one."""
    if not rec.tools:
        return "no tools offered"
    for i, msg in enumerate(rec.messages):
        if msg["role"] == "assistant":
            if not any(m["role"] == "user" for m in rec.messages[:i]):
                return "no user turn before the first assistant turn"
            calls = msg.get("tool_calls") or []
            return EvalItem(id=item_id, suite=suite, messages=rec.messages[:i], tools=rec.tools,
                            answers=[_answer_of(c) for c in calls], functions=rec.tools,
                            expect="calls" if calls else "no_call")
    return "no assistant turn"


def records_to_items(records, limit: int | None = None, suite: str = VALID) -> tuple[list[EvalItem], Counter]:
    """Eval items from records already in memory (Record objects or dicts), e.g. the trainer's held-out rows."""
    return _items(((f"{suite}-{n}", r if isinstance(r, Record) else Record.from_dict(r))
                   for n, r in enumerate(records)), limit, suite)


def _items(numbered, limit: int | None, suite: str) -> tuple[list[EvalItem], Counter]:
    """(fallback id, Record) pairs -> eval items (a record's meta id first), drops counted by reason."""
    items, dropped = [], Counter()
    for fallback, rec in numbered:
        made = record_item(rec, str(rec.meta.get("id", fallback)), suite)
        if isinstance(made, str):
            dropped[made] += 1
            continue
        items.append(made)
        if limit is not None and len(items) >= limit:
            break
    return items, dropped


def load_valid(path: str | Path, limit: int | None = None, suite: str = VALID) -> tuple[list[EvalItem], Counter]:
    path = Path(path)
    if not path.is_file():
        raise SuiteError(f"validation file {path} does not exist: build it with `python -m data_recipes.build` "
                         "or name one with --suites valid:PATH")
    try:
        lines = list(jsonl_lines(path))
    except RecordError as e:
        raise SuiteError(str(e)) from None

    def parsed():
        for n, line in lines:
            if not line.strip():
                continue
            try:
                yield f"{path.stem}-{n}", Record.from_dict(json.loads(line))
            except json.JSONDecodeError as e:
                raise SuiteError(f"{path}:{n} is not JSON ({e.msg}); fix or rebuild the file") from None
            except RecordError as e:
                raise SuiteError(f"{path}:{n} is not a valid record ({e}); fix or rebuild the file") from None

    return _items(parsed(), limit, suite)
