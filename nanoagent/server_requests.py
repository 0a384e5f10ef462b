"""What `nanoagent serve` accepts: a chat-completions request body checked field by field before any generation.

    body = parse_body(raw_bytes)                      # RequestError when it is not one JSON object
    req = chat_request(body, default_tools)           # {"messages", "tools", "tool_choice", "max_tokens", ...}

Every refusal is a `RequestError` whose message names the field and what is wrong with it, and whose `param` is
the field's path (OpenAI's error object carries it). Types are strict, as a JSON API's should be: `stream` is a
JSON boolean, numbers are finite (Python's parser reads `NaN` and `1e999`; they are refused by path), integers
have no fraction, strings are valid Unicode (no lone surrogates), and nothing nests deeper than MAX_DEPTH.
Messages come out in our canonical form (nanoagent.record): text content parts joined, tool-call arguments as
objects. A tool's `parameters` must have the shape of a JSON Schema where the decoder walks it (`properties` an
object of schemas, `required` a list of names, ...); whether llguidance can compile it is checked only where the
request makes it matter (`enforceable`: tool_choice "required" or a named function).

Left out: the fields the server ignores (`top_p`, `stop`, `logprobs`, `user`, ...): they are not read, so not
checked; `n` must be 1 (one reply per request).
"""

from __future__ import annotations

import json
import math
from collections import Counter

MAX_DEPTH = 64          # deepest nesting of arrays and objects in a body (a tool schema nests a few levels)
MAX_SEED = 2**63 - 1    # MLX seeds are unsigned 64-bit; numpy takes any non-negative integer
ROLES = ("system", "user", "assistant", "tool")
TOOL_CHOICES = "'auto', 'none', 'required' or {\"type\": \"function\", \"function\": {\"name\": ...}}"
_SCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties", "dependentSchemas")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_ONES = ("additionalProperties", "not", "if", "then", "else", "contains", "propertyNames")


class RequestError(ValueError):
    """A request the server refuses (400 unless `status` says otherwise); the message names the field."""

    def __init__(self, message: str, param: str | None = None, status: int = 400):
        super().__init__(message)
        self.param, self.status = param, status


def _kind(value) -> str:
    """How a JSON value reads in a message: 'a string', 'null', 'a boolean', ..."""
    if value is None:
        return "null"
    names = {bool: "a boolean", str: "a string", int: "an integer", float: "a number", list: "an array",
             dict: "an object"}
    return names.get(type(value), type(value).__name__)


def _shown(value) -> str:
    text = json.dumps(value) if isinstance(value, (str, int, float, bool)) or value is None else _kind(value)
    return text if len(text) <= 40 else text[:37] + "..."


# ------------------------------------------------------------------------------------------------------ the body

def parse_body(raw: bytes) -> dict:
    """The request body as a JSON object, refused when it is not UTF-8 JSON or holds values JSON can't carry."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise RequestError(f"the body is not UTF-8 (byte {raw[e.start]:#04x} at offset {e.start}); send UTF-8 JSON")
    try:
        body = json.loads(text)
    except RecursionError:
        raise RequestError(f"the body nests too deeply; at most {MAX_DEPTH} levels of arrays and objects") from None
    except json.JSONDecodeError as e:
        raise RequestError(f"the body is not valid JSON ({e})") from None
    except ValueError:  # an integer longer than Python reads (4300 digits)
        raise RequestError("the body holds a number too long to read; send numbers of at most 4300 digits") from None
    if not isinstance(body, dict):
        raise RequestError(f"the body must be a JSON object, got {_kind(body)}")
    check_values(body)
    return body


def check_values(body) -> None:
    """Refuse non-finite numbers, lone surrogates and nesting deeper than MAX_DEPTH, naming where they are."""
    stack = [(body, "", 0)]
    while stack:
        value, path, depth = stack.pop()
        if depth > MAX_DEPTH:
            shown = path if len(path) <= 60 else path[:57] + "..."
            raise RequestError(f"'{shown}' nests deeper than {MAX_DEPTH} levels of arrays and objects", shown)
        if isinstance(value, float) and not math.isfinite(value):
            raise RequestError(f"'{path}' is {json.dumps(value)}: JSON numbers must be finite", path)
        if isinstance(value, str):
            _check_unicode(value, path)
        elif isinstance(value, dict):
            for key, item in value.items():
                _check_unicode(key, path)
                stack.append((item, f"{path}.{key}" if path else key, depth + 1))
        elif isinstance(value, list):
            stack.extend((item, f"{path}[{i}]", depth + 1) for i, item in enumerate(value))


def _check_unicode(text: str, path: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise RequestError(f"'{path}' holds a lone surrogate ({text[e.start]!a}); send valid Unicode text",
                           path or None) from None


# ------------------------------------------------------------------------------------------------ scalar fields

def integer(body: dict, key: str, default, low: int, high: int | None = None):
    """An integer field (an integral JSON number such as 8.0 too), or `default` when absent or null."""
    value = body.get(key)
    if value is None:
        return default
    bounds = f"between {low} and {high}" if high is not None else f">= {low}"
    if (isinstance(value, bool) or not isinstance(value, (int, float))
            or (isinstance(value, float) and not value.is_integer())):
        raise RequestError(f"'{key}' must be an integer {bounds}, got {_shown(value)}", key)
    if value < low or (high is not None and value > high):
        raise RequestError(f"'{key}' must be an integer {bounds}, got {_shown(value)}", key)
    return int(value)


def number(body: dict, key: str, default: float, low: float, high: float) -> float:
    value = body.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise RequestError(f"'{key}' must be a number between {low:g} and {high:g}, got {_shown(value)}", key)
    return float(value)


def flag(body: dict, key: str, default: bool = False) -> bool:
    value = body.get(key)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise RequestError(f"'{key}' must be a JSON boolean (true or false), got {_shown(value)}", key)
    return value


# --------------------------------------------------------------------------------------------------- messages

def _arguments(raw, where: str) -> dict:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            value = json.loads(raw or "{}")
        except (ValueError, RecursionError):
            raise RequestError(f"'{where}' must be a JSON object string; this one is not JSON", where) from None
        if isinstance(value, dict):
            check_values(value)
            return value
        raise RequestError(f"'{where}' must encode a JSON object, got {_kind(value)}", where)
    raise RequestError(f"'{where}' must be a JSON object (or its JSON string), got {_kind(raw)}", where)


def _content(content, where: str) -> str:
    """A message's content as text: a string, null, or a list of text parts (joined)."""
    if content is None or isinstance(content, str):
        return content or ""
    if not isinstance(content, list):
        raise RequestError(f"'{where}' must be a string, a list of text parts, or null; got {_kind(content)}", where)
    texts = []
    for j, part in enumerate(content):
        at = f"{where}[{j}]"
        if not isinstance(part, dict):
            raise RequestError(f"'{at}' must be an object like {{\"type\": \"text\", \"text\": ...}}, got "
                               f"{_kind(part)}", at)
        if part.get("type") != "text":
            raise RequestError(f"'{at}.type' is {_shown(part.get('type'))}: this server reads text parts only "
                               "(\"type\": \"text\")", f"{at}.type")
        if not isinstance(part.get("text"), str):
            raise RequestError(f"'{at}.text' must be a string, got {_kind(part.get('text'))}", f"{at}.text")
        texts.append(part["text"])
    return "".join(texts)


def _tool_calls(calls, where: str) -> list[dict]:
    if not isinstance(calls, list):
        raise RequestError(f"'{where}' must be a list of tool calls, got {_kind(calls)}", where)
    out = []
    for j, call in enumerate(calls):
        at = f"{where}[{j}]"
        fn = call.get("function") if isinstance(call, dict) else None
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str) or not fn["name"]:
            raise RequestError(f"'{at}' must be {{\"type\": \"function\", \"function\": {{\"name\": ..., "
                               "\"arguments\": ...}} with a non-empty string name", at)
        args = _arguments(fn.get("arguments", {}), f"{at}.function.arguments")
        out.append({"type": "function", "function": {"name": fn["name"], "arguments": args}})
    return out


def _message(m, where: str) -> dict:
    if not isinstance(m, dict):
        raise RequestError(f"'{where}' must be an object with 'role' and 'content', got {_kind(m)}", where)
    role = m.get("role")
    if role not in ROLES:
        raise RequestError(f"'{where}.role' must be one of {', '.join(ROLES)}; got {_shown(role)}", f"{where}.role")
    msg = {"role": role, "content": _content(m.get("content"), f"{where}.content")}
    if m.get("tool_calls") is not None:
        if role != "assistant":
            raise RequestError(f"'{where}.tool_calls': only assistant messages carry tool calls, not {role}",
                               f"{where}.tool_calls")
        if calls := _tool_calls(m["tool_calls"], f"{where}.tool_calls"):
            msg["tool_calls"] = calls
    call_id = m.get("tool_call_id")
    if call_id is not None and not isinstance(call_id, str):
        raise RequestError(f"'{where}.tool_call_id' must be a string, got {_kind(call_id)}", f"{where}.tool_call_id")
    if role == "tool" and call_id:
        msg["tool_call_id"] = call_id
    return msg


def canonical_messages(messages) -> list[dict]:
    """OpenAI chat messages -> our canonical messages (nanoagent.record); RequestError names a bad one."""
    if not isinstance(messages, list) or not messages:
        raise RequestError(f"'messages' must be a non-empty list, got {_shown(messages)}", "messages")
    return [_message(m, f"messages[{i}]") for i, m in enumerate(messages)]


# ------------------------------------------------------------------------------------------------------ tools

def check_schema(schema, where: str) -> None:
    """Refuse a schema whose keywords have the wrong shape where the decoder and the checker walk it (a
    `properties` list, a `required` string, ...). Unknown keywords and non-standard type names pass."""
    stack = [(schema, where)]
    while stack:
        s, at = stack.pop()
        if isinstance(s, bool):
            continue
        if not isinstance(s, dict):
            raise RequestError(f"'{at}' must be a JSON Schema object, got {_kind(s)}", at)
        t = s.get("type")
        if t is not None and not isinstance(t, str) and not (isinstance(t, list)
                                                             and all(isinstance(x, str) for x in t)):
            raise RequestError(f"'{at}.type' must be a type name or a list of them, got {_shown(t)}", f"{at}.type")
        required = s.get("required")
        if required is not None and not (isinstance(required, list) and all(isinstance(k, str) for k in required)):
            raise RequestError(f"'{at}.required' must be a list of property names, got {_shown(required)}",
                               f"{at}.required")
        if "enum" in s and not isinstance(s["enum"], list):
            raise RequestError(f"'{at}.enum' must be a list of values, got {_shown(s['enum'])}", f"{at}.enum")
        stack.extend(_subschemas(s, at))


def _subschemas(s: dict, at: str) -> list[tuple]:
    out = []
    for key in _SCHEMA_MAPS:
        if key in s:
            if not isinstance(s[key], dict):
                raise RequestError(f"'{at}.{key}' must be an object mapping names to schemas, got "
                                   f"{_kind(s[key])}", f"{at}.{key}")
            out += [(sub, f"{at}.{key}.{name}") for name, sub in s[key].items()]
    for key in _SCHEMA_LISTS:
        if key in s:
            if not isinstance(s[key], list):
                raise RequestError(f"'{at}.{key}' must be a list of schemas, got {_kind(s[key])}", f"{at}.{key}")
            out += [(sub, f"{at}.{key}[{i}]") for i, sub in enumerate(s[key])]
    items = s.get("items")
    if isinstance(items, list):  # the old tuple form
        out += [(sub, f"{at}.items[{i}]") for i, sub in enumerate(items)]
    elif items is not None:
        out.append((items, f"{at}.items"))
    out += [(s[key], f"{at}.{key}") for key in _SCHEMA_ONES if key in s]
    return out


def _tool(t, where: str) -> dict:
    fn = t.get("function") if isinstance(t, dict) else None
    if not isinstance(fn, dict) or not isinstance(fn.get("name"), str) or not fn["name"]:
        raise RequestError(f"'{where}' must be {{\"type\": \"function\", \"function\": {{\"name\": ..., "
                           "\"parameters\": {...}}} with a non-empty string name", where)
    if t.get("type", "function") != "function":
        raise RequestError(f"'{where}.type' must be \"function\", got {_shown(t.get('type'))}", f"{where}.type")
    if fn.get("description") is not None and not isinstance(fn["description"], str):
        raise RequestError(f"'{where}.function.description' must be a string, got {_kind(fn['description'])}",
                           f"{where}.function.description")
    if fn.get("parameters") is not None:
        if not isinstance(fn["parameters"], dict):
            raise RequestError(f"'{where}.function.parameters' ({fn['name']}) must be a JSON Schema object, got "
                               f"{_kind(fn['parameters'])}", f"{where}.function.parameters")
        check_schema(fn["parameters"], f"{where}.function.parameters")
    return t


def request_tools(body: dict, default_tools: list[dict] | None = None) -> tuple[list[dict], bool]:
    """(tools to offer, whether a call is required) from `tools` and `tool_choice`; a request without tools gets
    `default_tools` (the server's own, `nanoagent serve --tools`)."""
    tools = body.get("tools")
    if tools is not None and not isinstance(tools, list):
        raise RequestError(f"'tools' must be a list of {{\"type\": \"function\", \"function\": {{...}}}}, got "
                           f"{_kind(tools)}", "tools")
    tools = [_tool(t, f"tools[{i}]") for i, t in enumerate(tools or [])] or list(default_tools or [])
    counts = Counter(t["function"]["name"] for t in tools)
    if repeated := sorted(name for name, n in counts.items() if n > 1):
        raise RequestError(f"'tools': names must be unique; repeated: {', '.join(repeated)}", "tools")
    choice = body.get("tool_choice", "auto")
    if choice in (None, "auto"):
        return tools, False
    if choice == "none":
        return [], False
    if choice == "required":
        if not tools:
            raise RequestError("tool_choice 'required' needs 'tools'", "tool_choice")
        return tools, True
    fn = choice.get("function") if isinstance(choice, dict) else None
    if isinstance(fn, dict) and isinstance(fn.get("name"), str):
        picked = [t for t in tools if t["function"]["name"] == fn["name"]]
        if not picked:
            raise RequestError(f"tool_choice names {fn['name']!r}, which is not in 'tools'", "tool_choice")
        return picked, True
    raise RequestError(f"'tool_choice' must be {TOOL_CHOICES}; got {_shown(choice)}", "tool_choice")


def enforceable(tools: list[dict]) -> None:
    """Refuse tools whose schemas llguidance can't compile when the request demands a call: decoding would fall
    back to free text and the demand would be silently dropped."""
    from nanoagent.constrain import tool_grammar

    grammar, warnings = tool_grammar(tools, require_call=True)
    if grammar is None:
        problems = "; ".join(w for w in warnings if w.startswith("tool "))
        raise RequestError(f"a tool call is required but can't be enforced: {problems}. Fix that schema, or send "
                           "tool_choice 'auto'", "tools")


# ----------------------------------------------------------------------------------------------- the request

def chat_request(body: dict, default_tools: list[dict] | None = None) -> dict:
    """The checked request: canonical messages, the tools to offer, tool_choice ("auto" or "required"),
    max_tokens (None when the request sets none), temperature, seed, stream and include_usage."""
    if body.get("model") is not None and not isinstance(body["model"], str):
        raise RequestError(f"'model' must be a string, got {_kind(body['model'])}", "model")
    if integer(body, "n", 1, 1) != 1:
        raise RequestError("'n' must be 1: this server writes one reply per request", "n")
    messages = canonical_messages(body.get("messages"))
    tools, required = request_tools(body, default_tools)
    max_tokens = integer(body, "max_completion_tokens", None, 1)
    if max_tokens is None:
        max_tokens = integer(body, "max_tokens", None, 1)
    return {
        "messages": messages, "tools": tools, "tool_choice": "required" if required else "auto",
        "max_tokens": max_tokens,
        "temperature": number(body, "temperature", 0.0, 0.0, 2.0),
        "seed": integer(body, "seed", 0, 0, MAX_SEED),
        "stream": flag(body, "stream"),
        "include_usage": include_usage(body),
    }


def include_usage(body: dict) -> bool:
    """`stream_options.include_usage`: a JSON boolean, and stream_options only with `stream` true (as OpenAI)."""
    options = body.get("stream_options")
    if options is None:
        return False
    if not isinstance(options, dict):
        raise RequestError(f"'stream_options' must be an object, got {_kind(options)}", "stream_options")
    if body.get("stream") is not True:
        raise RequestError("'stream_options' is only allowed when 'stream' is true", "stream_options")
    value = options.get("include_usage")
    if value is not None and not isinstance(value, bool):
        raise RequestError(f"'stream_options.include_usage' must be a JSON boolean (true or false), got "
                           f"{_shown(value)}", "stream_options.include_usage")
    return bool(value)


__all__ = ["MAX_DEPTH", "RequestError", "canonical_messages", "chat_request", "check_schema", "check_values",
           "enforceable", "parse_body", "request_tools"]
