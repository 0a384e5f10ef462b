"""Any JSON-Schema tool as a catalogue `Tool`: parameters that draw values from the schema and phrase them in requests.

`tool_from_spec(spec)` reads a canonical tool spec (nanoagent.toolsets) and returns a `Tool` whose `Param`s sample
from the schema itself: `enum`, `minimum`/`maximum`, `format` (date, time, date-time, email, uri), simple `pattern`s
and defaults; name and description cues fill the rest (a `city` gets cities, a `quantity` counts, a `*_id` ids, a
`weight_g` grams). Values carry the surface forms people use (numbers in words, "half an hour" for 30 minutes,
"3 pm" for 15:00, "March 3rd 2027" for 2027-03-03); the call holds the schema's form. The tool's verb and noun come
from its name (`start_print_job` -> start a print job), so the request templates of phrasing.py apply.

    tool = tool_from_spec(spec)            # SchemaToolError names the tool and parameter it cannot draw values for
    args, values = kinds.sample_args(tool, rng)

Left out: `oneOf`/`anyOf` alternatives (the first branch is used), regex features beyond classes, literals and
counted repeats, objects nested more than one level (drawn from their required properties only).
"""

from __future__ import annotations

import random
import re
import string
from dataclasses import replace

from data_recipes.synthetic import values as V
from data_recipes.synthetic.catalogue import Tool
from data_recipes.synthetic.params import Param
from data_recipes.synthetic.values import Value


class SchemaToolError(ValueError):
    """A tool the generator cannot draw requests for; the message names the tool, the parameter and what to do."""


VERBS = {  # a name's first word -> the catalogue verb whose request templates fit it
    "get": "get", "fetch": "get", "read": "get", "show": "get", "check": "get", "lookup": "get", "describe": "get",
    "list": "list", "search": "search", "find": "search", "query": "search", "browse": "search",
    "update": "update", "edit": "update", "modify": "update", "change": "update", "patch": "update",
    "calculate": "calc", "compute": "calc", "estimate": "calc", "convert": "calc", "predict": "calc",
    "create": "create", "add": "create", "new": "create", "delete": "delete", "remove": "delete",
    "cancel": "delete",
}
UNITS = {  # a name's last word -> (unit as said, a multiple of it people say in words: {value: phrase})
    "g": ("g", {500: "half a kilo", 1000: "a kilo", 250: "a quarter kilo"}), "grams": ("grams", {1000: "a kilo"}),
    "kg": ("kg", {0.5: "half a kilo", 1: "a kilo", 1.5: "a kilo and a half", 2.5: "two and a half kilos"}),
    "ml": ("ml", {500: "half a liter", 1000: "a liter", 250: "a quarter liter"}),
    "l": ("liters", {0.5: "half a liter"}),
    "minutes": ("minutes", {15: "a quarter of an hour", 30: "half an hour", 45: "three quarters of an hour",
                            60: "an hour", 90: "an hour and a half", 120: "two hours", 180: "three hours"}),
    "min": ("minutes", {15: "a quarter of an hour", 30: "half an hour", 60: "an hour", 90: "an hour and a half"}),
    "mins": ("minutes", {30: "half an hour", 60: "an hour"}),
    "seconds": ("seconds", {0.5: "half a second", 60: "a minute", 120: "two minutes", 300: "five minutes",
                            30: "half a minute", 90: "a minute and a half"}),
    "sec": ("seconds", {60: "a minute", 120: "two minutes"}), "s": ("seconds", {60: "a minute", 0.5: "half a second"}),
    "hours": ("hours", {0.5: "half an hour", 24: "a day", 48: "two days", 1.5: "an hour and a half"}),
    "days": ("days", {7: "a week", 14: "two weeks", 30: "a month"}), "weeks": ("weeks", {}),
    "c": ("°C", {}), "celsius": ("degrees", {}), "f": ("°F", {}), "percent": ("percent", {}), "pct": ("%", {}),
    "mm": ("mm", {}), "cm": ("cm", {}), "m": ("m", {}), "km": ("km", {}), "usd": ("dollars", {}),
    "eur": ("euros", {}), "kwh": ("kWh", {}), "w": ("watts", {}), "mb": ("MB", {}), "gb": ("GB", {}),
}
FREE_TEXT = {"note", "notes", "comment", "comments", "message", "text", "body", "content", "reason", "summary",
             "description", "details", "instructions", "prompt", "question"}
NAMES_FOR = {  # a cue word in the parameter's name -> a sampler
    "city": V.city, "town": V.city, "email": V.email, "phone": V.phone, "url": V.url, "uri": V.url, "link": V.url,
    "website": V.url, "address": V.address, "country": V.country_code, "language": V.language,
    "currency": V.currency, "person": V.person, "customer": V.person, "member": V.person, "owner": V.person,
    "user": V.person, "assignee": V.person, "author": V.person, "contact": V.person, "recipient": V.person,
}
WORDS = ["alpha", "north", "blue", "main", "west", "spring", "studio", "orchard", "summit", "harbor", "meadow",
         "river", "oak", "cedar", "garden", "central", "east", "hill", "bay", "lake"]
NOUNS = ("anchor apron arch badge basket beacon bell bench blade board bolt bottle bowl box bracket bridge brush "
         "bucket buckle button cabinet cable camera candle canvas cap card cart castle chain chair charm chart "
         "clamp clip clock coaster collar comb cone cover crane crate crown cup dial disk dock dome door drawer "
         "drone duck easel engine fan feather fence filter flag flask frame funnel gate gauge gear glove grill "
         "guard handle hanger hatch helmet hinge hook horn hub jar jig key kettle knob ladder lamp lantern latch "
         "lens lever lid lock loop magnet mask meter mirror mold mount mug nest nozzle organizer paddle panel "
         "pedal pencil pin pipe planter plate plug pot pulley rack rail ring rocket roller rope saddle scoop "
         "screen shelf shield sign sleeve slider socket spacer spindle spool spoon spring stand stamp stencil "
         "stool strap tag tile token tower tray tripod tube valve vase wedge wheel whistle widget "
         "window wrench").split()
NOTES = ["check the seal", "looks fine", "needs a second look", "left side only", "urgent", "weekly routine",
         "after the update", "as discussed", "for the new client", "rush order", "second attempt", "keep it quiet",
         "low priority", "before the weekend", "use the spare", "same as last time"]
EXTENSIONS = ["stl", "gcode", "3mf", "obj", "step", "pdf", "csv", "txt", "png", "jpg", "fits", "json", "docx",
              "xlsx", "mp3", "wav", "mp4", "zip", "yaml", "md"]
COLORS = ["black", "white", "red", "blue", "green", "orange", "grey", "yellow", "purple", "silver"]
P_DESCRIPTION_ACTION = 0.3  # the share of requests that ask in the tool's description's words


def words_of(name: str) -> list[str]:
    """'startPrintJob' / 'start-print_job' -> ['start', 'print', 'job']."""
    spaced = re.sub(r"(?<=[a-z0-9])([A-Z])", r" \1", name)
    return [w.lower() for w in re.split(r"[\s_\-.]+", spaced) if w]


# --- values ------------------------------------------------------------------------------------------------------
_CLASS = {"d": string.digits, "w": string.ascii_letters + string.digits + "_", "s": " "}


def pattern_sampler(pattern: str):
    """A sampler of strings matching a simple regex (literals, [classes], \\d \\w, {n} {n,m} ? + *), or None."""
    body = pattern.removeprefix("^").removesuffix("$")
    atoms, i = [], 0
    while i < len(body):
        c = body[i]
        if c == "[":
            end = body.find("]", i)
            if end < 0 or body[i + 1:i + 2] == "^":
                return None
            spec, chars, j = body[i + 1:end], "", 0
            while j < len(spec):
                if j + 2 < len(spec) and spec[j + 1] == "-":
                    chars += "".join(chr(k) for k in range(ord(spec[j]), ord(spec[j + 2]) + 1))
                    j += 3
                elif spec[j] == "\\" and j + 1 < len(spec):
                    chars += _CLASS.get(spec[j + 1], spec[j + 1])
                    j += 2
                else:
                    chars += spec[j]
                    j += 1
            atoms.append(chars)
            i = end + 1
        elif c == "\\" and i + 1 < len(body):
            atoms.append(_CLASS.get(body[i + 1], body[i + 1]))
            i += 2
        elif c in "()|^$":
            return None
        elif c == ".":
            atoms.append(string.ascii_lowercase)
            i += 1
        elif c in "{?+*":
            if not atoms:
                return None
            if c == "{":
                end = body.find("}", i)
                if end < 0:
                    return None
                lo, _, hi = body[i + 1:end].partition(",")
                lo_n = int(lo or 0)
                hi_n = lo_n if not _ else int(hi) if hi else lo_n + 3
                i = end + 1
            else:
                lo_n, hi_n = {"?": (0, 1), "+": (1, 3), "*": (0, 3)}[c]
                i += 1
            atoms[-1] = (atoms[-1], lo_n, hi_n)
        else:
            atoms.append(c)
            i += 1
    regex = re.compile(pattern)

    def sample(rng: random.Random) -> Value:
        for _ in range(20):
            out = ""
            for atom in atoms:
                chars, lo, hi = atom if isinstance(atom, tuple) else (atom, 1, 1)
                out += "".join(rng.choice(chars) for _ in range(rng.randint(lo, hi)))
            if regex.search(out):
                return Value(out, out, (out.lower(),) if out.lower() != out and rng.random() < 0.3 else ())
        raise SchemaToolError(f"pattern {pattern!r}: could not draw a matching value")
    return sample


def described_examples(description: str) -> list[str]:
    """The example values a description gives: quoted after 'e.g.' / 'such as' / 'like', or listed bare after
    'e.g.' ('e.g. "M31", "NGC 7000"' -> ['M31', 'NGC 7000'])."""
    m = re.search(r"\b(?:e\.g\.|eg\.|for example|such as|like)[:,]?\s*(.+)", description, flags=re.IGNORECASE)
    if not m:
        return []
    tail = m.group(1)
    quoted = re.findall(r"[\"'“]([^\"'”]{1,40})[\"'”]", tail)
    if quoted:
        return quoted
    bare = [w.strip(" .;)") for w in re.split(r",|\bor\b", tail.split(";")[0])]
    return [w for w in bare if w and len(w) <= 30 and " " not in w.strip()][:6]


P_EXAMPLE_AS_IS, P_EXAMPLE_DIGITS = 0.1, 0.2  # the rest: the example's shape with its words redrawn too


def reshaped(example: str, rng: random.Random) -> str:
    """`example` with its digits redrawn and its lower-case or capitalised words (3+ letters) swapped for other
    nouns; short letter runs, acronyms and a file extension stay ('bracket_v2.stl' -> 'lantern_v7.stl', 'Mill Lane'
    -> 'Hook Crate', 'NGC 7000' -> 'NGC 3182')."""
    parts = re.findall(r"[A-Za-z]+|\d+|[^A-Za-z\d]+", example)
    out = []
    for i, part in enumerate(parts):
        is_extension = i == len(parts) - 1 and i > 0 and parts[i - 1] == "."
        if part.isdigit():
            first = rng.choice("123456789") if part[0] != "0" or len(part) == 1 else "0"
            out.append(first + "".join(rng.choice(string.digits) for _ in part[1:]))
        elif part.isalpha() and len(part) >= 3 and not part.isupper() and not is_extension:
            word = rng.choice(NOUNS)
            out.append(word.capitalize() if part[0].isupper() else word)
        else:
            out.append(part)
    return "".join(out)


def like_examples(examples: list[str]):
    """A sampler of values like the described ones: an example as it is (P_EXAMPLE_AS_IS), with its digits redrawn
    ('M31' -> 'M87'), or most often reshaped (`reshaped`), so that a model learns to copy the value from the request
    rather than the description's example."""
    def sample(rng: random.Random) -> Value:
        base, r = rng.choice(examples), rng.random()
        if r < P_EXAMPLE_AS_IS:
            s = base
        elif r < P_EXAMPLE_AS_IS + P_EXAMPLE_DIGITS:
            s = re.sub(r"\d", lambda _: rng.choice(string.digits), base)
        else:
            s = reshaped(base, rng)
        return Value(s, s)
    return sample


def _said_with_unit(v: Value, unit: tuple[str, dict] | None) -> Value:
    """`v` as people say it with its unit: '30 minutes', or 'half an hour' where the value has such a phrase."""
    if unit is None:
        return v
    said, words = unit
    alts = tuple(f"{a} {said}" for a in v.alt)
    if v.value in words:
        alts = (words[v.value],) + alts
        if isinstance(v.value, (int, float)):
            return Value(v.value, f"{v.text} {said}", alts, 0.6)
    return Value(v.value, f"{v.text} {said}", alts)


def _bounds(schema: dict, default_lo: float, default_hi: float) -> tuple[float, float]:
    lo = schema.get("minimum", schema.get("exclusiveMinimum", default_lo))
    hi = schema.get("maximum", schema.get("exclusiveMaximum", default_hi))
    if isinstance(schema.get("exclusiveMinimum"), (int, float)) and "minimum" not in schema:
        lo = lo + (1 if schema.get("type") == "integer" else 0.01)
    if isinstance(schema.get("exclusiveMaximum"), (int, float)) and "maximum" not in schema:
        hi = hi - (1 if schema.get("type") == "integer" else 0.01)
    if "minimum" in schema and "maximum" not in schema and "exclusiveMaximum" not in schema:
        hi = max(hi, lo + default_hi - default_lo)
    if "maximum" in schema and "minimum" not in schema and "exclusiveMinimum" not in schema:
        lo = min(lo, hi - (default_hi - default_lo))
    return lo, hi


def _numeric_defaults(words: list[str]) -> tuple[float, float]:
    cue = set(words)
    if cue & {"year"}:
        return 2020, 2030
    if cue & {"percent", "pct", "percentage"}:
        return 1, 100
    if cue & {"count", "quantity", "copies", "number", "num", "qty", "limit", "size", "seats", "guests", "people"}:
        return 1, 20
    if cue & {"minutes", "min", "mins", "duration"}:
        return 5, 180
    if cue & {"seconds", "sec", "s"}:
        return 1, 600
    if cue & {"price", "cost", "amount", "budget", "usd", "eur"}:
        return 5, 500
    return 1, 100


def _string_sampler(name_words: list[str], schema: dict, tool: str, name: str):
    fmt, cue = schema.get("format"), set(name_words)
    if "pattern" in schema:
        sampler = pattern_sampler(schema["pattern"])
        if sampler is not None:
            return sampler
        # groups or alternatives: draw from the name and format cues, keeping the values the pattern accepts
        cued = _string_sampler(name_words, {k: v for k, v in schema.items() if k != "pattern"}, tool, name)
        regex = re.compile(schema["pattern"])

        def matching(rng):
            for _ in range(30):
                v = cued(rng)
                if isinstance(v.value, str) and regex.search(v.value):
                    return v
            raise SchemaToolError(f"tool {tool!r}, parameter {name!r}: the pattern {schema['pattern']!r} is too "
                                  "complex to draw values from (groups or alternatives) and the name gives no "
                                  "values that match it; simplify the pattern, or add a format or an enum")
        return matching
    if fmt == "date" or cue & {"date", "day", "birthday"} and fmt is None and "time" not in cue:
        return lambda rng: V.date(rng, years=(2026, 2027))
    if fmt == "time" or (fmt is None and cue & {"time", "hour"} and not cue & {"zone", "timezone"}):
        return V.clock
    if fmt == "date-time":
        def stamp(rng):
            d, t = V.date(rng, years=(2026, 2027)), V.clock(rng)
            iso = f"{d.value}T{t.value}:00"
            return Value(iso, iso, tuple(f"{a} at {b}" for a in d.alt[:3] for b in t.alt[:1]), 0.5)
        return stamp
    said = described_examples(schema.get("description", "")) if fmt is None and not cue & FREE_TEXT else []
    if len(said) >= 2 or any(ch.isdigit() for x in said for ch in x):  # one plain word is too few to vary
        return like_examples(said)
    if fmt == "email":
        return V.email
    if fmt in ("uri", "url"):
        return V.url
    for word in name_words:
        if word in NAMES_FOR:
            return NAMES_FOR[word]
    if name_words[-1] in ("id", "ids", "code", "number", "ref", "sku") or name_words[-1].endswith("id"):
        stem = "".join(w[0] for w in name_words[:-1]).upper() or name_words[0][:3].upper()
        width = random.Random(name).choice([4, 5])
        return V.code_id(stem if len(stem) >= 2 else (name_words[0][:3].upper()), width)
    if cue & {"file", "filename", "path"}:
        said = re.findall(r"\b(" + "|".join(EXTENSIONS) + r")\b", schema.get("description", "").lower())
        ext = "." + (said[0] if said else random.Random(name).choice(["pdf", "csv", "txt", "png"]))
        def file_name(rng):
            tail = rng.choice(["", "", f"_{rng.choice(NOUNS)}", "_v2", "_final", f"_{rng.randint(1, 99):02d}"])
            return rng.choice(NOUNS) + tail + ext
        return V.verbatim(file_name)
    if cue & {"color", "colour"}:
        return V.text_from(COLORS)
    if cue & FREE_TEXT:
        return V.quoted(NOTES)
    if cue & {"name", "title", "label", "tag", "site", "location", "brand", "category", "model", "target", "topic"}:
        return V.verbatim(lambda rng: f"{rng.choice(WORDS).capitalize()} {rng.choice(WORDS).capitalize()}"
                          if rng.random() < 0.5 else rng.choice(WORDS).capitalize())
    return V.text_from(WORDS)


def value_sampler(schema: dict, name: str, tool: str):
    """A sampler of values for one property schema (the schema's own constraints first, then name cues)."""
    words = words_of(name) or [name]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    for branch_key in ("anyOf", "oneOf"):
        if kind is None and isinstance(schema.get(branch_key), list) and schema[branch_key]:
            return value_sampler({**schema[branch_key][0], "description": schema.get("description", "")},
                                 name, tool)
    if "enum" in schema:
        unit = UNITS.get(words[-1], ("", {}))[0] if kind in ("integer", "number") else ""
        options = [(o, V.said_option(o) if isinstance(o, str) else f"{o} {unit}".strip()) for o in schema["enum"]]
        return V.choice_of(options)
    if kind == "boolean":
        return lambda rng: Value(rng.random() < 0.6, "")
    unit = UNITS.get(words[-1]) if kind in ("integer", "number") else None
    if kind == "integer":
        lo, hi = _bounds(schema, *_numeric_defaults(words))
        lo, hi = int(lo), int(hi)
        if lo > hi:
            raise SchemaToolError(f"tool {tool!r}, parameter {name!r}: minimum {lo} is above maximum {hi}")
        base = lambda rng: V.integer(rng, lo, hi)  # noqa: E731
        if unit:
            return lambda rng: _said_with_unit(_unit_integer(rng, lo, hi, unit), unit)
        return base
    if kind == "number":
        lo, hi = _bounds(schema, *_numeric_defaults(words))
        if lo > hi:
            raise SchemaToolError(f"tool {tool!r}, parameter {name!r}: minimum {lo} is above maximum {hi}")
        digits = 2 if set(words) & {"price", "cost", "amount", "usd", "eur", "budget"} else 1
        if unit:
            return lambda rng: _said_with_unit(_unit_number(rng, lo, hi, digits, unit), unit)
        return lambda rng: V.decimal(rng, lo, hi, digits)
    if kind == "array":
        items = schema.get("items") or {"type": "string"}
        if "enum" in items:
            return V.subset_of(list(items["enum"]))
        item = value_sampler(items, name.rstrip("s") or name, tool)
        lo = max(1, int(schema.get("minItems", 1)))
        hi = max(lo, min(int(schema.get("maxItems", 3)), 3))

        def listed(rng):
            drawn, seen = [], set()
            for _ in range(20):
                v = item(rng)
                if repr(v.value) not in seen:
                    seen.add(repr(v.value))
                    drawn.append(v)
                if len(drawn) >= rng.randint(lo, hi):
                    break
            return Value([v.value for v in drawn], V.join_and([v.text for v in drawn]))
        return listed
    if kind == "object" or "properties" in schema:
        props = schema.get("properties") or {}
        required = [k for k in schema.get("required") or list(props)[:2] if k in props]
        subs = {k: value_sampler(props[k], k, tool) for k in required}

        def nested(rng):
            drawn = {k: s(rng) for k, s in subs.items()}
            text = V.join_and([f"{' '.join(words_of(k))} {v.text}" for k, v in drawn.items()])
            return Value({k: v.value for k, v in drawn.items()}, text)
        return nested
    return _string_sampler(words, schema, tool, name)


def _unit_integer(rng, lo, hi, unit) -> Value:
    said = [v for v in unit[1] if isinstance(v, int) and lo <= v <= hi]
    if said and rng.random() < 0.35:
        n = rng.choice(said)
        return Value(n, str(n), ((V.number_words(n),) if n < 1000 else ()))
    return V.integer(rng, lo, hi)


def _unit_number(rng, lo, hi, digits, unit) -> Value:
    said = [v for v in unit[1] if lo <= v <= hi]
    if said and rng.random() < 0.35:
        x = rng.choice(said)
        return Value(x, V.number_text(x))
    return V.decimal(rng, lo, hi, digits)


# --- phrases ---------------------------------------------------------------------------------------------------
def label_of(name: str) -> str:
    """How a request names a parameter: 'nozzle_temp_c' -> 'nozzle temp', 'printer_id' -> 'printer'."""
    words = words_of(name) or [name]
    if len(words) > 1 and (words[-1] in UNITS or words[-1] == "id"):
        words = words[:-1]
    return " ".join(words)


def phrases_for(name: str, schema: dict) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Request phrases for a parameter ("{}" takes the value); booleans: (phrases for True, for False)."""
    label, words = label_of(name), words_of(name) or [name]
    kind = schema.get("type")
    if kind == "boolean":
        return (f"with {label}", f"{label}: yes", f"{label} on"), (f"without {label}", f"{label}: no", f"no {label}")
    fmt = schema.get("format")
    if "enum" in schema:
        return (f"{label} {{}}", f"with {label} {{}}", f"{{}} {label}", "in {}", f"{label}: {{}}"), ()
    if fmt == "date" or (kind == "string" and "date" in words and fmt is None):
        return ("on {}", "for {}", f"{label} {{}}", f"with {label} {{}}"), ()
    if fmt == "time" or (kind == "string" and "time" in words and fmt is None):
        return ("at {}", f"{label} {{}}", f"with {label} {{}}"), ()
    if words[-1] in UNITS and kind in ("integer", "number"):
        return (f"{label} {{}}", f"with {label} {{}}", f"a {label} of {{}}", f"{label} at {{}}", f"{label}: {{}}"), ()
    if kind in ("integer", "number") and len(words) == 1 and words[0].endswith("s"):
        return (f"{{}} {label}", f"{label}: {{}}", f"with {{}} {label}"), ()
    if words[-1] == "id":
        return (f"{label} {{}}", f"for {label} {{}}", f"on {label} {{}}", "for {}", "{}"), ()
    if set(words) & {"file", "filename", "path"}:
        return ("{}", "file {}", f"{label} {{}}"), ()
    if set(words) & FREE_TEXT:
        return (f"with the {label} {{}}", f"{label}: {{}}", f"{label} {{}}"), ()
    return (f"{label} {{}}", f"with {label} {{}}", f"{label}: {{}}", f"{label} set to {{}}"), ()


def param_from(name: str, schema: dict, tool: str) -> Param:
    if not isinstance(schema, dict):
        raise SchemaToolError(f"tool {tool!r}, parameter {name!r}: its schema is not an object")
    true, false = phrases_for(name, schema)
    return Param(name, schema, value_sampler(schema, name, tool), true, false, schema.get("default"))


# --- tools -----------------------------------------------------------------------------------------------------
def _action_from_description(description: str) -> str | None:
    """The description's first sentence as an ask ('Start a new print job.' -> 'start a new print job'), when it
    is short and opens with a verb-like word; else None."""
    first = re.split(r"(?<=[.!?])\s", description.strip(), maxsplit=1)[0].rstrip(".!? ")
    words = first.split()
    if not 2 <= len(words) <= 9 or words[0].lower().endswith("s") and words[0].lower() not in ("pass", "press"):
        return None  # "Returns the ..." reads as a statement, not an ask
    if any(c in first for c in "(){}[]:;\"`"):
        return None
    return first[:1].lower() + first[1:]


def tool_from_spec(spec: dict, domain: str = "specialist") -> Tool:
    fn = spec.get("function", spec)
    name, schema = fn["name"], fn.get("parameters") or {}
    props, required = schema.get("properties") or {}, set(schema.get("required") or [])
    params = tuple((param_from(p, s, name), p in required) for p, s in props.items())
    words = words_of(name) or [name]
    verb = VERBS.get(words[0], "do")
    noun_words = words[1:] or words
    noun = "_".join(noun_words)
    plural = noun if noun.endswith("s") else noun + "s"
    word = words[0] if verb != "do" else " ".join(words[:1] + ["the"] + noun_words) if len(words) > 1 else words[0]
    if verb in ("list", "search") and noun.endswith("s"):
        noun = noun[:-1]
    return Tool(name, domain, noun, plural, verb, word, params, (), fn.get("description") or "")


def request_tool(tool: Tool, description: str, rng: random.Random) -> Tool:
    """`tool` as one request asks for it: most by its name's verb and noun, some in its description's words."""
    if rng.random() < P_DESCRIPTION_ACTION and (ask := _action_from_description(description)):
        return replace(tool, verb="do", word=ask)
    if tool.verb == "do" and rng.random() < 0.5:
        words = words_of(tool.name)
        if len(words) > 1:
            return replace(tool, word=" ".join(words[:1] + [rng.choice(["a", "the"])] + words[1:]))
    return tool


def check_tool(tool: Tool, rng: random.Random | None = None) -> None:
    """Draw each parameter a few times so that a schema the generator cannot serve fails here, by name."""
    rng = rng or random.Random(0)
    for param, _ in tool.params:
        for _ in range(3):
            try:
                param.sample(rng)
            except SchemaToolError:
                raise
            except Exception as e:  # a sampler that breaks on this schema: say which
                raise SchemaToolError(f"tool {tool.name!r}, parameter {param.name!r}: cannot draw a value from its "
                                      f"schema ({type(e).__name__}: {e}); simplify the schema or give --examples") \
                    from None
