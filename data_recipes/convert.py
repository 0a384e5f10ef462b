"""Shared pieces of the source adapters: lenient payload parsing, tool-spec and tool-call conversion, row drops.

Every adapter is a pure function `row -> canonical record dict` that raises `Drop(reason)` for a row it can't
convert; the build counts drops by reason and never crashes on a bad row. The helpers here cover what the
sources get wrong in common:

- payloads that are JSON, Python literals (single quotes, True/None) or several objects written back to back
  (`loads_lenient`, `loads_objects`, `call`: nanoagent.toolcall's lenient readers, raising Drop);
- xLAM-style parameter tables (`{"city": {"type": "str, optional", ...}}`) and Python typing strings
  (`List[Dict[str, int]]`) turned into JSON Schema (`params_to_schema`, `type_to_schema`);
- `<tools>` and `<tool_response>` blocks (`tools_from_text`, `split_tool_responses`); `<tool_call>` blocks are
  read by the one parser, `dropping(nanoagent.toolcall.parse)(text, lenient=True)`.
Conversation assembly (role names, turn splitting, the final check) lives in data_recipes.turns.

Usage (in an adapter):
    tools = [tool_spec(t) for t in loads_objects(row["tools"], "tools")]
    reply = dropping(parse)(assistant_text, lenient=True)     # Drop("unclosed_tool_call"), ...

Left out: repairing truncated JSON; a row whose payload can't be read is dropped under a named reason.
"""

from __future__ import annotations

import re
from functools import lru_cache, wraps
from typing import Any

from nanoagent import toolcall
from nanoagent.toolcall import ToolCallError
from nanoagent.typenames import DATA_NAMES, JSON_TYPES


class Drop(Exception):
    """A row that can't become a record; `reason` is the short name it is counted under."""

    def __init__(self, reason: str, detail: str = ""):
        self.reason = reason
        self.detail = detail
        super().__init__(f"{reason}: {detail}" if detail else reason)


# ---------------------------------------------------------------------------------------------- lenient parsing

def dropping(fn):
    """`fn` with the ToolCallError of nanoagent.toolcall's lenient reading raised as Drop, same reason and detail."""
    @wraps(fn)
    def wrapped(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except ToolCallError as e:
            raise Drop(e.reason, e.detail) from None

    return wrapped


loads_lenient = dropping(toolcall.loads_lenient)  # one value from JSON or a Python literal
loads_objects = dropping(toolcall.loads_objects)  # a list of values: one list, one object, or several back to back
call = dropping(toolcall.lenient_call)            # the canonical call from a dataset's call object


# ------------------------------------------------------------------------------------------------- tool specs

def _split_top(s: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in s:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def type_to_schema(type_str: str) -> tuple[dict, bool]:
    """JSON Schema for a type written Python-style ("List[int]", "str, optional"); second item: optional?"""
    schema, optional = _type_to_schema(type_str)
    return dict(schema), optional  # callers add keys; the cached value itself stays untouched


@lru_cache(maxsize=4096)
def _type_to_schema(type_str: str) -> tuple[dict, bool]:
    s = type_str.strip()
    optional = False
    m = re.match(r"^(.*?)(?:,\s*optional|\s+optional|\s*\|\s*none)\s*$", s, re.IGNORECASE)
    if m:
        s, optional = m.group(1).strip(), True
    low = s.lower()
    if low.startswith("optional[") and s.endswith("]"):
        schema, _ = type_to_schema(s[len("optional["):-1])
        return schema, True
    m = re.match(r"^(\w+(?:\.\w+)*)\s*\[(.*)\]$", s, re.DOTALL)
    if m:
        head, args = m.group(1).split(".")[-1].lower(), _split_top(m.group(2))
        if head == "union":
            subs = [type_to_schema(a)[0] for a in args]
            nullable = any(x.get("type") == "null" for x in subs)
            subs = [x for x in subs if x.get("type") != "null"]
            schema = subs[0] if len(subs) == 1 else {"anyOf": subs}
            return schema, optional or nullable
        if head == "literal":
            values = [loads_lenient(a, "literal") for a in args]
            return {"enum": values}, optional
        if DATA_NAMES.get(head) == "array":
            schema = {"type": "array"}
            if args and head != "tuple":
                schema["items"] = type_to_schema(args[0])[0]
            return schema, optional
        if DATA_NAMES.get(head) == "object":
            schema = {"type": "object"}
            if len(args) == 2:
                schema["additionalProperties"] = type_to_schema(args[1])[0]
            return schema, optional
    if low in ("any", "", "callable", "object_or_any"):
        return {}, optional
    if low in DATA_NAMES:  # type names: nanoagent.typenames
        return {"type": DATA_NAMES[low]}, optional
    return {"type": "string", "description": f"(type {s})"}, optional  # unknown class names: keep as text


def params_to_schema(params: Any) -> dict:
    """JSON Schema `parameters` from a JSON Schema object, or an xLAM-style `{name: {type, description, default}}`."""
    if params is None or params == {}:
        return {"type": "object", "properties": {}}
    if not isinstance(params, dict):
        raise Drop("bad_tool_parameters", f"parameters are {type(params).__name__}")
    if "properties" in params or params.get("type") in ("object", "dict"):
        out = dict(params)
        out["type"] = "object"
        props = out.get("properties") or {}
        if not isinstance(props, dict):
            raise Drop("bad_tool_parameters", "properties is not an object")
        out["properties"] = {k: _fix_prop(v) for k, v in props.items()}
        if "required" in out and not isinstance(out["required"], list):
            out.pop("required")
        return out
    props, required = {}, []
    for name, spec in params.items():
        if not isinstance(spec, dict):
            raise Drop("bad_tool_parameters", f"parameter {name!r} is {type(spec).__name__}")
        schema, optional = type_to_schema(str(spec.get("type", "any")))
        if spec.get("description"):
            schema["description"] = str(spec["description"])
        if "default" in spec and spec["default"] not in ("", None):
            schema["default"] = spec["default"]
            optional = True
        props[name] = schema
        if not optional:
            required.append(name)
    out = {"type": "object", "properties": props}
    if required:
        out["required"] = required
    return out


def _fix_prop(prop: Any) -> Any:
    """Standard JSON Schema type names inside a property (`dict`/`float`/`str, optional` become object/number/...)."""
    if not isinstance(prop, dict):
        return prop
    out = dict(prop)
    t = out.get("type")
    if isinstance(t, str) and t not in JSON_TYPES:
        schema, _ = type_to_schema(t)
        out.pop("type")
        out = {**schema, **{k: v for k, v in out.items() if k not in schema}}
    for key in ("items", "additionalProperties"):
        if isinstance(out.get(key), dict):
            out[key] = _fix_prop(out[key])
    if isinstance(out.get("properties"), dict):
        out["properties"] = {k: _fix_prop(v) for k, v in out["properties"].items()}
    return out


def tool_spec(raw: Any) -> dict:
    """Canonical `{"type": "function", "function": {name, description, parameters}}` from any common spelling."""
    if not isinstance(raw, dict):
        raise Drop("bad_tool_spec", f"a tool spec is {type(raw).__name__}")
    fn = raw.get("function") if isinstance(raw.get("function"), dict) else raw
    name = fn.get("name")
    if not isinstance(name, str) or not name.strip():
        raise Drop("bad_tool_spec", "tool without a name")
    return {"type": "function", "function": {
        "name": name.strip(), "description": str(fn.get("description") or ""),
        "parameters": params_to_schema(fn.get("parameters")),
    }}


def tools_from_text(text: str) -> tuple[list[dict], str]:
    """Tool specs listed inside `<tools>...</tools>` in a system prompt, and the prompt with the block removed."""
    # Prompts often mention the tags themselves ("signatures within <tools> </tools> XML tags"): skip empty blocks.
    blocks = [m for m in re.finditer(r"<tools>(.*?)</tools>", text, re.DOTALL) if m.group(1).strip()]
    if not blocks:
        return [], text
    specs = [tool_spec(t) for m in blocks for t in loads_objects(m.group(1), "tools")]
    for m in reversed(blocks):
        text = text[:m.start()] + text[m.end():]
    return specs, text.strip()


# ------------------------------------------------------------------------------------------------- tool calls

def split_tool_responses(text: str) -> list[str]:
    """The payloads of each `<tool_response>` block, or the whole text when there is none."""
    found = re.findall(r"<tool_response>(.*?)</tool_response>", text, re.DOTALL)
    return [f.strip() for f in found] if found else [text.strip()]
