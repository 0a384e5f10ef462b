"""The renderer and the Jinja chat template agree token for token; the loss mask covers assistant tokens only."""

import pytest

from nanoagent.record import Record
from nanoagent.render import (CHAT_TEMPLATE, FORMATS, PromptFormatError, chat_template, format_named, render,
                              render_prompt, render_text)
from nanoagent.toolcall import parse

WEATHER = {"type": "function", "function": {"name": "get_weather", "description": "Météo ☀️ for a city",
           "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
SEARCH = {"name": "search", "description": 'Search "docs"\nwith quotes', "parameters": {
    "type": "object", "properties": {"q": {"type": "string"}, "filters": {"type": "object"}}}}

BOOK = {"type": "function", "function": {"name": "book_room", "description": "Réserver une salle", "parameters": {
    "type": "object", "required": ["room", "size"], "properties": {
        "room": {"type": "string", "enum": ["Aula", "Salle 2", "東"], "description": "which room"},
        "size": {"type": "integer", "minimum": 1}, "tags": {"type": "array", "items": {"type": "string"}},
        "needs": {"type": "array", "items": {"enum": ["beamer", "café"]}},
        "when": {"type": ["string", "null"]}, "extra": {}, "level": {"enum": [1, 2.5, True, None]},
        "where": {"type": "object", "properties": {"floor": {"type": "integer"}}}}}}}
BARE = {"name": "ping", "parameters": {}}


def call(name, **args):
    return {"type": "function", "function": {"name": name, "arguments": args}}


CASES = {
    "plain chat, no system": {"messages": [
        {"role": "user", "content": "Hi!"}, {"role": "assistant", "content": "Hello. How can I help?"}]},
    "system without tools": {"messages": [
        {"role": "system", "content": "Be terse."}, {"role": "user", "content": "2+2"},
        {"role": "assistant", "content": "4"}]},
    "single call, no system": {"tools": [WEATHER], "messages": [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": "", "tool_calls": [call("get_weather", city="Paris")]}]},
    "multi-turn with parallel calls and results": {"tools": [WEATHER, SEARCH], "messages": [
        {"role": "system", "content": "You help."}, {"role": "user", "content": "Paris and 東京?"},
        {"role": "assistant", "content": "Checking both.", "tool_calls": [
            call("get_weather", city="Paris"), call("get_weather", city="東京")]},
        {"role": "tool", "content": '{"temp": 20}'}, {"role": "tool", "content": '{"temp": 25}'},
        {"role": "assistant", "content": "Paris 20°C, Tokyo 25°C 😀"},
        {"role": "user", "content": "Search docs for `x = {\"a\": [1, 2]}`\n\n  with   spaces\ttabs"},
        {"role": "assistant", "content": "", "tool_calls": [call("search", q="x = {\"a\": [1, 2]}",
                                                                  filters={"lang": "py", "n": 3.5, "ok": True})]},
        {"role": "tool", "content": "no results\n\n"}, {"role": "assistant", "content": "Nothing found."}]},
    "tools with enums, optional and untyped parameters": {"tools": [BOOK, BARE, WEATHER], "messages": [
        {"role": "user", "content": "Book the Aula for 12"},
        {"role": "assistant", "content": "", "tool_calls": [call("book_room", room="Aula", size=12)]}]},
    "no tool fits": {"tools": [WEATHER], "messages": [
        {"role": "user", "content": "Tell me a joke"}, {"role": "assistant", "content": "Why did the ... 🐔"}]},
    "code and whitespace": {"messages": [
        {"role": "user", "content": "def f(x):\n    return x**2  # ünïcode\n\n\n"},
        {"role": "assistant", "content": "```python\nprint(f(3))\n```\n\t"}]},
}


@pytest.mark.parametrize("fmt", list(FORMATS))
@pytest.mark.parametrize("name", list(CASES))
def test_template_matches_renderer_tiny(name, fmt, tiny_tok):
    check_template(CASES[name], tiny_tok, FORMATS[fmt])


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CASES))
def test_template_matches_renderer_embedded(name, embedded_tokenizer):
    check_template(CASES[name], embedded_tokenizer)


def check_template(data, tok, fmt=FORMATS["standard"]):
    rec = Record.from_dict(data)
    ids, mask = render(rec, tok, fmt)
    assert len(ids) == len(mask)
    kw = dict(tools=rec.tools or None, chat_template=chat_template(fmt))
    text = tok.apply_chat_template(rec.messages, tokenize=False, **kw)
    assert text == render_text(rec.messages, rec.tools, fmt=fmt)
    templ_ids = tok.apply_chat_template(rec.messages, tokenize=True, return_dict=True, **kw)
    assert list(templ_ids["input_ids"]) == ids
    gen = tok.apply_chat_template(rec.messages, add_generation_prompt=True, tokenize=False, **kw)
    assert gen == render_text(rec.messages, rec.tools, add_generation_prompt=True, fmt=fmt)


def assistant_bodies(rec):
    """What each assistant wrote, with its closing <|im_end|>, as the model should learn it."""
    from nanoagent.render import assistant_text
    return [assistant_text(m) + "<|im_end|>" for m in rec.messages if m["role"] == "assistant"]


@pytest.mark.parametrize("name", list(CASES))
def test_mask_covers_exactly_the_assistant_turns(name, tiny_tok):
    rec = Record.from_dict(CASES[name])
    ids, mask = render(rec, tiny_tok)
    # contiguous supervised runs, decoded, are exactly the assistant bodies in order
    runs, cur = [], []
    for i, m in zip(ids, mask):
        if m:
            cur.append(i)
        elif cur:
            runs.append(cur)
            cur = []
    if cur:
        runs.append(cur)
    decoded = [tiny_tok.decode(r) for r in runs]
    assert decoded == assistant_bodies(rec)
    # nothing from system/user/tool turns is supervised
    im_end = tiny_tok.convert_tokens_to_ids("<|im_end|>")
    assert sum(1 for i, m in zip(ids, mask) if m and i == im_end) == len(decoded)


def test_supervised_calls_parse_back(tiny_tok):
    rec = Record.from_dict(CASES["multi-turn with parallel calls and results"])
    for msg, body in zip([m for m in rec.messages if m["role"] == "assistant"], assistant_bodies(rec)):
        reply = parse(body.removesuffix("<|im_end|>"), rec.tools)
        assert reply.tool_calls == msg.get("tool_calls", [])
        assert reply.content == msg["content"]


def test_render_prompt_ends_with_assistant_header(tiny_tok):
    rec = Record.from_dict(CASES["single call, no system"])
    ids = render_prompt(rec.messages[:1], rec.tools, tiny_tok)
    assert tiny_tok.decode(ids).endswith("<|im_start|>assistant\n")
    full, _ = render(rec, tiny_tok)
    assert full[: len(ids)] == ids  # the prompt is a prefix of the training sequence


def test_template_is_independent_of_jinja_whitespace_options():
    import jinja2
    rec = Record.from_dict(CASES["multi-turn with parallel calls and results"])
    import json
    for opts in ({}, {"trim_blocks": True, "lstrip_blocks": True}):
        env = jinja2.Environment(**opts)
        env.filters["tojson"] = lambda x: json.dumps(x, ensure_ascii=False)
        out = env.from_string(CHAT_TEMPLATE).render(messages=rec.messages, tools=rec.tools,
                                                    add_generation_prompt=False)
        assert out == render_text(rec.messages, rec.tools)


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_llama_cpp_python_jinja_formatter_renders_each_format(fmt):
    """llama-cpp-python's chat handler (what create_chat_completion uses on a GGUF's template) gives our text."""
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    formatter = Jinja2ChatFormatter(chat_template(FORMATS[fmt]), eos_token="<|im_end|>", bos_token="<|im_start|>")
    for case in ("multi-turn with parallel calls and results", "tools with enums, optional and untyped parameters"):
        rec = Record.from_dict(CASES[case])
        out = formatter(messages=rec.messages[:2], tools=rec.tools)
        assert out.prompt == render_text(rec.messages[:2], rec.tools, add_generation_prompt=True, fmt=FORMATS[fmt])


def test_compact_format_is_shorter_and_says_the_same_protocol(tiny_tok):
    rec = Record.from_dict(CASES["multi-turn with parallel calls and results"])
    standard, _ = render(rec, tiny_tok)
    compact, mask = render(rec, tiny_tok, FORMATS["compact"])
    assert len(compact) < len(standard)
    assert sum(mask) == sum(render(rec, tiny_tok)[1])  # the same assistant tokens are supervised
    text = render_text(rec.messages, rec.tools, fmt=FORMATS["compact"])
    assert '{"name":"get_weather",' in text and "<tool_call>" in text and "plain text" in text
    assert render_text(rec.messages, []) == render_text(rec.messages, [], fmt=FORMATS["compact"])  # no tools: same


def test_signatures_list_each_tool_on_one_short_line(tiny_tok):
    rec = Record.from_dict(CASES["tools with enums, optional and untyped parameters"])
    text = render_text(rec.messages, rec.tools, fmt=FORMATS["signatures"])
    assert ('\nbook_room(room: "Aula"|"Salle 2"|"東", size: integer, tags?: array, needs?: list of "beamer"|"café", '
            'when?: any, extra?: any, level?: 1|2.5|true|null, where?: object) - Réserver une salle\nping()\n'
            'get_weather(city: string) - Météo ☀️ for a city\n</tools>') in text
    assert len(render(rec, tiny_tok, FORMATS["signatures"])[0]) < len(render(rec, tiny_tok, FORMATS["compact"])[0])
    assert sum(render(rec, tiny_tok, FORMATS["signatures"])[1]) == sum(render(rec, tiny_tok)[1])


def test_format_names_resolve_and_unknown_ones_name_the_choices():
    assert format_named(None) is FORMATS["standard"] and format_named("compact") is FORMATS["compact"]
    assert CHAT_TEMPLATE == chat_template(FORMATS["standard"])
    with pytest.raises(PromptFormatError, match="unknown prompt format 'terse'.*standard, compact, signatures"):
        format_named("terse")
