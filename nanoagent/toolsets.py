"""Read a user's tool set, in the forms people keep one, into canonical tool specs.

Three forms are detected from the data: an OpenAI `tools` list (wrapped `{"type": "function", "function": ...}`
specs, bare `{name, description, parameters}` specs, or a request body's `{"tools": [...]}`), an MCP `tools/list`
result (`{"tools": [{name, description, inputSchema}]}`, or the JSON-RPC response around it), and an OpenAPI 3
document, where each get/put/post/delete/patch operation becomes one tool whose arguments are its path and query
parameters plus the top-level properties of its JSON request body. Every tool comes out as
`{"type": "function", "function": {"name", "description", "parameters"}}` with a self-contained object schema:
local `$ref`s inlined, `$defs`/`definitions`, `x-` keys and OpenAPI-only keywords (`nullable`, `example`, ...)
removed. Anything that cannot be made into a usable tool raises `ToolSetError`, naming the source, the tool,
the field and what to do; parts of an OpenAPI operation that cannot become arguments are listed in `dropped`.

Usage:
    ts = load_toolset("petstore.yaml")        # .json, .yaml or .yml; or parse_toolset(data) for parsed data
    ts.tools, ts.names(), ts.dropped

Left out: remote `$ref`s, recursive schemas (they cannot be inlined), OpenAPI 2 (convert it to 3 first).
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import yaml

MAX_TOOLS = 64
NAME_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")
METHODS = ("get", "put", "post", "delete", "patch")
# OpenAPI keywords that are not JSON Schema; dropped from every schema along with `x-` extension keys.
OPENAPI_ONLY = {"nullable", "example", "readOnly", "writeOnly", "deprecated", "xml", "discriminator", "externalDocs"}
DEFINITIONS = ("$defs", "definitions")
SCHEMA_MAPS = ("properties", "patternProperties", "dependentSchemas")
SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
SCHEMA_ONE = ("items", "additionalItems", "additionalProperties", "unevaluatedItems", "unevaluatedProperties",
              "not", "if", "then", "else", "contains", "propertyNames")
ACCEPTED = ("give an OpenAI tools list ([{\"type\": \"function\", \"function\": {...}}], bare function specs, or "
            "{\"tools\": [...]}), an MCP tools/list result ({\"tools\": [{\"name\", \"inputSchema\"}]}, or the "
            "JSON-RPC response around it) or an OpenAPI 3 document (openapi: 3.x)")


class _JsonLoader(yaml.SafeLoader):
    """YAML's safe loader without timestamps: `2024-01-01` stays a string, so every value read stays JSON."""


_JsonLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}


class ToolSetError(ValueError):
    """A tool set that cannot be read; the message names the source, the tool and the field, and says what to do."""

    def __init__(self, source: str, problem: str, tool: str | None = None, field: str | None = None):
        self.source, self.problem, self.tool, self.field = source, problem, tool, field
        where = ": ".join(p for p in (source, tool, field) if p)
        super().__init__(f"{where}: {problem}")


@dataclass
class ToolSet:
    tools: list[dict]
    format: str  # "openai" | "mcp" | "openapi"
    source: str
    dropped: list[str] = field(default_factory=list)  # one line per thing left out, and why

    def names(self) -> list[str]:
        return [t["function"]["name"] for t in self.tools]


def load_toolset(path) -> ToolSet:
    """Read a .json, .yaml or .yml tool set file; see `parse_toolset`."""
    source = str(path)
    suffix = Path(path).suffix.lower()
    if suffix not in (".json", ".yaml", ".yml"):
        raise ToolSetError(source, f"unknown file type {suffix or '(none)'!r}; give a .json, .yaml or .yml file")
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ToolSetError(source, f"cannot read the file ({e}); give the path of a readable UTF-8 file") from None
    try:
        data = json.loads(text) if suffix == ".json" else yaml.load(text, Loader=_JsonLoader)
    except json.JSONDecodeError as e:
        raise ToolSetError(source, f"not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})") from None
    except yaml.YAMLError as e:
        raise ToolSetError(source, f"not valid YAML ({' '.join(str(e).split())})") from None
    return parse_toolset(data, source)


def parse_toolset(data: Any, source: str = "<data>") -> ToolSet:
    """Detect the form of `data` (parsed JSON or YAML) and return its tools as canonical specs."""
    fmt, items = _detect(data, source)
    _check_count(len(items), source)
    dropped: list[str] = []
    if fmt == "openapi":
        tools = [_openapi_tool(data, op, source, dropped) for op in items]
    else:
        tools = [_plain_tool(item, i, fmt, source) for i, item in enumerate(items)]
    if fmt == "mcp" and isinstance(data, dict) and _unwrap_rpc(data).get("nextCursor"):
        dropped.append("nextCursor: only this page of the tools/list result was read (ask the server for the rest)")
    _check_unique([t["function"]["name"] for t in tools], source)
    return ToolSet(tools=tools, format=fmt, source=source, dropped=dropped)


def _unwrap_rpc(data: dict) -> dict:
    return data["result"] if "jsonrpc" in data and isinstance(data.get("result"), dict) else data


def _detect(data: Any, source: str) -> tuple[str, list]:
    """(format, raw items): tool specs for openai/mcp, (method, path, operation, path item) for openapi."""
    if isinstance(data, list):
        return "openai", data
    if not isinstance(data, dict):
        raise ToolSetError(source, f"not a tool set (got {type(data).__name__}); {ACCEPTED}")
    if "swagger" in data:
        raise ToolSetError(source, f"OpenAPI 2 (swagger: {data['swagger']!r}) is not supported; convert the document "
                           "to OpenAPI 3 first (e.g. npx swagger2openapi in.yaml -o out.yaml)")
    if "openapi" in data:
        if not str(data["openapi"]).startswith("3"):
            raise ToolSetError(source, f"OpenAPI {data['openapi']} is not supported; give an OpenAPI 3.x document")
        return "openapi", _operations(data, source)
    if "jsonrpc" in data and isinstance(data.get("error"), dict):
        raise ToolSetError(source, f"a JSON-RPC error response ({data['error'].get('message')!r}), not a tools/list "
                           "result; save the response of a tools/list request that succeeded")
    tools = _unwrap_rpc(data).get("tools")
    if not isinstance(tools, list):
        raise ToolSetError(source, f"not a tool set (an object without a 'tools' list); {ACCEPTED}")
    mcp = any(isinstance(t, dict) and "inputSchema" in t for t in tools)
    return ("mcp" if mcp else "openai"), tools


def _check_count(n: int, source: str) -> None:
    if n == 0:
        raise ToolSetError(source, "no tools found; give at least one tool")
    if n > MAX_TOOLS:
        raise ToolSetError(source, f"{n} tools found, at most {MAX_TOOLS} are supported; split the set or leave "
                           "out the tools the agent does not need")


def _check_unique(names: list[str], source: str) -> None:
    for i, name in enumerate(names):
        if name in names[:i]:
            raise ToolSetError(source, f"duplicate name (tools[{names.index(name)}] and tools[{i}]); give each "
                               "tool a unique name", f"tool {name!r}", "name")


def _check_name(name: Any, label: str, source: str, field: str = "name") -> str:
    if not isinstance(name, str) or not name.strip():
        raise ToolSetError(source, "a tool needs a name (a non-empty string)", label, field)
    if not NAME_PATTERN.match(name):
        raise ToolSetError(source, f"{name!r} is not a valid tool name (letters, digits, '_' and '-', starting "
                           f"with a letter or '_', at most 64 characters); rename it, e.g. to {_fixed_name(name)!r}",
                           label, field)
    return name


def _fixed_name(name: str) -> str:
    fixed = re.sub(r"[^A-Za-z0-9_-]", "_", name.strip())
    return (fixed if re.match(r"[A-Za-z_]", fixed) else "_" + fixed)[:64]


def _plain_tool(item: Any, index: int, fmt: str, source: str) -> dict:
    """One OpenAI or MCP tool spec as a canonical spec; `$ref`s resolve against the tool's own schema."""
    label = f"tools[{index}]"
    if not isinstance(item, dict):
        raise ToolSetError(source, f"a tool must be an object, got {type(item).__name__}", label)
    if item.get("type", "function") != "function":
        raise ToolSetError(source, f"only 'function' tools are supported, got {item['type']!r}; leave this tool out",
                           label, "type")
    fn = item.get("function", item) if fmt == "openai" else item
    prefix = "function." if fn is not item else ""
    if not isinstance(fn, dict):
        raise ToolSetError(source, "must be an object with 'name' and 'parameters'", label, "function")
    if isinstance(fn.get("name"), str) and fn["name"].strip():
        label = f"tool {fn['name']!r}"
    name = _check_name(fn.get("name"), label, source, prefix + "name")
    key = "inputSchema" if fmt == "mcp" else "parameters"
    if fmt == "mcp" and key not in fn and "parameters" in fn:
        raise ToolSetError(source, "an MCP tool gives its arguments as 'inputSchema'; rename 'parameters' to "
                           "'inputSchema'", label, "parameters")
    schema = fn.get(key)
    field = prefix + key
    if schema is not None and schema != {}:
        schema = _Inliner(schema, source, label).schema(schema, field)
    params = _object_schema(schema, source, label, field)
    return _spec(name, fn.get("description"), params, source, label, prefix + "description")


def _spec(name: str, description: Any, params: dict, source: str, label: str, field: str) -> dict:
    if description is not None and not isinstance(description, str):
        raise ToolSetError(source, f"must be a string, got {type(description).__name__}", label, field)
    return {"type": "function", "function": {"name": name, "description": description or "", "parameters": params}}


def _object_schema(schema: Any, source: str, label: str, field: str) -> dict:
    """Check an inlined parameters schema is an object schema and return it with `type` and `properties` first."""
    if schema is None or schema == {}:
        return {"type": "object", "properties": {}}
    if not isinstance(schema, dict):
        raise ToolSetError(source, f"must be a JSON Schema object, got {type(schema).__name__}", label, field)
    kind = schema.get("type")
    if kind != "object" and not (kind is None and "properties" in schema):
        got = f"type {kind!r}" if kind is not None else "neither 'type' nor 'properties'"
        raise ToolSetError(source, f"must be an object schema (type 'object'), got {got}; put the arguments in "
                           "{\"type\": \"object\", \"properties\": {...}}", label, field)
    props = schema.get("properties", {})
    if not isinstance(props, dict) or not all(isinstance(p, dict) for p in props.values()):
        raise ToolSetError(source, "must map each argument name to a schema object", label, f"{field}.properties")
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        raise ToolSetError(source, "must be a list of argument names", label, f"{field}.required")
    unknown = [r for r in required if r not in props]
    if unknown:
        raise ToolSetError(source, f"lists {', '.join(map(repr, unknown))}, not in properties; add them to "
                           "properties or remove them from required", label, f"{field}.required")
    out = {"type": "object", "properties": {}}
    out.update(schema)
    return out


class _Inliner:
    """Copies a schema with every local `$ref` replaced by its target (resolved against `root`), definitions,
    `x-` keys and OpenAPI-only keywords dropped, and every `enum` checked."""

    def __init__(self, root: Any, source: str, label: str):
        self.root, self.source, self.label = root, source, label
        self.stack: list[str] = []  # the refs being inlined, to name a cycle

    def fail(self, field: str, problem: str):
        raise ToolSetError(self.source, problem, self.label, field)

    def schema(self, node: Any, field: str) -> Any:
        if isinstance(node, bool):
            return node
        if not isinstance(node, dict):
            self.fail(field, f"must be a schema object, got {type(node).__name__}")
        if "$ref" in node:
            return self._ref(node, field)
        out = {}
        for key, value in node.items():
            sub = f"{field}.{key}"
            if key in OPENAPI_ONLY or key in DEFINITIONS or key.startswith("x-"):
                continue
            if key in SCHEMA_MAPS:
                if not isinstance(value, dict):
                    self.fail(sub, "must be an object mapping names to schemas")
                out[key] = {k: self.schema(v, f"{sub}.{k}") for k, v in value.items()}
            elif key in SCHEMA_LISTS or (key == "items" and isinstance(value, list)):
                if not isinstance(value, list):
                    self.fail(sub, "must be a list of schemas")
                out[key] = [self.schema(v, f"{sub}[{i}]") for i, v in enumerate(value)]
            elif key in SCHEMA_ONE:
                out[key] = self.schema(value, sub)
            elif key == "enum" and (not isinstance(value, list) or not value):
                self.fail(sub, "must be a non-empty list of the allowed values; list them or remove the enum")
            else:
                out[key] = copy.deepcopy(value)
        return out

    def _ref(self, node: dict, field: str) -> Any:
        ref, where = node["$ref"], f"{field}.$ref"
        if not isinstance(ref, str) or not ref.startswith("#"):
            self.fail(where, f"remote reference {ref!r} cannot be followed; copy that schema into the file and "
                      "refer to it as '#/...'")
        if ref in self.stack:
            cycle = " -> ".join(self.stack[self.stack.index(ref):] + [ref])
            self.fail(where, f"cyclic reference {cycle}: a recursive schema cannot be inlined; replace the "
                      "recursive part with a plain schema such as {\"type\": \"object\"}")
        target = _pointer(self.root, ref)
        if target is None:
            self.fail(where, f"{ref!r} does not resolve; define it or fix the reference")
        self.stack.append(ref)
        resolved = self.schema(target, field)
        self.stack.pop()
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        if siblings and isinstance(resolved, dict):  # keywords beside a $ref (a description, say) refine its target
            resolved = {**resolved, **self.schema(siblings, field)}
        return resolved


def _pointer(root: Any, ref: str) -> Any:
    """The value a local JSON pointer `#/a/b` names in `root`, or None."""
    if ref == "#":
        return root
    if not ref.startswith("#/"):
        return None  # a plain-name anchor (#Foo)
    node = root
    for part in ref[2:].split("/"):
        part = unquote(part).replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def _operations(doc: dict, source: str) -> list[tuple]:
    paths = doc.get("paths") or {}
    if not isinstance(paths, dict):
        raise ToolSetError(source, "must map each path to its operations", field="paths")
    ops = []
    for path, item in paths.items():
        if not isinstance(item, dict):
            raise ToolSetError(source, "must be an object of operations", field=f"paths[{path!r}]")
        for method, op in item.items():
            if method in METHODS and isinstance(op, dict):
                ops.append((method, path, op, item))
    return ops


def _openapi_tool(doc: dict, operation: tuple, source: str, dropped: list[str]) -> dict:
    """One OpenAPI operation as a canonical spec: path and query parameters plus the JSON body's properties."""
    method, path, op, item = operation
    name = op.get("operationId") or _derived_name(method, path)
    label = f"tool {name!r} ({method} {path})"
    _check_name(name, label, source, "operationId")
    inline = _Inliner(doc, source, label)
    props, required = {}, []
    for param in _parameters(item, op, inline):
        pname, where = param["name"], param["in"]
        if where not in ("path", "query"):
            dropped.append(f"{name}: {where} parameter {pname!r} left out (only path and query parameters and a "
                           "JSON body become arguments)")
            continue
        schema = inline.schema(param.get("schema", {}), f"parameters[{pname}].schema")
        if isinstance(schema, dict) and "description" not in schema and param.get("description"):
            schema = {**schema, "description": param["description"]}
        props[pname] = schema if isinstance(schema, dict) else {}
        if where == "path" or param.get("required") is True:
            required.append(pname)
    body_props, body_required = _body(op, name, inline, dropped)
    for key in body_props:
        if key in props:
            inline.fail("requestBody", f"body property {key!r} has the same name as a parameter; rename one of "
                        "them in the document")
    params = {"type": "object", "properties": {**props, **body_props}}
    if required + body_required:
        params["required"] = required + body_required
    params = _object_schema(params, source, label, "parameters")
    return _spec(name, op.get("summary") or op.get("description"), params, source, label, "summary")


def _derived_name(method: str, path: str) -> str:
    return re.sub(r"_+", "_", re.sub(r"[^A-Za-z0-9]", "_", f"{method}_{path}")).strip("_")[:64]


def _parameters(item: dict, op: dict, inline: _Inliner) -> list[dict]:
    """Path-level then operation-level parameters, refs resolved; an operation's own overrides a path-level one."""
    merged: dict[tuple, dict] = {}
    for level, field in ((item, "paths.parameters"), (op, "parameters")):
        for i, param in enumerate(level.get("parameters") or []):
            where = f"{field}[{i}]"
            if isinstance(param, dict) and "$ref" in param:
                ref = param["$ref"]
                param = _pointer(inline.root, ref) if isinstance(ref, str) else None
                if param is None:
                    inline.fail(f"{where}.$ref", f"{ref!r} does not resolve; define it or fix the reference")
            if not isinstance(param, dict) or not isinstance(param.get("name"), str) or "in" not in param:
                inline.fail(where, "a parameter must be an object with 'name' and 'in'")
            merged[(param["name"], param["in"])] = param
    names = [n for n, where in merged if where in ("path", "query")]
    for n in names:
        if names.count(n) > 1:
            inline.fail("parameters", f"a path and a query parameter are both named {n!r}; rename one of them")
    return list(merged.values())


def _body(op: dict, name: str, inline: _Inliner, dropped: list[str]) -> tuple[dict, list]:
    """The properties and required names of an operation's application/json body, or ({}, []) if it has none."""
    body = op.get("requestBody")
    if body is None:
        return {}, []
    if isinstance(body, dict) and isinstance(body.get("$ref"), str):
        body = _pointer(inline.root, body["$ref"])
    if not isinstance(body, dict) or not isinstance(body.get("content", {}), dict):
        inline.fail("requestBody", "must be an object with 'content' (or a '$ref' that resolves to one)")
    content = body.get("content", {})
    media = next((m for m in content if m.split(";")[0].strip() == "application/json"), None)
    if media is None:
        if content:
            dropped.append(f"{name}: request body ({', '.join(content)}) left out (only an application/json body "
                           "becomes arguments)")
        return {}, []
    schema = inline.schema((content[media] or {}).get("schema", {}), f"requestBody.content[{media}].schema")
    if not isinstance(schema, dict) or (schema.get("type") != "object" and not (
            "type" not in schema and "properties" in schema)):
        kind = schema.get("type") if isinstance(schema, dict) else schema
        dropped.append(f"{name}: request body schema (type {kind!r}) left out (only an object body's properties "
                       "become arguments)")
        return {}, []
    required = schema.get("required", [])
    if not isinstance(required, list):
        inline.fail(f"requestBody.content[{media}].schema.required", "must be a list of property names")
    return schema.get("properties", {}), required
