"""The function library: compact rows of computational and data functions turned into catalogue `Tool`s.

The everyday-API catalogue (domains.py) has verbs over entities (`search_hotels`, `book_flight`). Real tool lists,
and BFCL, also hold functions: formulas from math, science, finance, geometry, units, statistics and data work
(`calculate_triangle_area`, `physics.kinetic_energy`, `convertTemperature`). Rows for those live in the `fn_*.py`
tables as `Fn`s; this module parses their parameter specs and makes each base function in three naming styles
found in the wild (four), each a distinct tool with its own name and argument names:

    snake   calculate_triangle_area(base, height, unit)
    module  geometry.triangle_area(base, height, unit)
    camel   calculateTriangleArea(base, height, unit)   (argument names camelCase too: initialVelocity)
    bare    triangle_area(base, height, unit)           (the verb dropped; `math_round_number` when there is none)

Parameter spec, one per `;`: `[?]name:type[:args][=default][@phrase]`. `?` marks optional; `=default` goes into
the schema; `@phrase` says how a user puts the value in a request (`{}` takes the value), else a phrase is made
from the name. Types: `i:lo:hi` integer, `n:lo:hi[:digits]` number, `e:a|b|c` enum, `b` boolean, `s:POOL` string
from a pool in fn_pools.py, `r:lo:hi[:digits]` a rate the user states in percent and the call carries as a fraction
("at 8%" -> 0.08: a plain `rate` name takes the fraction, a `_percent` name the percent), `li:lo:hi` /
`ln:lo:hi[:digits]` / `ls:POOL` arrays (`:sorted` after a number list's bounds sorts it), `le:A|B|C` one to three
of an enum's options ("with a patio" -> ["Patio"]), `u:GROUP:a,b` a unit from UNIT_WORDS[GROUP] said after the
values of arguments a and b ("with a radius of 4 inches"; no phrase of its own), `lp` probabilities that sum to 1, the object kinds `point`,
`points`, `coord`, `matrix`, `items`, `dims`, and the maps `scores`, `votes`, `cart`, `expenses` (objects.py).

Run: `python -c "from data_recipes.synthetic.library import library_tools; print(len(library_tools()))"`.
Left out: formulas whose inputs a user can't state in one sentence; results for functions without a `compute`
(their rows carry the call but no tool result, so no final answer can state a wrong number).
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Callable

from data_recipes.synthetic import fn_pools as P
from data_recipes.synthetic import values as V
from data_recipes.synthetic.grammar import article
from data_recipes.synthetic.params import Param
from data_recipes.synthetic.values import Value

STYLES = ("snake", "module", "camel", "bare")
VERB_PREFIXES = ("calculate_", "compute_", "convert_", "estimate_", "get_", "find_", "check_", "count_",
                 "generate_", "format_", "validate_", "parse_", "analyze_", "predict_", "solve_", "determine_")


@dataclass(frozen=True)
class Fn:
    """One base function of the library: its domain, snake name, what a user asks for, its doc and parameters."""
    domain: str
    name: str  # snake_case with its verb: calculate_triangle_area
    ask: str  # the request's action: "calculate the area of a triangle"
    doc: str  # the description the tool spec carries
    params: str  # the parameter spec (module docstring)
    compute: Callable[[dict], object] | None = None  # args (snake names) -> the result value, when exact
    result: str = "result"  # the result field's name


def F(domain: str, name: str, ask: str, doc: str, params: str, compute=None, result: str = "result") -> Fn:
    return Fn(domain, name, ask, doc, params, compute, result)


class SpecError(ValueError):
    """A malformed row in a function table; the message names the function and the token."""


UNITS = {"kg": "kilograms", "g": "grams", "m": "metres", "cm": "centimetres", "mm": "millimetres", "km": "kilometres",
         "s": "seconds", "ms": "milliseconds", "min": "minutes", "h": "hours", "hours": "hours", "days": "days",
         "years": "years", "months": "months", "percent": "percent", "deg": "degrees", "c": "degrees Celsius",
         "k": "kelvin", "usd": "US dollars", "n": "newtons", "j": "joules", "w": "watts", "v": "volts",
         "a": "amperes", "ohm": "ohms", "hz": "hertz", "pa": "pascals", "l": "litres", "ml": "millilitres",
         "mph": "miles per hour", "kmh": "km per hour", "mps": "metres per second", "m2": "square metres",
         "m3": "cubic metres", "kwh": "kilowatt-hours", "mol": "moles", "bpm": "beats per minute", "ft": "feet",
         "in": "inches", "lb": "pounds", "mb": "megabytes", "gb": "gigabytes", "mbps": "megabits per second"}
SHORT_UNITS = {"percent": "%", "deg": "°", "c": "°C", "usd": "USD", "m2": "m²", "m3": "m³", "mps": "m/s",
               "kmh": "km/h", "hours": "hours", "days": "days", "years": "years", "months": "months",
               "min": "minutes",
               # SI symbols in their case: "121 N", "1454 J", "300 K", not "121 n"
               "k": "K", "n": "N", "j": "J", "w": "W", "v": "V", "a": "A", "hz": "Hz", "pa": "Pa", "l": "L",
               "ml": "mL", "kwh": "kWh", "mb": "MB", "gb": "GB", "mbps": "Mbps"}
# Symbols people also type against the number ("300K", "5kg", "440Hz", "0.01m²"): BFCL's calling suites do so about
# 50 times, and a model that had only seen "300 K" copied "300K" into its call, which is not JSON (15 of one run's
# unparsable replies, train/results/quality-cpu-order-seed2/).
# Not K: 8% of requests are typed in lower case, and "300k" reads as 300,000.
GLUED = {"kg", "g", "m", "cm", "mm", "km", "s", "ms", "N", "J", "W", "V", "A", "Hz", "Pa", "L", "mL", "kWh",
         "MB", "GB", "ft", "in", "lb", "m²", "m³", "m/s", "km/h", "mph"}
P_GLUED = 0.3


# The units a `u:GROUP:args` parameter draws from, as users write them and the call carries them (BFCL's answers take
# "inches", "cm", "m", "units"...).
UNIT_WORDS = {"length": ["cm", "m", "mm", "inches", "feet", "metres", "centimetres", "units"]}


# Suffixes that are also labels (side_a, point_a, side_c): a unit only after a stem that names its quantity.
LABEL_UNITS = {"a": ("current",), "c": ("temperature",)}


def words_of(name: str) -> tuple[str, str | None]:
    """('initial velocity', 'mps') for initial_velocity_mps; the unit is None when the name has none.

    "side_a" is side A, not a side in amperes, and coverage_m2_per_l is not "in litres" (reading the last word as
    a unit described such parameters of 36 tools as "Word in amperes." and wrote their values as "6.2 a")."""
    parts = name.split("_")
    unit = parts[-1] if len(parts) > 1 and parts[-1] in UNITS else None
    if unit in LABEL_UNITS and not any(w.startswith(LABEL_UNITS[unit]) for w in parts[:-1]):  # final_temperature_c
        unit = None
    if unit is not None and (len(parts) > 2 and parts[-2] == "per" or parts[-2:] == ["light", "years"]):
        unit = None  # coverage_m2_per_l; light_years is a distance ("Light years.", not "Light in years.")
    if unit is None:
        return " ".join(parts), None
    return " ".join(parts[:-1]), unit


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(w[:1].upper() + w[1:] for w in rest)


def _with_unit(v: Value, unit: str | None, rng) -> Value:
    if unit is None:
        return v
    short = SHORT_UNITS.get(unit, unit)
    sep = "" if short in ("%", "°", "°C") or short in GLUED and rng.random() < P_GLUED else " "
    long = UNITS[unit]
    alts = tuple(f"{a} {long}" for a in v.alt)  # numbers in words with the unit spelled out
    return Value(v.value, f"{v.text}{sep}{short}", alts)


def _sampler(kind: str, args: list[str], unit: str | None, where: str,
             length: int | None = None) -> tuple[dict, Callable]:
    """(JSON Schema without description, sampler) for one parameter type; `length` fixes a number list's length
    (3-7 items drawn otherwise)."""
    def number(lo, hi, digits):
        return lambda rng: V.decimal(rng, lo, hi, digits)

    try:
        if kind == "i":
            lo, hi = int(args[0]), int(args[1])
            return {"type": "integer"}, lambda r: _with_unit(V.integer(r, lo, hi, 9999), unit, r)
        if kind == "n":
            lo, hi, digits = float(args[0]), float(args[1]), int(args[2]) if len(args) > 2 else 1
            draw = number(lo, hi, digits)
            return {"type": "number"}, lambda r: _with_unit(draw(r), unit, r)
        if kind == "r":
            lo, hi, digits = float(args[0]), float(args[1]), int(args[2]) if len(args) > 2 else 1
            return {"type": "number"}, lambda r: _rate(round(r.uniform(lo, hi), digits), digits)
        if kind == "e":
            opts = args[0].split("|")
            return {"type": "string", "enum": opts}, lambda r: Value(v := V.pick(r, opts), v,
                                                                      (v.replace("_", " "),) if "_" in v else ())
        if kind == "b":
            return {"type": "boolean"}, lambda r: Value(r.random() < 0.6, "")
        if kind == "s":
            pool = P.POOLS[args[0]]
            return {"type": "string"}, lambda r: P.surface(args[0], V.pick(r, pool))
        if kind in ("li", "ln"):
            ordered = args[-1:] == ["sorted"]  # merge_sorted_lists is given sorted lists
            args = args[:-1] if ordered else args
            lo, hi = float(args[0]), float(args[1])
            digits = 0 if kind == "li" else int(args[2]) if len(args) > 2 else 1
            draw = number(lo, hi, digits)
            item = {"type": "integer" if kind == "li" else "number"}

            def numbers(r):
                items = [draw(r) for _ in range(length or r.randint(3, 7))]
                return _listed(sorted(items, key=lambda v: v.value) if ordered else items)
            return {"type": "array", "items": item}, numbers
        if kind == "u":
            return {"type": "string"}, V.text_from(UNIT_WORDS[args[0]])
        if kind == "le":
            opts = args[0].split("|")
            return {"type": "array", "items": {"type": "string", "enum": opts}}, V.subset_of(opts)
        if kind == "lp":
            return {"type": "array", "items": {"type": "number"}}, lambda r: _distribution(r, length or r.randint(2, 5))
        if kind == "ls":
            pool = P.POOLS[args[0]]

            def strings(r):
                k = length or r.randint(2, 4)
                picks = r.sample(pool, k) if k <= len(pool) else r.choices(pool, k=k)
                return _listed([P.surface(args[0], s) for s in picks])
            return {"type": "array", "items": {"type": "string"}}, strings
        if kind in P.OBJECTS:
            schema, draw = P.OBJECTS[kind]
            return dict(schema), draw
    except (IndexError, ValueError, KeyError) as e:
        raise SpecError(f"{where}: bad parameter type {kind}:{':'.join(args)} ({e})") from None
    raise SpecError(f"{where}: unknown parameter type {kind!r}")


def _rate(percent: float, digits: int) -> Value:
    """A rate the user says as a percent ('8.5%' or '8.5 percent') and the call carries as the fraction 0.085."""
    return Value(round(percent / 100, digits + 2), f"{percent:g}%", (f"{percent:g} percent",))


def _distribution(rng, k: int) -> Value:
    """k probabilities of two decimals, each at least 0.05, that sum to 1: 0.35, 0.2 and 0.45 (drawn each from
    0.05-0.5 on its own, calculate_expected_value's probabilities would sum to anything)."""
    cuts = sorted(rng.sample(range(1, 20), k - 1))  # in twentieths, then some moved by a hundredth or more
    parts = [b - a for a, b in zip([0, *cuts], [*cuts, 20])]
    hundredths = [5 * p for p in parts]
    for _ in range(k):
        i, j = rng.sample(range(k), 2)
        move = rng.randint(0, hundredths[i] - 5)
        hundredths[i] -= move
        hundredths[j] += move
    return _listed([Value(h / 100, V.number_text(h / 100), ()) for h in hundredths])


def _listed(items: list[Value]) -> Value:
    text = ", ".join(i.text for i in items[:-1]) + " and " + items[-1].text if len(items) > 1 else items[0].text
    return Value([i.value for i in items], text, (f"[{', '.join(i.text for i in items)}]",))


def _bracketed(sample: Callable) -> Callable:
    """A list sampler that writes its list in brackets where the list has a bracket form: beside another list,
    the plain form ("50, 14 and 50 and 6, 13 and 39") has no boundary a reader can find."""
    def draw(rng):
        v = sample(rng)
        text = next((t for t in (v.text, *v.alt) if t.startswith("[")), v.text)
        return Value(v.value, text, tuple(a for a in v.alt if a.startswith("[") and a != text))
    return draw


def _default(kind: str, text: str):
    if kind == "i":
        return int(text)
    if kind in ("n", "r"):
        return float(text)
    if kind == "b":
        return text.lower() == "true"
    return text


def _phrases(name: str, kind: str, schema: dict) -> tuple[tuple[str, ...], tuple[str, ...]]:
    words, _ = words_of(name)
    if kind == "b":
        return (f"with {words}", f"and include {words}"), (f"without {words}", f"with no {words}")
    if kind == "e":
        return (f"with {words} {{}}", f"using {{}} as the {words}", f"({words}: {{}})"), ()
    if schema["type"] == "array":
        return (f"for {{}}", f"with {words} {{}}", f"given the {words} {{}}"), ()
    return (f"with {article(words)} {words} of {{}}", f"where the {words} is {{}}", f"{words} {{}}", f"{words} = {{}}"), ()


UNIT_ABBREVIATIONS = {"mm", "mol", "kg", "g", "m", "cm", "km", "mg", "ml", "l", "pa", "hz", "parsecs", "of", "degree"}


def _unit_in_phrase(phrase: str, unit: str | None) -> bool:
    """Whether a custom phrase writes the unit itself after the value: right after it ("with {} mm of rain", "{} µC")
    or further on ("for {} overtime hours", which must not read "for 10.9 hours overtime hours")."""
    after = phrase.split("{}", 1)[1] if "{}" in phrase else ""
    if not after.startswith(" ") or not after.strip():
        return False
    word = after.split()[0].lower()
    names = {unit, UNITS.get(unit or ""), SHORT_UNITS.get(unit or "")} - {None}
    return (not word.isalpha() or word in UNIT_ABBREVIATIONS or word in names
            or any(w.strip(".,;") in names for w in after.lower().split()[1:]))


def parse_params(fn: Fn, style: str) -> tuple[tuple[tuple[Param, bool], ...], dict[str, str]]:
    """The Params of one style of `fn`, and the map from the style's argument names to the snake names."""
    out, names = [], {}
    tokens = [t.strip() for t in fn.params.split(";") if t.strip()]
    number_lists = [t for t in tokens if t.partition("@")[0].split(":")[1:2] in (["li"], ["ln"], ["lp"], ["ls"])]
    # x and y of a regression, values and weights, grades and credits: one length for all of a function's lists,
    # string lists included (each drawing its own, a request asked for the correlation of 6 values with 7)
    length = 3 + zlib.crc32(fn.name.encode()) % 5 if len(number_lists) > 1 else None
    for token in tokens:
        where = f"{fn.domain}/{fn.name} parameter {token!r}"
        body, _, phrase = token.partition("@")
        body, _, default = body.partition("=")
        required = not body.startswith("?")
        name, _, rest = body.lstrip("?").partition(":")
        kind, *args = rest.split(":") if rest else [""]
        if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
            raise SpecError(f"{where}: parameter names are snake_case")
        words, unit = words_of(name)
        said = None if phrase and _unit_in_phrase(phrase, unit) else unit  # a phrase with its unit: bare value
        schema, sample = _sampler(kind, args, said, where, length)
        desc = P.DESCRIPTIONS.get(name) or (words[:1].upper() + words[1:] + (f" in {UNITS[unit]}" if unit else ""))
        schema = {**schema, "description": desc + "."}
        measures = ()
        if kind == "u":  # a unit said after the values of the arguments it measures ("a radius of 4 inches")
            measures = tuple(n.strip() for n in (args[1] if len(args) > 1 else "").split(",") if n.strip())
            unknown = [n for n in measures if not re.search(rf"(?:^|;)\s*\??{n}:", fn.params)]
            if not measures or unknown:
                raise SpecError(f"{where}: a unit names the arguments it measures, among the function's "
                                f"({', '.join(unknown) or 'none given'})")
            schema["description"] = f"Unit of the {V.join_and([words_of(n)[0] for n in measures])}."
            measures = tuple(camel(n) if style == "camel" else n for n in measures)
            phrase = phrase or "in {}"  # only where a request changes the unit alone
        phrases, false_phrases = ((phrase,), ()) if phrase else _phrases(name, kind, schema)
        if kind == "b" and phrase:  # "with symbols" -> "without symbols"; "returning to the start" -> "not ..."
            false_phrases = (phrase.replace("with ", "without ", 1) if phrase.startswith("with ") else "not " + phrase,)
        arg = camel(name) if style == "camel" else name
        names[arg] = name
        out.append((Param(arg, schema, sample, phrases, false_phrases,
                          _default(kind, default) if default else None, measures), required))
    if not out:
        raise SpecError(f"{fn.domain}/{fn.name}: a function needs at least one parameter")
    if sum(p.schema["type"] == "array" for p, _ in out) > 1:
        out = [(replace(p, sample=_bracketed(p.sample)) if p.schema["type"] == "array" else p, req) for p, req in out]
    return tuple(out), names


def styled_name(fn: Fn, style: str) -> str:
    if style == "snake":
        return fn.name
    if style == "camel":
        return camel(fn.name)
    bare = fn.name
    for prefix in VERB_PREFIXES:
        if bare.startswith(prefix) and len(bare) > len(prefix):
            bare = bare[len(prefix):]
            break
    module = P.MODULES.get(fn.domain, fn.domain)
    if style == "module":
        return f"{module}.{bare}"
    return bare if bare != fn.name else f"{module}_{bare}"  # bare: the name without its verb


@lru_cache(maxsize=1)
def functions() -> tuple[Fn, ...]:
    from data_recipes.synthetic.fn_applied import FUNCTIONS as APPLIED
    from data_recipes.synthetic.fn_math import FUNCTIONS as MATH
    from data_recipes.synthetic.fn_science import FUNCTIONS as SCIENCE

    seen: dict[str, Fn] = {}
    for fn in MATH + SCIENCE + APPLIED:
        if fn.name in seen:
            raise SpecError(f"function {fn.name!r} is defined twice ({seen[fn.name].domain} and {fn.domain})")
        seen[fn.name] = fn
    return tuple(seen.values())


@lru_cache(maxsize=1)
def fraction_rate_functions() -> frozenset[str]:
    """The base functions with a rate the user states in percent and the call carries as a fraction (type `r`)."""
    return frozenset(fn.name for fn in functions() if re.search(r"(?:^|;)\s*\??[a-z0-9_]+:r:", fn.params))


@lru_cache(maxsize=1)
def library_tools() -> tuple:
    """Every base function in every naming style, as catalogue Tools (verb 'fn')."""
    from data_recipes.synthetic.catalogue import Tool

    tools = []
    for fn in functions():
        for style in STYLES:
            params, names = parse_params(fn, style)
            words = fn.ask.split(" ", 1)
            tools.append(Tool(styled_name(fn, style), fn.domain, fn.name, fn.name, "fn", fn.ask, params,
                              ((fn.result, "number"),), fn.doc, base=fn.name, compute=fn.compute,
                              arg_names=tuple(names.items()), style=style, obj=words[1] if len(words) > 1 else ""))
    return tuple(tools)


def computed(tool, args: dict):
    """The exact result of a library tool for `args`, or None when the function has no compute."""
    if tool.compute is None:
        return None
    names = dict(tool.arg_names)
    return tool.compute({names.get(k, k): v for k, v in args.items()})

