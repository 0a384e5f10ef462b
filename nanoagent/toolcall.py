"""Tool calls as text: the one writer and the one parser every stage uses.

The convention (Hermes/Qwen style, see shared/DESIGN.md) for an assistant turn is its free text, then each call as

    <tool_call>
    {"name": "get_weather", "arguments": {"city": "Paris"}}
    </tool_call>

`format_tool_call` writes exactly that JSON (`json.dumps(..., ensure_ascii=False)`, the same bytes as the Jinja
template's `tojson`). `parse(text, tools)` reads a model reply back into `(content, tool_calls)` and raises a
`ToolCallError` subclass when a call is broken; each error's message is written for the model to read and act on
(the agent loop sends it back as the tool result).

`parse(text, lenient=True)` reads what datasets write (the data build's adapters use it): a tag may hold Python
literals (single quotes, True/None), a list of calls or several objects back to back; a call may sit under
"function", say "parameters", or give its arguments as a string or null. Its errors' `reason` and `detail` are what
the build counts a dropped row under. Its readers (`loads_lenient`, `loads_objects`, `lenient_call`) serve too.

Usage:
    reply = parse(model_text, record.tools)      # -> Reply(content, tool_calls)
    try: ... except ToolCallError as e: feedback = str(e)
    reply = parse(dataset_text, lenient=True)    # e.reason: "unclosed_tool_call", "unparseable_tool_call", ...
    first_repeat(model_text)                     # offset of the first call that repeats an earlier one, or None

Left out: repairing broken JSON. A 135M model must learn the format; eval counts what it gets wrong.
"""

from __future__ import annotations

import ast
import json
from functools import lru_cache
from dataclasses import dataclass, field

import jsonschema

from nanoagent.fastschema import compile_check
from nanoagent.typenames import SCHEMA_CHECKS, SCHEMA_NAMES

OPEN, CLOSE = "<tool_call>", "</tool_call>"


class ToolCallError(ValueError):
    """A reply whose tool call can't be used. `kind` names the failure for counting in eval; `reason` and `detail`
    for the data build's drop counts (lenient mode)."""

    kind = "invalid"

    def __init__(self, message: str = "", reason: str = "", detail: str = ""):
        super().__init__(message or (f"{reason}: {detail}" if detail else reason))
        self.reason, self.detail = reason or self.kind, detail


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


def _make_validator_class():
    """jsonschema's Draft 2020-12 validator, reading the type names of real tool specs (nanoagent.typenames)."""
    base = jsonschema.Draft202012Validator
    checker = base.TYPE_CHECKER
    for alias, std in SCHEMA_NAMES.items():
        checker = checker.redefine(alias, lambda c, inst, std=std: base.TYPE_CHECKER.is_type(inst, std))
    checker = checker.redefine("any", lambda c, inst: True)
    return jsonschema.validators.extend(base, type_checker=checker)


_Validator = _make_validator_class()


_FAST_TYPES = {**{alias: SCHEMA_CHECKS[std] for alias, std in SCHEMA_NAMES.items()}, "any": lambda v: True}


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
    except Exception as e:  # a broken schema (a bad `pattern`, a dangling `$ref`, a string `maxLength`) raises
        # whatever jsonschema's code for that keyword raises: re.error, a referencing error, TypeError, ...
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
    except Exception:  # a broken schema: see check_arguments
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
    return _checked({"type": "function", "function": {"name": obj["name"], "arguments": args}}, _tool_index(tools))


def _checked(call: dict, index: dict | None) -> dict:
    """`call`, once its tool is offered and its arguments fit (no check without an index)."""
    name, args = call["function"]["name"], call["function"]["arguments"]
    if index is not None:
        if name not in index:
            offered = ", ".join(sorted(index)) or "none"
            raise UnknownToolError(f"Unknown tool {name!r}. Available tools: {offered}.")
        problems = check_arguments(args, index[name])
        if problems:
            raise BadArgumentsError(f"Arguments for {name} do not fit its schema: " + "; ".join(problems[:5]) + ".")
    return call


# ------------------------------------------------------------------------ lenient reading (parse(lenient=True))

def loads_lenient(text, what: str = "payload"):
    """One value from JSON or a Python literal; already-parsed values pass through."""
    if not isinstance(text, str):
        return text
    s = text.strip()
    if not s:
        raise NotJSONError(reason=f"empty_{what}")
    try:
        return json.loads(s)
    except json.JSONDecodeError:
        pass
    try:
        return ast.literal_eval(s)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        pass
    raise NotJSONError(reason=f"unparseable_{what}", detail=s[:80])


def _balanced_chunks(s: str) -> list[str] | None:
    """Top-level `{...}` / `[...]` spans of `s`, honouring both quote styles; None when the brackets don't balance."""
    chunks, depth, start, quote, escape = [], 0, -1, "", False
    for i, ch in enumerate(s):
        if quote:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == quote:
                quote = ""
            continue
        if ch in "\"'" and depth > 0:
            quote = ch
        elif ch in "{[":
            if depth == 0:
                start = i
            depth += 1
        elif ch in "}]" and depth > 0:
            depth -= 1
            if depth == 0:
                chunks.append(s[start:i + 1])
    return chunks if depth == 0 else None


def loads_objects(text, what: str = "payload") -> list:
    """A list of values from one JSON/Python list, one object, or several objects written back to back."""
    if not isinstance(text, str):
        value = text
    else:
        try:
            value = loads_lenient(text, what)
        except NotJSONError as first:
            chunks = None if first.reason.startswith("empty_") else _balanced_chunks(text)
            if not chunks:
                raise
            value = [loads_lenient(c, what) for c in chunks]
            value = [x for v in value for x in (v if isinstance(v, list) else [v])]  # lists back to back: one list
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def lenient_call(raw) -> dict:
    """Canonical call from `{"name", "arguments"}` as datasets write it (see the module docstring)."""
    if not isinstance(raw, dict):
        raise NotJSONError(reason="bad_tool_call", detail=f"a call is {type(raw).__name__}")
    fn = raw.get("function") if isinstance(raw.get("function"), dict) else raw
    name = fn.get("name")
    if not isinstance(name, str) or not name.strip():
        raise NotJSONError(reason="bad_tool_call", detail="call without a name")
    args = fn.get("arguments", fn.get("parameters", {}))
    if isinstance(args, str):
        args = loads_lenient(args, "arguments") if args.strip() else {}
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise BadArgumentsError(reason="bad_tool_call", detail=f"arguments are {type(args).__name__}")
    return {"type": "function", "function": {"name": name.strip(), "arguments": args}}


def parse(text: str, tools=None, lenient: bool = False) -> Reply:
    """Split a model reply into free text and tool calls.

    `tools` (canonical or bare specs) enables the unknown-tool and schema checks; None skips them.
    The content is the text outside the tags, stripped. Raises ToolCallError on the first broken call.
    `lenient`: read each tag's calls as datasets write them (see the module docstring).
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
            raise UnclosedTagError(f"A {OPEN} tag was opened but never closed. End each call with {CLOSE}.",
                                   "unclosed_tool_call")
        body = text[start + len(OPEN):end]
        if lenient:
            calls += [_checked(lenient_call(c), _tool_index(tools)) for c in loads_objects(body, "tool_call")]
        else:
            calls.append(parse_call_json(body, tools))
        pos = end + len(CLOSE)
    content = "".join(pieces)
    if CLOSE in content:
        raise UnclosedTagError(f"Found {CLOSE} without a matching {OPEN}.", "unclosed_tool_call")
    return Reply(content=content.strip(), tool_calls=calls)


def first_repeat(text: str) -> int | None:
    """Where the reply's first call that repeats an earlier call of the same reply begins (the offset of its
    opening tag), or None when no complete call repeats one. Calls are the same when their JSON bodies are (keys in
    any order; a body that is not JSON compares as text). Backends stop a reply there (`stop_repeats`): a greedy
    decoder that wrote one call twice loops, and every later call is a copy."""
    seen, pos = set(), 0
    while (start := text.find(OPEN, pos)) >= 0:
        end = text.find(CLOSE, start + len(OPEN))
        if end < 0:
            return None
        body = text[start + len(OPEN):end].strip()
        try:
            key = json.dumps(json.loads(body), sort_keys=True)
        except ValueError:
            key = body
        if key in seen:
            return start
        seen.add(key)
        pos = end + len(CLOSE)
    return None
