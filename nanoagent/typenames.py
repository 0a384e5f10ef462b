"""Type names in tool specs: the one table from each spelling our sources use to JSON Schema's, and what the checks
take each type to mean.

Specs write types as JSON Schema does, as Python ("int", "dict", "tuple": xLAM, BFCL), as Java/JavaScript (BFCL's
java and javascript categories: "long", "HashMap") or as typing words in xLAM-style strings ("sequence"); "any" is
no type. Each reader below takes JSON Schema's own names plus the groups it reads.

On purpose, a type means different things to two checks: SCHEMA_CHECKS is JSON Schema's (jsonschema's Draft
2020-12), where 1.0 is an "integer"; BFCL_CHECKS is BFCL's answer checker's, where an "integer" must be an int and
"null" is not checked. Both take an int as a "number" ("float"), neither a bool as a number.

Usage:
    DATA_NAMES.get("float")                                        # -> "number"
    SCHEMA_CHECKS["integer"](1.0), BFCL_CHECKS["integer"](1.0)      # True, False
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
_OWN = {t: t for t in JSON_TYPES}

# The readers: the groups each has met, as they were when issue 18 merged four tables here (widening one changes
# what that reader accepts: measure it). In parentheses, what the reader does with a name it does not know.
SCHEMA_NAMES = {**_OWN, **PYTHON}                   # toolcall, fastschema, constrain (the schema is not checked)
CHECKER_NAMES = {**_OWN, **PYTHON, **C}             # checker (the value is not checked)
BFCL_NAMES = {**_OWN, **PYTHON, **C, **JAVA}        # nanoagent.bfcl_data (kept as written)
DATA_NAMES = {**_OWN, **PYTHON, **C, **TYPING}      # data_recipes.convert, looked up lower-cased (a described string)


# JSON Schema type -> does a plain JSON value have it. Draft 2020-12's type checker (jsonschema._types).
SCHEMA_CHECKS: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: not isinstance(v, bool) and (isinstance(v, int) or isinstance(v, float) and v.is_integer()),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "null": lambda v: v is None,
}
BFCL_CHECKS = {**{t: f for t, f in SCHEMA_CHECKS.items() if t != "null"},
               "integer": lambda v: isinstance(v, int) and not isinstance(v, bool)}
