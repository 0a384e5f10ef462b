"""What a synthetic tool's parameter is: `Param` (JSON Schema + sampler + phrasing) and its named constructors.

A `Param` knows its JSON Schema (string, integer with bounds, number, boolean, enum, array, nested object, string
patterns), a sampler that draws a `Value` (canonical value + how a user says it), and the phrases that put it in
a request ("in {}", "for {} nights"). The constructors, one per schema type (`string`, `integer`, `number`
and `money`, `boolean`, `enum`, `array`, `choices` (an array of enum strings), `obj`), build one `Param`;
`table(params)` indexes them by name. The parameters themselves are data in param_table.py (`PARAMS`), which
tools in catalogue.py use by name.

    from data_recipes.synthetic.params import integer, table
    extra = table([integer("nights", "Number of nights", 1, 14, ["for {} nights"])])

Left out: `format` keywords (jsonschema does not enforce them by default); patterns carry the structure instead.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable

from data_recipes.synthetic import values as V
from data_recipes.synthetic.values import Value, join_and


@dataclass(frozen=True)
class Param:
    name: str
    schema: dict  # JSON Schema of the value, with its description
    sample: Callable[[random.Random], Value]
    phrases: tuple[str, ...]  # "{}" takes the surface form; booleans: phrases for True
    false_phrases: tuple[str, ...] = ()  # booleans only
    default: Any = None
    measures: tuple[str, ...] = ()  # a unit said after these arguments' values ("a radius of 4 inches"), no phrase

    def phrase(self, rng: random.Random, value: Value, normalise: bool = False) -> str:
        if self.schema["type"] == "boolean":
            return rng.choice(self.phrases if value.value else self.false_phrases)
        return rng.choice(self.phrases).format(value.surface(rng, normalise))

    def spec(self, required: bool) -> dict:
        s = dict(self.schema)
        if not required and self.default is not None:
            s["default"] = self.default
        return s


def table(params: list[Param]) -> dict[str, Param]:
    """The parameters by name, in order; a name given twice is an error."""
    out: dict[str, Param] = {}
    for param in params:
        if param.name in out:
            raise ValueError(f"parameter {param.name!r} defined twice")
        out[param.name] = param
    return out


# One constructor per JSON Schema type; `extra` keywords (pattern, minimum...) go into the schema.
def string(name, desc, sample, phrases, **extra) -> Param:
    return Param(name, {"type": "string", "description": desc, **extra}, sample, tuple(phrases))


def integer(name, desc, lo, hi, phrases, default=None, words_max=999_999) -> Param:
    """Drawn uniformly from [lo, hi]; up to `words_max` a user may say it in words."""
    return Param(name, {"type": "integer", "description": desc, "minimum": lo, "maximum": hi},
                 lambda r: V.integer(r, lo, hi, words_max), tuple(phrases), default=default)


def number(name, desc, lo, hi, phrases, digits=1, default=None, **extra) -> Param:
    """Drawn from [lo, hi] with `digits` decimals; the schema states bounds only through `extra` (minimum=...)."""
    return Param(name, {"type": "number", "description": desc, **extra}, lambda r: V.decimal(r, lo, hi, digits),
                 tuple(phrases), default=default)


def money(name, desc, lo, hi, phrases, symbol="$", **extra) -> Param:
    """An amount drawn from [lo, hi], said with `symbol` or in words."""
    return Param(name, {"type": "number", "description": desc, **extra}, lambda r: V.money(r, lo, hi, symbol),
                 tuple(phrases))


def boolean(name, desc, true_phrases, false_phrases, default=False) -> Param:
    """True six times in ten; phrased by `true_phrases` or `false_phrases`."""
    return Param(name, {"type": "boolean", "description": desc}, lambda r: Value(r.random() < 0.6, ""),
                 tuple(true_phrases), tuple(false_phrases), default)


def enum(name, desc, options, phrases, default=None) -> Param:
    """`options`: values, or (value, how users say it) pairs; a bare value is said with spaces for underscores."""
    opts = [o if isinstance(o, tuple) else (o, o.replace("_", " ")) for o in options]
    return Param(name, {"type": "string", "description": desc, "enum": [o[0] for o in opts]}, V.choice_of(opts),
                 tuple(phrases), default=default)


def array(name, desc, item_schema, item_sample, phrases, k=(2, 3)) -> Param:
    """Between k[0] and k[1] distinct items from `item_sample`, said as "a, b and c"."""
    def sample(rng):
        items, seen = [], set()
        for _ in range(20):
            it = item_sample(rng)
            if it.value not in seen:
                seen.add(it.value)
                items.append(it)
            if len(items) >= rng.randint(*k):
                break
        text = join_and([it.text for it in items])
        alt = join_and([it.alt[0] if it.alt else it.text for it in items])
        return Value([it.value for it in items], text, (alt,) if alt != text else ())
    return Param(name, {"type": "array", "description": desc, "items": item_schema, "minItems": 1}, sample,
                 tuple(phrases))


def choices(name, desc, options, phrases) -> Param:
    """An array of enum strings the user picks one to three of ("with a pool and free parking" -> ["Pool",
    "Free Parking"]); `options` as for `enum`, a bare value said in lower case."""
    values = [o[0] if isinstance(o, tuple) else o for o in options]
    return Param(name, {"type": "array", "description": desc, "items": {"type": "string", "enum": values}},
                 V.subset_of(options), tuple(phrases))


def obj(name, desc, props, required, sample, phrases) -> Param:
    """A nested JSON object; `sample` draws the whole object at once."""
    return Param(name, {"type": "object", "description": desc, "properties": props, "required": required}, sample,
                 tuple(phrases))


def shaped(name, desc, shape, phrases) -> Param:
    """An object from objects.py: `shape` is (schema, sampler), a subset of optional fields or a map."""
    schema, sample = shape
    return Param(name, {**schema, "description": desc}, sample, tuple(phrases))
