"""Tool set import: OpenAI, MCP and OpenAPI 3 files to the same canonical specs, and one clear error per bad input."""

import json

import jsonschema
import pytest

from nanoagent.record import normalize_tool_spec
from nanoagent.toolsets import MAX_TOOLS, ToolSet, ToolSetError, load_toolset, parse_toolset

LOCATION = {"type": "object", "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}},
            "required": ["lat", "lon"]}
GET_PARAMS = {"type": "object", "properties": {"hive_id": {"type": "string", "description": "Hive id"},
                                               "limit": {"type": "integer", "description": "Rows to return"}},
              "required": ["hive_id"]}
ADD_PARAMS = {"type": "object", "properties": {"name": {"type": "string"}, "location": LOCATION},
              "required": ["name"]}
EXPECTED = [
    {"type": "function", "function": {"name": "get_hive", "description": "Get one hive.", "parameters": GET_PARAMS}},
    {"type": "function", "function": {"name": "add_hive", "description": "Add a hive.", "parameters": ADD_PARAMS}},
]
# add_hive's location as a $ref into the tool's own definitions
ADD_WITH_REF = {"type": "object", "properties": {"name": {"type": "string"}, "location": {"$ref": "#/$defs/Loc"}},
                "required": ["name"], "$defs": {"Loc": LOCATION}}
OPENAI = [
    {"type": "function", "function": {"name": "get_hive", "description": "Get one hive.", "parameters": GET_PARAMS}},
    {"type": "function", "function": {"name": "add_hive", "description": "Add a hive.", "parameters": ADD_WITH_REF}},
]
MCP = {"tools": [{"name": "get_hive", "description": "Get one hive.", "inputSchema": GET_PARAMS},
                 {"name": "add_hive", "description": "Add a hive.", "inputSchema": ADD_WITH_REF}]}
OPENAPI_YAML = """\
openapi: 3.0.3
info: {title: Hives, version: "1"}
paths:
  /hives/{hive_id}:
    parameters:
      - {name: hive_id, in: path, description: Hive id, schema: {type: string}}
    get:
      operationId: get_hive
      summary: Get one hive.
      description: Longer text that the summary wins over.
      parameters:
        - $ref: '#/components/parameters/Limit'
        - {name: X-Api-Key, in: header, required: true, schema: {type: string}}
  /hives:
    post:
      operationId: add_hive
      description: Add a hive.
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/NewHive'}
components:
  parameters:
    Limit: {name: limit, in: query, description: Rows to return, schema: {type: integer, example: 10}}
  schemas:
    NewHive:
      type: object
      x-internal: true
      required: [name]
      properties:
        name: {type: string, nullable: true, example: Meadow}
        location: {$ref: '#/components/schemas/Location'}
    Location:
      type: object
      required: [lat, lon]
      properties:
        lat: {type: number, readOnly: true}
        lon: {type: number, deprecated: false}
"""


def write(tmp_path, name, data):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def all_keys(node):
    if isinstance(node, dict):
        return set(node) | set().union(*(all_keys(v) for v in node.values()))
    if isinstance(node, list):
        return set().union(*(all_keys(v) for v in node))
    return set()


def test_three_formats_give_the_same_tools(tmp_path):
    openai = load_toolset(write(tmp_path, "tools.json", OPENAI))
    mcp = load_toolset(write(tmp_path, "mcp.json", MCP))
    openapi = load_toolset(write(tmp_path, "hives.yaml", OPENAPI_YAML))
    assert (openai.format, mcp.format, openapi.format) == ("openai", "mcp", "openapi")
    for ts in (openai, mcp, openapi):
        assert ts.tools == EXPECTED
        assert ts.names() == ["get_hive", "add_hive"]
    assert openai.source == str(tmp_path / "tools.json")
    assert openai.dropped == mcp.dropped == []
    assert openapi.dropped == ["get_hive: header parameter 'X-Api-Key' left out (only path and query parameters "
                               "and a JSON body become arguments)"]


def test_other_spellings_of_the_same_set():
    bare = [t["function"] for t in OPENAI]
    rpc = {"jsonrpc": "2.0", "id": 1, "result": MCP}
    assert parse_toolset(bare) == ToolSet(EXPECTED, "openai", "<data>", [])
    assert parse_toolset({"model": "x", "tools": OPENAI}).tools == EXPECTED
    assert parse_toolset(rpc, "rpc.json") == ToolSet(EXPECTED, "mcp", "rpc.json", [])
    paged = parse_toolset({"tools": MCP["tools"], "nextCursor": "2"})
    assert paged.tools == EXPECTED and paged.dropped[0].startswith("nextCursor: only this page")


def test_results_are_self_contained_and_canonical(tmp_path):
    sets = [parse_toolset(OPENAI), parse_toolset(MCP), load_toolset(write(tmp_path, "h.yml", OPENAPI_YAML))]
    for tool in (t for ts in sets for t in ts.tools):
        keys = all_keys(tool)
        assert not keys & {"$ref", "$defs", "definitions", "nullable", "example", "readOnly", "deprecated"}
        assert not any(k.startswith("x-") for k in keys)
        assert normalize_tool_spec(tool) == tool
        jsonschema.Draft202012Validator.check_schema(tool["function"]["parameters"])


def test_yaml_dates_stay_strings(tmp_path):
    text = "- name: book\n  parameters:\n    properties:\n      day: {type: string, enum: [2024-01-01]}\n"
    params = load_toolset(write(tmp_path, "t.yaml", text)).tools[0]["function"]["parameters"]
    assert params == {"type": "object", "properties": {"day": {"type": "string", "enum": ["2024-01-01"]}}}


def test_ref_details():
    schema = {"$ref": "#/definitions/Args", "definitions": {
        "Args": {"type": "object", "properties": {"when": {"$ref": "#/definitions/Day", "description": "which day"},
                                                  "also": {"$ref": "#/definitions/Day"}}},
        "Day": {"type": "string", "enum": ["mon", "tue"], "description": "a weekday"}}}
    params = parse_toolset([{"name": "plan", "parameters": schema}]).tools[0]["function"]["parameters"]
    assert params == {"type": "object", "properties": {
        "when": {"type": "string", "enum": ["mon", "tue"], "description": "which day"},
        "also": {"type": "string", "enum": ["mon", "tue"], "description": "a weekday"}}}


def test_no_parameters_is_an_empty_object():
    ts = parse_toolset([{"name": "now"}, {"name": "ping", "parameters": {}},
                        {"type": "function", "function": {"name": "tick", "parameters": {"type": "object"}}}])
    assert [t["function"]["parameters"] for t in ts.tools] == [{"type": "object", "properties": {}}] * 3
    assert [t["function"]["description"] for t in ts.tools] == ["", "", ""]


def openapi(paths, **components):
    return {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": paths, "components": components}


def test_openapi_names_bodies_and_parameters():
    doc = openapi({
        "/hives/{hive_id}/frames": {
            "parameters": [{"name": "hive_id", "in": "path", "schema": {"type": "string"}},
                           {"name": "limit", "in": "query", "schema": {"type": "integer"}}],
            "get": {"parameters": [{"name": "limit", "in": "query", "required": True,
                                    "schema": {"type": "integer", "description": "own"}, "description": "unused"},
                                   {"name": "session", "in": "cookie", "schema": {"type": "string"}}]},
            "put": {"operationId": "upload", "requestBody": {"content": {"image/png": {"schema": {}}}}},
            "patch": {"operationId": "bulk", "requestBody": {"$ref": "#/components/requestBodies/Many"}},
            "head": {"operationId": "peek"}}},
        requestBodies={"Many": {"content": {"application/json": {"schema": {"type": "array", "items": {}}}}}})
    ts = parse_toolset(doc, "api.json")
    assert ts.names() == ["get_hives_hive_id_frames", "upload", "bulk"]
    assert ts.tools[0]["function"] == {"name": "get_hives_hive_id_frames", "description": "", "parameters": {
        "type": "object", "properties": {"hive_id": {"type": "string"}, "limit": {"type": "integer",
                                                                                  "description": "own"}},
        "required": ["hive_id", "limit"]}}
    assert ts.tools[1]["function"]["parameters"] == ts.tools[2]["function"]["parameters"] == {
        "type": "object", "properties": {"hive_id": {"type": "string"}, "limit": {"type": "integer"}},
        "required": ["hive_id"]}
    assert ts.dropped == [
        "get_hives_hive_id_frames: cookie parameter 'session' left out (only path and query parameters and a JSON "
        "body become arguments)",
        "upload: request body (image/png) left out (only an application/json body becomes arguments)",
        "bulk: request body schema (type 'array') left out (only an object body's properties become arguments)"]


def tools(*specs):
    return [{"type": "function", "function": s} for s in specs]


def fn(name="f", **params):
    return {"name": name, "parameters": {"type": "object", **params}}


CYCLE = {"$defs": {"Node": {"type": "object", "properties": {"kids": {"type": "array",
                                                                      "items": {"$ref": "#/$defs/Node"}}}}},
         "properties": {"root": {"$ref": "#/$defs/Node"}}}


@pytest.mark.parametrize("data, tool, field, words", [
    (tools({"name": "get weather.now"}), "tool 'get weather.now'", "function.name", "e.g. to 'get_weather_now'"),
    (tools({"name": "9lives"}), "tool '9lives'", "function.name", "e.g. to '_9lives'"),
    (tools(fn("a"), {"description": "no name"}), "tools[1]", "function.name", "needs a name"),
    (tools(fn("a"), fn("b"), fn("a")), "tool 'a'", "name", "duplicate name (tools[0] and tools[2])"),
    (tools({"name": "f", "parameters": {"type": "string"}}), "tool 'f'", "function.parameters",
     "must be an object schema (type 'object'), got type 'string'"),
    (tools({"name": "f", "parameters": {"description": "x"}}), "tool 'f'", "function.parameters",
     "got neither 'type' nor 'properties'"),
    (tools(fn(properties={"a": "string"})), "tool 'f'", "function.parameters.properties.a",
     "must be a schema object, got str"),
    (tools(fn(properties={"a": True})), "tool 'f'", "function.parameters.properties",
     "must map each argument name to a schema object"),
    (tools(fn(properties={"a": {}}, required=["a", "zip"])), "tool 'f'", "function.parameters.required",
     "lists 'zip', not in properties"),
    (tools(fn(properties={"a": {"$ref": "#/$defs/Gone"}})), "tool 'f'", "function.parameters.properties.a.$ref",
     "'#/$defs/Gone' does not resolve"),
    (tools(fn(properties={"a": {"$ref": "common.json#/Day"}})), "tool 'f'",
     "function.parameters.properties.a.$ref", "remote reference 'common.json#/Day' cannot be followed"),
    (tools(fn(**CYCLE)), "tool 'f'", "function.parameters.properties.root.properties.kids.items.$ref",
     "cyclic reference #/$defs/Node -> #/$defs/Node"),
    (tools(fn(properties={"opts": {"type": "array", "items": {"enum": []}}})), "tool 'f'",
     "function.parameters.properties.opts.items.enum", "must be a non-empty list"),
    ([{"type": "code_interpreter"}], "tools[0]", "type", "only 'function' tools are supported"),
    ({"tools": [{"name": "a", "inputSchema": {}}, {"name": "b", "parameters": {}}]}, "tool 'b'", "parameters",
     "rename 'parameters' to 'inputSchema'"),
    ({"tools": [{"name": "a", "inputSchema": {"type": "object", "properties": {"x": {"$ref": "#/definitions/X"}},
                                              "definitions": {"X": {"enum": "abc"}}}}]},
     "tool 'a'", "inputSchema.properties.x.enum", "must be a non-empty list"),
])
def test_bad_tools_name_the_tool_and_field(data, tool, field, words):
    with pytest.raises(ToolSetError) as e:
        parse_toolset(data, "my.json")
    assert (e.value.source, e.value.tool, e.value.field) == ("my.json", tool, field)
    assert str(e.value).startswith(f"my.json: {tool}: {field}: ") and words in str(e.value)


@pytest.mark.parametrize("paths, components, tool, field, words", [
    ({"/hives/{hive_id}": {"post": {
        "operationId": "addFrame", "parameters": [{"name": "hive_id", "in": "path", "schema": {"type": "string"}}],
        "requestBody": {"content": {"application/json": {"schema": {
            "type": "object", "properties": {"hive_id": {"type": "string"}}}}}}}}},
     {}, "tool 'addFrame' (post /hives/{hive_id})", "requestBody", "body property 'hive_id' has the same name"),
    ({"/hives": {"get": {"operationId": "hives.list"}}}, {}, "tool 'hives.list' (get /hives)", "operationId",
     "e.g. to 'hives_list'"),
    ({"/a": {"get": {"operationId": "a"}}, "/b": {"get": {"operationId": "a"}}}, {}, "tool 'a'", "name",
     "duplicate name"),
    ({"/t": {"post": {"operationId": "grow", "requestBody": {"content": {"application/json": {
        "schema": {"$ref": "#/components/schemas/Tree"}}}}}}},
     {"schemas": {"Tree": {"type": "object", "properties": {"kids": {"type": "array", "items": {
         "$ref": "#/components/schemas/Branch"}}}}, "Branch": {"$ref": "#/components/schemas/Tree"}}},
     "tool 'grow' (post /t)", "requestBody.content[application/json].schema.properties.kids.items.$ref",
     "cyclic reference #/components/schemas/Tree -> #/components/schemas/Branch -> #/components/schemas/Tree"),
    ({"/t": {"get": {"operationId": "t", "parameters": [{"$ref": "#/components/parameters/Nope"}]}}}, {},
     "tool 't' (get /t)", "parameters[0].$ref", "'#/components/parameters/Nope' does not resolve"),
    ({"/t": {"get": {"operationId": "t", "parameters": [{"name": "q", "in": "query", "schema": {
        "type": "string", "enum": []}}]}}}, {}, "tool 't' (get /t)", "parameters[q].schema.enum", "non-empty list"),
])
def test_bad_openapi_operations_name_the_tool_and_field(paths, components, tool, field, words):
    with pytest.raises(ToolSetError) as e:
        parse_toolset(openapi(paths, **components), "api.yaml")
    assert (e.value.tool, e.value.field) == (tool, field)
    assert str(e.value).startswith(f"api.yaml: {tool}: {field}: ") and words in str(e.value)


@pytest.mark.parametrize("data, words", [
    ({"swagger": "2.0", "paths": {}}, "OpenAPI 2 (swagger: '2.0') is not supported; convert"),
    ({"openapi": "4.0"}, "OpenAPI 4.0 is not supported"),
    ({"name": "f", "parameters": {}}, "an object without a 'tools' list); give an OpenAI tools list"),
    ("tools", "not a tool set (got str)"),
    ({"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}}, "'Method not found'"),
    ([], "no tools found"),
    ({"tools": []}, "no tools found"),
    (openapi({}), "no tools found"),
    (tools(*[fn(f"t{i}") for i in range(MAX_TOOLS + 1)]), f"65 tools found, at most {MAX_TOOLS} are supported"),
])
def test_bad_sets(data, words):
    with pytest.raises(ToolSetError) as e:
        parse_toolset(data, "set.json")
    assert str(e.value).startswith("set.json: ") and words in str(e.value)
    assert e.value.tool is None


def test_max_tools_is_allowed():
    assert len(parse_toolset(tools(*[fn(f"t{i}") for i in range(MAX_TOOLS)])).tools) == MAX_TOOLS


@pytest.mark.parametrize("name, text, words", [
    ("missing.json", None, "cannot read the file"),
    ("bad.json", '[{"name": "f",]', "not valid JSON (line 1, column 15"),
    ("bad.yaml", "tools: [a, b\n", "not valid YAML"),
    ("tools.txt", "[]", "unknown file type '.txt'; give a .json, .yaml or .yml file"),
])
def test_unreadable_files_are_named(tmp_path, name, text, words):
    path = tmp_path / name
    if text is not None:
        path.write_text(text)
    with pytest.raises(ToolSetError) as e:
        load_toolset(path)
    assert str(e.value).startswith(f"{path}: ") and words in str(e.value)
