"""A plain-Python yes/no check for the JSON Schema subset that tool specs use, with jsonschema's verdicts.

`nanoagent.toolcall.arguments_fit` asks one question per tool call: do these arguments fit the tool's schema?
jsonschema answers it in about 25 µs for a typical flat tool schema, which made the schema check the
largest cost of the data build after tokenizing. Almost every tool schema uses only `type`, `properties`,
`required`, `items`, `additionalProperties` and string `enum`s, so `compile_check(schema)` turns such a schema
into nested closures that give the same verdict in about 2 µs. Any other keyword jsonschema would act on
(`anyOf`, `minimum`, `$ref`, ...), an unknown type name or a malformed keyword value returns None, and the
caller keeps using jsonschema. Keywords jsonschema ignores (`description`, `default`, `title`, `format`
without a format checker) are ignored here too. tests/test_fastschema.py checks the verdicts against
jsonschema on thousands of random schemas and instances.

Usage:
    check = compile_check(schema, {**TYPES, "int": TYPES["integer"]})   # None: use jsonschema for this schema
    ok = check(arguments)

Left out: error messages (toolcall.check_arguments always uses jsonschema for those).
"""

from __future__ import annotations

from typing import Any, Callable

from nanoagent.typenames import SCHEMA_CHECKS

Check = Callable[[Any], bool]

# Keywords jsonschema acts on in a Draft 2020-12 schema (Draft202012Validator.VALIDATORS) that are not handled
# here; `type`, `properties`, `required`, `items`, `additionalProperties`, `enum` are, and `format` is a no-op.
_ACTING = {
    "$dynamicRef", "$ref", "allOf", "anyOf", "const", "contains", "dependentRequired", "dependentSchemas",
    "exclusiveMaximum", "exclusiveMinimum", "if", "maxItems", "maxLength", "maxProperties", "maximum", "minItems",
    "minLength", "minProperties", "minimum", "multipleOf", "not", "oneOf", "pattern", "patternProperties",
    "prefixItems", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "uniqueItems",
}

TYPES: dict[str, Check] = SCHEMA_CHECKS  # Draft 2020-12's type checker, in nanoagent.typenames beside BFCL's


def _always(v) -> bool:
    return True


def _never(v) -> bool:
    return False


def compile_check(schema: Any, types: dict[str, Check] | None = None) -> Check | None:
    """A function `instance -> bool` with jsonschema's verdict for `schema`, or None outside the subset.

    `types`: type name -> predicate, the validator's type checker (default: Draft 2020-12's `TYPES`).
    """
    try:
        return _compile(schema, TYPES if types is None else types)
    except _Unsupported:
        return None


class _Unsupported(Exception):
    pass


def _type_check(t: Any, types: dict[str, Check]) -> Check:
    names = [t] if isinstance(t, str) else t
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise _Unsupported
    preds = []
    for n in names:
        pred = types.get(n)
        if pred is None:
            raise _Unsupported  # unknown type: jsonschema raises UnknownType, the caller's fallback handles it
        preds.append(pred)
    if len(preds) == 1:
        return preds[0]
    return lambda v: any(p(v) for p in preds)


def _compile(schema: Any, types: dict[str, Check]) -> Check:
    if schema is True:
        return _always
    if schema is False:
        return _never
    if not isinstance(schema, dict) or _ACTING.intersection(schema):
        raise _Unsupported
    checks: list[Check] = []
    if "type" in schema:
        checks.append(_type_check(schema["type"], types))
    if "enum" in schema:
        values = schema["enum"]
        if not isinstance(values, list) or not all(isinstance(x, str) for x in values):
            raise _Unsupported  # jsonschema's enum equality has bool/number subtleties: leave them to it
        allowed = frozenset(values)
        checks.append(lambda v: isinstance(v, str) and v in allowed)
    props = schema.get("properties", {})
    if not isinstance(props, dict):
        raise _Unsupported
    prop_checks = {k: _compile(s, types) for k, s in props.items()}
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        raise _Unsupported
    extra = schema.get("additionalProperties", True)
    if isinstance(extra, dict):
        extra_check = _compile(extra, types)
    elif isinstance(extra, bool):
        extra_check = _always if extra else _never
    else:
        raise _Unsupported
    if prop_checks or required or extra_check is not _always:
        def object_check(v, prop_checks=prop_checks, required=required, extra_check=extra_check) -> bool:
            if not isinstance(v, dict):
                return True
            for k in required:
                if k not in v:
                    return False
            for k, item in v.items():
                c = prop_checks.get(k)
                if c is None:
                    if not extra_check(item):
                        return False
                elif not c(item):
                    return False
            return True

        checks.append(object_check)
    if "items" in schema:
        items = schema["items"]
        if not isinstance(items, (dict, bool)):
            raise _Unsupported
        item_check = _compile(items, types)
        if item_check is not _always:
            checks.append(lambda v: not isinstance(v, list) or all(item_check(x) for x in v))
    if not checks:
        return _always
    if len(checks) == 1:
        return checks[0]
    return lambda v: all(c(v) for c in checks)
