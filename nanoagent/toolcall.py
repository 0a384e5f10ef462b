"""Tool calls as text: the one writer and the one parser every stage uses.

The convention (Hermes/Qwen style, see shared/DESIGN.md) for an assistant turn is its free text, then each call as

    <tool_call>
    {"name": "get_weather", "arguments": {"city": "Paris"}}
    </tool_call>

`format_tool_call` writes exactly that JSON (`json.dumps(..., ensure_ascii=False)`, the same bytes as the Jinja
template's `tojson`). `parse(text, tools)` reads a model reply back into `(content, tool_calls)` and raises a
`ToolCallError` subclass when a call is broken; each error's message is written for the model to read and act on
(the agent loop sends it back as the tool result).

Usage:
    reply = parse(model_text, record.tools)      # -> Reply(content, tool_calls)
    try: ... except ToolCallError as e: feedback = str(e)

Left out: repairing broken JSON. A 135M model must learn the format; eval counts what it gets wrong.
"""

from __future__ import annotations

import json
from functools import lru_cache
from dataclasses import dataclass, field

import jsonschema

from nanoagent.fastschema import TYPES, compile_check

OPEN, CLOSE = "<tool_call>", "</tool_call>"


class ToolCallError(ValueError):
    """A reply whose tool call can't be used. `kind` names the failure for counting in eval."""

    kind = "invalid"


class UnclosedTagError(ToolCallError):
    kind = "unclosed_tag"


class NotJSONError(ToolCallError):
    kind = "not_json"


class UnknownToolError(ToolCallError):
    kind = "unknown_tool"


class BadArgumentsError(ToolCallError):
    kind = "bad_arguments"


@dataclass
class Reply:
    content: str
    tool_calls: list[dict] = field(default_factory=list)  # canonical {"type", "function": {name, arguments}}


def tool_call_json(name: str, arguments: dict) -> str:
    return json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False)


def format_tool_call(name: str, arguments: dict) -> str:
    return f"{OPEN}\n{tool_call_json(name, arguments)}\n{CLOSE}"


# Non-standard type names seen in real tool specs (xLAM, BFCL); they are checked as their JSON Schema twins.
TYPE_ALIASES = {
    "float": "number", "int": "integer", "dict": "object", "list": "array", "tuple": "array",
    "str": "string", "bool": "boolean",
}


def _make_validator_class():
    base = jsonschema.Draft202012Validator
    checker = base.TYPE_CHECKER
    for alias, std in TYPE_ALIASES.items():
        checker = checker.redefine(alias, lambda c, inst, std=std: base.TYPE_CHECKER.is_type(inst, std))
    checker = checker.redefine("any", lambda c, inst: True)
    return jsonschema.validators.extend(base, type_checker=checker)


_Validator = _make_validator_class()


_FAST_TYPES = {**TYPES, **{alias: TYPES[std] for alias, std in TYPE_ALIASES.items()}, "any": lambda v: True}


@lru_cache(maxsize=4096)
def _compiled(schema_json: str):
    """(validator, fast check) per distinct schema (compiling costs more than validating).

    The validator is None for a broken schema; the fast check (nanoagent.fastschema) is None for a schema outside
    the subset it handles, where jsonschema gives the verdict.
    """
    schema = json.loads(schema_json)
    try:
        validator = _Validator(schema)  # no metaschema check: it rejects the aliases above
    except (jsonschema.SchemaError, jsonschema.exceptions.UnknownType, ValueError):
        return None, None
    return validator, compile_check(schema, _FAST_TYPES)


def check_arguments(arguments: dict, parameters: dict) -> list[str]:
    """Problems with `arguments` against a tool's JSON Schema `parameters`, as short sentences."""
    validator, _ = _compiled(json.dumps(parameters, sort_keys=True))
    if validator is None:  # a broken spec is not the model's fault
        return ["the tool's own schema could not be checked"]
    try:
        errors = sorted(validator.iter_errors(arguments), key=lambda e: list(e.absolute_path))
    except (jsonschema.SchemaError, jsonschema.exceptions.UnknownType) as e:
        return [f"the tool's own schema could not be checked ({type(e).__name__})"]
    problems = []
    for err in errors:
        where = "/".join(str(p) for p in err.absolute_path)
        problems.append(f"{where}: {err.message}" if where else err.message)
    return problems


def arguments_fit(arguments: dict, parameters: dict) -> bool:
    """True when `arguments` fit the schema: check_arguments' verdict, stopping at the first problem."""
    validator, fast = _compiled(json.dumps(parameters, sort_keys=True))
    if fast is not None:
        return fast(arguments)
    if validator is None:
        return False
    try:
        return next(validator.iter_errors(arguments), None) is None
    except (jsonschema.SchemaError, jsonschema.exceptions.UnknownType):
        return False


def _tool_index(tools) -> dict[str, dict] | None:
    if tools is None:
        return None
    index = {}
    for t in tools:
        fn = t.get("function", t)
        index[fn["name"]] = fn.get("parameters") or {"type": "object", "properties": {}}
    return index


def parse_call_json(body: str, tools=None) -> dict:
    """Parse one call's JSON body (what sits between the tags) into the canonical call dict."""
    body = body.strip()
    try:
        obj = json.loads(body)
    except json.JSONDecodeError as e:
        raise NotJSONError(f"The tool call is not valid JSON ({e.msg} at character {e.pos}). Write exactly one JSON "
                           'object like {"name": "tool_name", "arguments": {...}} between the tags.') from None
    if not isinstance(obj, dict) or not isinstance(obj.get("name"), str):
        raise NotJSONError('The tool call must be a JSON object with a string "name" and an object "arguments".')
    args = obj.get("arguments", {})
    if isinstance(args, str):  # some models double-encode; accept only if it is itself a JSON object
        try:
            args = json.loads(args)
        except json.JSONDecodeError:
            pass
    if not isinstance(args, dict):
        raise BadArgumentsError(f'"arguments" of {obj["name"]} must be a JSON object, got {type(args).__name__}.')
    index = _tool_index(tools)
    name = obj["name"]
    if index is not None:
        if name not in index:
            offered = ", ".join(sorted(index)) or "none"
            raise UnknownToolError(f"Unknown tool {name!r}. Available tools: {offered}.")
        problems = check_arguments(args, index[name])
        if problems:
            raise BadArgumentsError(f"Arguments for {name} do not fit its schema: " + "; ".join(problems[:5]) + ".")
    return {"type": "function", "function": {"name": name, "arguments": args}}


def parse(text: str, tools=None) -> Reply:
    """Split a model reply into free text and tool calls.

    `tools` (canonical or bare specs) enables the unknown-tool and schema checks; None skips them.
    The content is the text outside the tags, stripped. Raises ToolCallError on the first broken call.
    """
    calls, pieces, pos = [], [], 0
    while True:
        start = text.find(OPEN, pos)
        if start < 0:
            pieces.append(text[pos:])
            break
        pieces.append(text[pos:start])
        end = text.find(CLOSE, start + len(OPEN))
        if end < 0:
            raise UnclosedTagError(f"A {OPEN} tag was opened but never closed. End each call with {CLOSE}.")
        calls.append(parse_call_json(text[start + len(OPEN):end], tools))
        pos = end + len(CLOSE)
    content = "".join(pieces)
    if CLOSE in content:
        raise UnclosedTagError(f"Found {CLOSE} without a matching {OPEN}.")
    return Reply(content=content.strip(), tool_calls=calls)
