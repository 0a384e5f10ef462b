"""The tool-call grammar (nanoagent.constrain) on hand-made schemas: valid continuations pass, invalid ones are
refused at the first bad token, the text before a call stays free, and schemas the engine can't express give a
warning and no grammar.

Run: .venv/bin/python -m pytest tests/test_constrain.py -q
"""

import numpy as np
import pytest

from nanoagent.constrain import Constraint, ll_tokenizer, strict_schema, tool_grammar
from nanoagent.testing import tiny_tokenizer
from nanoagent.toolcall import parse

TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["c", "f"]}},
        "required": ["city"]}}},
    {"name": "add", "parameters": {"type": "dict", "properties": {"a": {"type": "float"}, "b": {"type": "int"},
                                                                 "tags": {"type": "array", "items": {"type": "str"}},
                                                                 "where": {"type": "dict", "properties": {
                                                                     "x": {"type": "integer"}}, "required": ["x"]}},
                                   "required": ["a", "b"]}},
]


@pytest.fixture(scope="module")
def tok():
    return tiny_tokenizer()


@pytest.fixture(scope="module")
def constraint(tok):
    grammar, warnings = tool_grammar(TOOLS)
    assert grammar and warnings == []
    lltok = ll_tokenizer(tok)
    return lambda: Constraint(lltok, grammar)


def consumed(tok, c, text):
    """How many of the text's tokens the grammar accepts in a row."""
    ids = tok.encode(text, add_special_tokens=False)
    return sum(1 for _ in iter(lambda: bool(ids) and c.advance(ids.pop(0)), False)), len(ids)


def call(name, args):
    import json
    return f'<tool_call>\n{json.dumps({"name": name, "arguments": args})}\n</tool_call>'


@pytest.mark.parametrize("text", [
    "Paris is the capital of France. No tool fits that question.",
    call("get_weather", {"city": "Paris"}),
    "Sure. " + call("add", {"a": 1.5, "b": 2, "tags": ["x", "y"], "where": {"x": 3}}),
    call("get_weather", {"city": "Rome", "unit": "c"}) + "\n" + call("add", {"a": 1, "b": 2}),
])
def test_valid_replies_pass_and_may_end(tok, constraint, text):
    c = constraint()
    for i in tok.encode(text, add_special_tokens=False):
        assert c.advance(i), f"refused a token of {text!r}"
    assert c.accepting()
    parse(text, TOOLS)  # and the parser agrees


@pytest.mark.parametrize("text, why", [
    (call("get_weather", {"city": "Paris", "pattern": "x"}), "unknown argument"),
    (call("get_weather", {"unit": "c"}), "missing required argument"),
    (call("get_weather", {"city": "Paris", "unit": "kelvin"}), "not in the enum"),
    (call("add", {"a": 1.5, "b": 2.5}), "integer expected"),
    (call("add", {"a": 1, "b": 2, "where": {"y": 1}}), "nested object: unknown key"),
    (call("add", {"a": 1, "b": 2, "tags": [1]}), "array item of the wrong type"),
    (call("search", {"q": "x"}), "tool not offered"),
    ("<tool_call>\nhello\n</tool_call>", "not JSON after the tag"),
    (call("get_weather", {"city": "Paris"}) + " and then more words", "text after the last call"),
    ('<tool_call>{"name": "search", "arguments": {}}</tool_call>', "a call without the newline (the parser reads it)"),
    ("As the prompt says, inside <tool_call></tool_call> tags.", "the tag inside prose: the base model echoes it"),
])
def test_invalid_replies_are_refused(tok, constraint, text, why):
    c = constraint()
    ids = tok.encode(text, add_special_tokens=False)
    ok = all(c.advance(i) for i in ids)
    assert not (ok and c.accepting()), why


def test_the_mask_allows_only_offered_names_after_the_tag(tok, constraint):
    c = constraint()
    for i in tok.encode('<tool_call>\n{"name": "', add_special_tokens=False):
        assert c.advance(i)
    allowed = c.allowed(tok_vocab := len(tok.get_vocab()) + 5)  # the model's rows past the tokenizer: never
    starts = {tok.decode([i]) for i in np.flatnonzero(allowed)}
    assert starts and all("get_weather".startswith(s) or "add".startswith(s) for s in starts)
    assert not allowed[tok_vocab - 5:].any()
    logits = c.mask(np.zeros((1, tok_vocab), dtype=np.float32))
    assert np.isfinite(logits).sum() == allowed.sum()


def test_plain_text_stays_free(tok, constraint):
    c = constraint()
    allowed = c.allowed(len(tok.get_vocab()))  # before any tag every token of plain text may come
    ascii_ids = [i for t, i in tok.get_vocab().items() if i not in tok.all_special_ids
                 and tok.decode([i]).isascii() and tok.decode([i])]
    assert len(ascii_ids) > 50 and allowed[ascii_ids].all()


@pytest.mark.parametrize("bad, word", [({"type": "string", "pattern": "(?<=a)b"}, "look-around"),
                                       ({"type": "weird"}, "weird"),
                                       ({"$ref": "#/nope"}, "nope")])
def test_a_schema_the_engine_cannot_express_warns_and_falls_back(bad, word):
    tools = TOOLS + [{"name": "odd", "parameters": {"type": "object", "properties": {"x": bad}}}]
    grammar, warnings = tool_grammar(tools)
    assert grammar is None
    assert "'odd'" in warnings[0] and word in warnings[0] and "unconstrained" in warnings[-1]


def test_strict_schema_closes_objects_and_maps_type_aliases():
    s = strict_schema(TOOLS[1]["parameters"])
    assert s["type"] == "object" and s["additionalProperties"] is False
    assert s["properties"]["a"]["type"] == "number" and s["properties"]["tags"]["items"]["type"] == "string"
    assert s["properties"]["where"]["additionalProperties"] is False
    assert TOOLS[1]["parameters"]["type"] == "dict"  # the tool's own spec is not changed
    assert "type" not in strict_schema({"type": "any"})
    assert tool_grammar([]) == (None, [])


def test_shapes_real_tool_lists_mean_are_enforced_as_meant(tok):
    """Two BFCL shapes that closed JSON Schema can't satisfy (parallel_29, live_simple_71-35-0): before the repair
    they fell back to unconstrained decoding, and the model wrote broken JSON there."""
    tools = [{"name": "waste", "parameters": {"type": "dict", "properties": {
                 "population": {"type": "dict", "required": ["adults", "children"]},
                 "metrics": {"type": "array", "items": {"type": "string"}, "enum": ["trust", "buzz"]}},
             "required": ["population"]}}]
    grammar, warnings = tool_grammar(tools)
    assert grammar and warnings == []
    lltok = ll_tokenizer(tok)
    good = call("waste", {"population": {"adults": 2, "children": "1"}, "metrics": ["buzz", "trust"]})
    c = Constraint(lltok, grammar)
    assert consumed(tok, c, good)[1] == 0 and c.accepting()
    for bad in [call("waste", {"population": 4}),                                  # not an object
                call("waste", {"population": {"adults": 2}}),                      # a required key missing
                call("waste", {"population": {"adults": 2, "children": 1, "x": 0}}),  # an unknown key
                call("waste", {"population": {"adults": 2, "children": 1}, "metrics": ["fame"]})]:
        c = Constraint(lltok, grammar)
        assert consumed(tok, c, bad)[1] > 0, bad


def test_the_repair_leaves_other_object_shapes_as_they_were():
    """A required key covered by additionalProperties keeps that schema; a `required` that is not a list is left to
    the engine (before the repair it warned and fell back; it must not crash the request)."""
    s = strict_schema({"type": "object", "additionalProperties": {"type": "integer"}, "required": ["a"]})
    assert s["properties"]["a"] == {"type": "integer"}
    for odd in (True, "adults"):
        s = strict_schema({"type": "object", "required": odd})
        assert "properties" not in s
        tool_grammar([{"name": "odd", "parameters": {"type": "object", "properties": {
            "x": {"type": "object", "required": odd}}}}])  # a grammar or a warning, never an exception
