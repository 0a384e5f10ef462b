"""Type names in tool specs: the one table from each spelling our sources use to JSON Schema's, and what the checks
take each type to mean.

Specs write a parameter's type as JSON Schema does ("integer", "object"), as Python ("int", "dict", "tuple": xLAM,
BFCL's Python categories), as Java/JavaScript (BFCL's java and javascript categories: "long", "HashMap") or as a
typing word in xLAM-style type strings ("sequence", "NoneType"). Each group below maps its names to JSON Schema's;
"any" is no type at all. Each reader takes JSON Schema's own names plus the groups it reads:

    reader                                                 groups                      a name it does not know
    SCHEMA_NAMES  toolcall (jsonschema, fastschema),       PYTHON                      the schema is not checked
                  constrain (the grammar)
    CHECKER_NAMES checker (BFCL answers)                   PYTHON, C                   the value is not checked
    BFCL_NAMES    eval.bfcl_data (BFCL's specs)            PYTHON, C, JAVA             kept as written
    DATA_NAMES    data_recipes.convert (dataset specs,     PYTHON, C, TYPING           a string, described
                  looked up lower-cased)

The groups differ because each reader met different data, not by design; they are as they were when issue 18
merged four tables into this one, because widening a reader changes what it accepts or rewrites: measure that.

What differs on purpose is what a type means to a check. SCHEMA_CHECKS is JSON Schema's (Draft 2020-12, as
jsonschema decides): 1.0 is an "integer". BFCL_CHECKS is BFCL's checker's: an "integer" must be an int (1.0 is
not), a float-typed argument takes an int; neither takes a bool as a number; BFCL has no "null" (not checked).

Usage:
    DATA_NAMES.get("float")            # -> "number"
    SCHEMA_CHECKS["integer"](1.0), BFCL_CHECKS["integer"](1.0)     # True, False
"""

from __future__ import annotations

from typing import Any, Callable

JSON_TYPES = ("string", "integer", "number", "boolean", "object", "array", "null")

PYTHON = {"str": "string", "int": "integer", "float": "number", "bool": "boolean", "dict": "object", "list": "array",
          "tuple": "array"}
C = {"double": "number"}
JAVA = {"long": "integer", "short": "integer", "byte": "integer", "Integer": "integer", "char": "string",
        "String": "string", "Boolean": "boolean", "HashMap": "object", "ArrayList": "array", "Array": "array"}
TYPING = {"text": "string", "mapping": "object", "set": "array", "sequence": "array", "none": "null",
          "nonetype": "null"}


def _names(*groups: dict) -> dict[str, str]:
    out = {t: t for t in JSON_TYPES}
    for group in groups:
        out.update(group)
    return out


SCHEMA_NAMES = _names(PYTHON)
CHECKER_NAMES = _names(PYTHON, C)
BFCL_NAMES = _names(PYTHON, C, JAVA)
DATA_NAMES = _names(PYTHON, C, TYPING)


def _is_integer(v) -> bool:
    if isinstance(v, bool):
        return False
    return isinstance(v, int) or (isinstance(v, float) and v.is_integer())


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


# JSON Schema type -> does a plain JSON value have it. Draft 2020-12's type checker (jsonschema._types).
SCHEMA_CHECKS: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": _is_integer,
    "number": _is_number,
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "null": lambda v: v is None,
}
BFCL_CHECKS = {**{t: f for t, f in SCHEMA_CHECKS.items() if t != "null"},
               "integer": lambda v: isinstance(v, int) and not isinstance(v, bool)}
