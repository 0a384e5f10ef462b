"""The synthetic source: tool-calling and coding-agent conversations generated offline, no download needed.

    from data_recipes.synthetic import generate, DEFAULT_KINDS
    records = list(generate(2000, seed=0))                       # canonical record dicts
    records = list(generate(500, seed=1, kinds={"coding": 1}))   # one kind only

Kinds: single, parallel, multi_turn, no_tool, distractor, normalize (tool calls over a catalogue of 300+ tools in
40+ domains, see catalogue.py) and coding (shell + apply_patch on tiny repos, see coding.py). Every record is
valid under `nanoagent.record.Record.from_dict`, every call's arguments fit its tool's JSON Schema, and the
stream is deterministic for a seed. `python -m data_recipes.synthetic --n 2000 --out data/synthetic.jsonl`
writes a sample and prints its stats.

Left out: decontamination and dedup (the build does both for every source), languages other than English.
"""

from data_recipes.synthetic.generate import DEFAULT_KINDS, check_kinds, check_share, example, generate

__all__ = ["generate", "example", "check_kinds", "check_share", "DEFAULT_KINDS"]
