"""A tool spec with its parameters' choices and defaults written into their descriptions, as BFCL's functions do.

The generator states a parameter's choices as a JSON-Schema `enum` and its default as `default`. BFCL's functions
often say both in the description instead ("The temperature unit ('Celsius' or 'Fahrenheit'). Default is
'Fahrenheit'.") and leave the schema a bare string. Of the 39 optional string arguments that BFCL's simple_python
requests state, 23 have no enum and no default in their schema and name their default in the description; the
default model gives only 6 of the 39 (eval.optional_args on quality-cpu-b33). `in_prose(spec, rng)` rewrites a
spec into that form; the synthetic source applies it to a share of its records when a recipe sets `prose_schema`
(`python -m data_recipes.build --set sources.synthetic.prose_schema=0.5`, an A/B arm; the default build leaves
it at 0 and its rows unchanged).

    from data_recipes.synthetic.prose_schema import in_prose
    in_prose(tool.spec(), random.Random(0))

Left out: nested object fields and array items (BFCL describes those in prose too, more rarely).
"""

from __future__ import annotations

import copy
import json
import random

CHOICES = ("One of {list}.", "Choices are {list}.", "Can be {list}.", "Options: {list}.")
DEFAULTS = ("Default is {v}.", "Defaults to {v}.", "Default: {v}.")


def said(value) -> str:
    """A value as BFCL's descriptions write it: strings in single quotes, anything else as JSON."""
    return f"'{value}'" if isinstance(value, str) else json.dumps(value)


def listed(values: list) -> str:
    words = [said(v) for v in values]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def in_prose(spec: dict, rng: random.Random) -> dict:
    """A copy of a `{"type": "function", "function": {...}}` spec whose top-level parameters carry no `enum` or
    `default`: each is said at the end of the parameter's description instead."""
    out = copy.deepcopy(spec)
    for prop in (out["function"].get("parameters") or {}).get("properties", {}).values():
        if not isinstance(prop, dict) or ("enum" not in prop and "default" not in prop):
            continue
        parts = [prop.get("description", "").rstrip()]
        if "enum" in prop:
            parts.append(rng.choice(CHOICES).format(list=listed(prop.pop("enum"))))
        if "default" in prop:
            parts.append(rng.choice(DEFAULTS).format(v=said(prop.pop("default"))))
        prop["description"] = " ".join(p for p in parts if p)
    return out
