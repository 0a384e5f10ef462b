"""Object-valued arguments: the shapes in which real tool lists take one argument as a JSON object, with samplers.

Real APIs, and BFCL, pass some arguments as one object: the fields of a profile to change (`profile_data`), an
appliance's settings (`body`), the filters of a query (`conditions`, `params`), or a map whose keys come from the
request (`gradeDict`: subject -> score). The generator's first object parameters all had fixed, required keys
(date_range, address, dims, ...), on 2.4% of its tools. quality-gpu-300-new got none of the 29 BFCL items whose
answer holds an object right, and 17 of its 29 replies there were not JSON, most closing the call one brace short.
Two shapes are added here:

- a subset: an object of optional fields, of which the user names one to three (`profile_data`, `ac_settings`,
  `query_params`);
  the call carries only the named ones;
- a map: an object with no fixed keys; the request states each key and its value (`scores`, `votes`, `cart`,
  `expenses`, `filters`).

    from data_recipes.synthetic.objects import FIELDS, SUBSETS, MAPS
    schema, sample = MAPS["scores"]        # schema without description; sample(rng) -> Value({"Math": 85, ...})
    FIELDS["profile_data"]                 # a subset's fields: (key, schema, sampler, how the user names it)

Run: imported by param_table.py (catalogue parameters) and fn_pools.py (library object kinds); nothing to run.
Left out: objects nested more than one level; arrays of maps (the `items`/`points` kinds cover arrays of objects).
"""

from __future__ import annotations

import random
from typing import Callable

from data_recipes.synthetic import values as V
from data_recipes.synthetic.values import join_and
from data_recipes.synthetic.values import Value

# A field of a subset object: (key, JSON Schema, sampler, how the user names it with its value).
Field = tuple[str, dict, Callable[[random.Random], Value], str]


def _said(v: Value, how: str, alt: bool) -> str:
    return how.format(v.alt[0] if alt and v.alt else v.text)


def subset(fields: list[Field], lo: int = 1, hi: int = 3) -> tuple[dict, Callable[[random.Random], Value]]:
    """(schema, sampler) of an object whose fields are all optional; a draw names lo..hi of them, in schema order."""
    schema = {"type": "object", "properties": {key: dict(s) for key, s, _, _ in fields}}

    def sample(rng: random.Random) -> Value:
        chosen = sorted(rng.sample(range(len(fields)), rng.randint(lo, min(hi, len(fields)))))
        drawn = [(fields[i][0], fields[i][2](rng), fields[i][3]) for i in chosen]
        text = join_and([_said(v, how, False) for _, v, how in drawn])
        alt = join_and([_said(v, how, True) for _, v, how in drawn])
        return Value({key: v.value for key, v, _ in drawn}, text, (alt,) if alt != text else ())
    return schema, sample


def mapping(keys: list[str], value_schema: dict, draw, say: str, alt_say: str,
            lo: int = 2, hi: int = 5) -> tuple[dict, Callable[[random.Random], Value]]:
    """(schema, sampler) of a map from keys the request names to values of one type; `draw` samples a value, or is
    a dict of one sampler per key. `say`/`alt_say` put one pair into words: "{k}" the key, "{v}" the value."""
    schema = {"type": "object", "additionalProperties": dict(value_schema)}

    def sample(rng: random.Random) -> Value:
        chosen = rng.sample(keys, rng.randint(lo, min(hi, len(keys))))
        pairs = [(k, (draw[k] if isinstance(draw, dict) else draw)(rng)) for k in chosen]
        text = join_and([say.format(k=k, v=v.text) for k, v in pairs])
        alt = join_and([alt_say.format(k=k, v=v.alt[0] if v.alt else v.text) for k, v in pairs])
        return Value({k: v.value for k, v in pairs}, text, (alt,) if alt != text else ())
    return schema, sample


def _code(options: list[str]) -> Callable[[random.Random], Value]:
    """An upper-case code the user says in lower case ("COOL" as "cool")."""
    return lambda rng: Value(v := V.pick(rng, options), v.lower().replace("_", " "), (v,))


def _on_off(rng: random.Random) -> Value:
    on = rng.random() < 0.5
    return Value(on, "on" if on else "off")


def _int(lo: int, hi: int, words_max: int = 0) -> Callable[[random.Random], Value]:
    return lambda rng: V.integer(rng, lo, hi, words_max)


def _amount(rng: random.Random) -> Value:
    n = rng.randint(5, 200) * 10
    return Value(n, f"${V.number_text(n)}", tuple(f"${g}" for g in V.grouped(n)))


def _word(options: list[str]) -> Callable[[random.Random], Value]:
    return lambda rng: Value(v := V.pick(rng, options), v)


FILTER_VALUES = {"status": _word(["shipped", "pending", "cancelled", "overdue"]),
                 "plan": _word(["free", "pro", "team"]), "tier": _word(["gold", "silver", "bronze"]),
                 "stage": _word(["lead", "trial", "customer"])}


_STRING = {"type": "string"}
FIELDS: dict[str, list[Field]] = {  # the subset objects, field by field
    "profile_data": [("name", _STRING, V.person, "name {}"), ("email", _STRING, V.email, "email {}"),
                     ("phone", _STRING, V.phone, "phone number {}"),
                     ("age", {"type": "integer"}, _int(18, 90, 90), "age {}"), ("city", _STRING, V.city, "city {}")],
    "ac_settings": [("mode", {"type": "string", "enum": ["COOL", "HEAT", "DRY", "FAN", "AUTO"]},
                     _code(["COOL", "HEAT", "DRY", "FAN", "AUTO"]), "{} mode"),
                    ("fan_speed", {"type": "string", "enum": ["LOW", "MID", "HIGH"]}, _code(["LOW", "MID", "HIGH"]),
                     "{} fan speed"),
                    ("target_temperature", {"type": "integer", "minimum": 16, "maximum": 30}, _int(16, 30, 30),
                     "{} degrees"),
                    ("power_save", {"type": "boolean"}, _on_off, "power saving {}")],
    "query_params": [("q", _STRING, V.text_from(["running shoes", "laptop stand", "python", "weather"]), "q={}"),
                     ("page", {"type": "integer"}, _int(1, 20), "page {}"),
                     ("limit", {"type": "integer"}, _int(5, 100), "limit {}"),
                     ("sort", {"type": "string", "enum": ["asc", "desc"]}, _word(["asc", "desc"]), "sort {}")],
}
SUBSETS = {name: subset(fields, lo=2 if name == "ac_settings" else 1) for name, fields in FIELDS.items()}
MAPS = {
    "scores": mapping(["Math", "English", "Science", "History", "Art", "Music", "Biology", "Chemistry", "Physics",
                       "Geography"], {"type": "integer"}, _int(40, 100), "{k} {v}", "{v} in {k}", lo=3),
    "votes": mapping(["Alice", "Bob", "Carmen", "Deepak", "Elena", "Farid", "Grace", "Hiro"], {"type": "integer"},
                     _int(120, 9800), "{k} {v} votes", "{v} votes for {k}"),
    "cart": mapping(["apples", "bread", "milk", "eggs", "coffee", "rice", "bananas", "cheese", "tea", "pasta"],
                    {"type": "integer"}, _int(1, 6, 6), "{v} {k}", "{k}: {v}"),
    "expenses": mapping(["rent", "groceries", "transport", "utilities", "dining", "insurance", "phone", "gym"],
                        {"type": "number"}, _amount, "{k} {v}", "{v} on {k}", lo=3),
    "filters": mapping(list(FILTER_VALUES), _STRING, FILTER_VALUES, "{k} is {v}", "{k} = {v}",
                       lo=1, hi=2),
}
