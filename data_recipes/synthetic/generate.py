"""`generate(n, seed, kinds)`: the synthetic source's one entry point, a deterministic stream of canonical records.

Row i draws its kind and its content from its own `random.Random(f"{seed}:{i}")`, so the stream is the same for a
seed on every run and machine (Python's string seeding is stable), a prefix of a longer run equals a shorter run,
and rows can be made in any order or in parallel. Each record has meta {"source": "synthetic", "kind": ...,
"id": "synthetic-<seed>-<i>"}.

Usage:
    from data_recipes.synthetic import generate
    for rec in generate(1000, seed=0, kinds={"coding": 1, "single": 2}): ...

Left out: any check against eval sets (decontamination is the build's job, on every source alike).
"""

from __future__ import annotations

import random
from typing import Iterator

from data_recipes.synthetic.broad import broad_tool
from data_recipes.synthetic.coding import coding
from data_recipes.synthetic.commands import command_tool
from data_recipes.synthetic.grammar import tidy_record
from data_recipes.synthetic.kinds import BUILDERS
from data_recipes.synthetic.prose_schema import in_prose
from data_recipes.synthetic.session import session
from data_recipes.synthetic.settings import P_SETTINGS, P_STATED, with_settings
from nanoagent.config import check_weights

BUILDERS = {**BUILDERS, "coding": coding, "broad_tool": broad_tool, "command_tool": command_tool, "session": session}
# About one row in five needs no call (BFCL irrelevance and real tool lists); the call kinds in the proportions of
# BFCL's categories and real traffic; coding rows teach the agent's two tools.
# broad_tool: live_simple +6.2 (+1.9 to +10.5) at 0.10 in a CPU A/B, irrelevance and parallel unchanged
# (train/results/parallel-ab/README.md); it takes its share from the other single-call kinds.
# command_tool: 0.03 from single and distractor, for BFCL live_simple's command-runner requests (commands.py).
# The weights are relative (they sum to 1.1). no_tool 0.30 gives 27% of generated rows and 23% of the
# built training rows (near-duplicate refusals are dropped): against 0.20, BFCL irrelevance +12.9 (+8.3 to +17.5),
# multiple +4.0, parallel -4.5 (-10.5 to +1.5); 0.40 cost the calling suites 7-10 points
# (train/results/notool-gpu/README.md).
# The order is part of the stream (rng.choices walks it): no_tool last, as in the measured build.
# session (several requests against one tool list, session.py), sibling_multiple and parallel_multiple_wide
# (kinds.py) are not in it: a recipe gives them a weight.
DEFAULT_KINDS: dict[str, float] = {"single": 0.10, "distractor": 0.10, "parallel": 0.11, "parallel_multiple": 0.08,
                                   "multi_turn": 0.10, "clarify": 0.05, "normalize": 0.08, "coding": 0.10,
                                   "broad_tool": 0.05, "command_tool": 0.03, "no_tool": 0.30}


def check_kinds(kinds: dict | list | None) -> dict[str, float]:
    """Validate a kinds mix (kind -> weight, or a list of kinds at equal weight); ValueError names the bad entry."""
    if kinds is None:
        return dict(DEFAULT_KINDS)
    if isinstance(kinds, (list, tuple)):  # a recipe may list kinds by name: equal weights among them
        kinds = {k: 1.0 for k in kinds}
    return check_weights(kinds, BUILDERS, "synthetic kind", negative=False)


def example(i: int, seed: int, kinds: dict[str, float], prose_schema: float = 0.0,
            settings: float | None = None, settings_stated: float | None = None) -> tuple[dict, dict]:
    """Row i of the stream as (record, info); info names the tools the request needs (used by tests).

    `settings` (default settings.P_SETTINGS) is the share of call rows whose called tools also offer generic optional
    settings (settings.py), and `settings_stated` (default settings.P_STATED) the share of the rows that may state one
    whose request does. With `prose_schema` > 0, that share of rows has its tools' choices and defaults written
    into the descriptions (prose_schema.py). Both draw from generators of their own, so that the rows themselves stay
    those of the stream."""
    rng = random.Random(f"{seed}:{i}")
    names = [k for k, w in kinds.items() if w > 0]
    kind = rng.choices(names, weights=[kinds[k] for k in names])[0]
    record, info = BUILDERS[kind](rng)
    tidy_record(record)  # "for 1 passenger", "an 85 m bar" (grammar.py)
    share = P_SETTINGS if settings is None else settings
    if share > 0:
        with_settings(record, kind, random.Random(f"{seed}:{i}:settings"), share,
                      P_STATED if settings_stated is None else settings_stated)
    if prose_schema > 0:
        style = random.Random(f"{seed}:{i}:prose")
        if style.random() < prose_schema:
            record["tools"] = [in_prose(t, style) for t in record.get("tools") or []]
    record["meta"] = {"source": "synthetic", "kind": kind, "id": f"synthetic-{seed}-{i}"}
    return record, {**info, "kind": kind}


def check_share(share, name: str = "prose_schema") -> float:
    """A share of rows in [0, 1] for `prose_schema`, `settings` or `settings_stated`; ValueError otherwise."""
    what = {"prose_schema": "rows whose tools say their choices in prose",
            "settings": "call rows whose called tools offer generic optional settings",
            "settings_stated": "one-call rows with settings whose request states one"}[name]
    if isinstance(share, bool) or not isinstance(share, (int, float)) or not 0 <= share <= 1:
        raise ValueError(f"{name} is the share of {what}: give a number from 0 to 1, not {share!r}")
    return float(share)


def generate(n: int, seed: int = 0, kinds: dict[str, float] | list[str] | None = None,
             prose_schema: float = 0.0, settings: float | None = None,
             settings_stated: float | None = None) -> Iterator[dict]:
    """Yield n canonical record dicts (valid under nanoagent.record.Record.from_dict), deterministic for a seed."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"generate needs a row count n >= 0, got {n!r}")
    mix = check_kinds(kinds)
    share = check_share(prose_schema, "prose_schema")
    offered = None if settings is None else check_share(settings, "settings")
    stated = None if settings_stated is None else check_share(settings_stated, "settings_stated")
    for i in range(n):
        yield example(i, seed, mix, share, offered, stated)[0]
