"""Schema-constrained tool calls: one llguidance grammar per request, built from the offered tools' JSON Schemas.

    grammar, warnings = tool_grammar(tools)          # Lark text for llguidance, or None when it can't be built
    c = Grammars(tokenizer, stop_ids).constraint(tools)   # per reply: c.mask(logits), then c.advance(token)

The grammar is lazy: a reply is free text, or free text followed by one or more calls in our format
(nanoagent.toolcall):

    <tool_call>
    {"name": "<an offered tool>", "arguments": {... fitting that tool's schema ...}}
    </tool_call>

Text stays unconstrained until the model writes `<tool_call>`, so the model still decides whether to call; from
there the JSON must name an offered tool and fit its schema, and after the last call the reply ends. What the
schema part enforces is what llguidance's JSON Schema compiler enforces (its docs/json_schema.md): types, `enum`
and `const`, `required`, `properties` (in the schema's order) with `additionalProperties: false` added to every object that does not say
otherwise (no unknown argument names), the JSON laid out as json.dumps writes it, array `items`, nested objects, `anyOf`/`oneOf`/`allOf`, string
`minLength`/`maxLength`/`pattern`/`format`, number bounds. The non-standard type names real tool lists use
(`float`, `dict`, `tuple`, `any`, ...; see nanoagent.typenames) are rewritten to their JSON Schema twins first, and
two shapes that real lists mean but JSON Schema can't satisfy are read as meant: a required argument with no
declared property (any value), and an array-level `enum` of scalars (each item one of them).

A schema the compiler rejects is not an error for the request: `tool_grammar` drops that tool's constraint,
returns a warning naming the tool and the reason, and when no tool is left returns None (decode unconstrained).
Left out: the decoding loops themselves (the backends apply `Constraint.mask` through
nanoagent/agent/backends/reply_rules.py, beside the call threshold).
"""

from __future__ import annotations

import copy
import json
import sys
from functools import lru_cache

from nanoagent.toolcall import CLOSE, OPEN
from nanoagent.typenames import SCHEMA_NAMES

_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties")


def strict_schema(schema: dict) -> dict:
    """A copy of a tool's parameters schema with standard type names and no unknown keys on any object."""
    schema = copy.deepcopy(schema) if isinstance(schema, dict) else {}
    _strict(schema)
    return schema


def _strict(s: dict) -> None:
    t = s.get("type")
    if t == "any":
        del s["type"]
    elif isinstance(t, str):
        s["type"] = SCHEMA_NAMES.get(t, t)
    elif isinstance(t, list):
        s["type"] = [SCHEMA_NAMES.get(x, x) for x in t if x != "any"] or None
        if s["type"] is None:
            del s["type"]
    if s.get("type") == "object" or "properties" in s:
        _declare_required(s)
        s.setdefault("additionalProperties", False)
    if s.get("type") == "array":
        _enum_to_items(s)
    for key in _SCHEMA_MAPS:
        for sub in (s.get(key) or {}).values():
            if isinstance(sub, dict):
                _strict(sub)
    for key in _SCHEMA_LISTS:
        for sub in s.get(key) or []:
            if isinstance(sub, dict):
                _strict(sub)
    for key in ("items", "additionalProperties", "not"):
        if isinstance(s.get(key), dict):
            _strict(s[key])


def _declare_required(s: dict) -> None:
    """A required name the schema never declares (BFCL: `{"type": "dict", "required": ["adults", ...]}` with no
    `properties`) becomes a property of any value; closing the object would otherwise make it unsatisfiable."""
    required = s.get("required")
    if not isinstance(required, list):
        return  # not JSON Schema's form; the engine says what it makes of it
    props = s.get("properties") if isinstance(s.get("properties"), dict) else {}
    missing = [k for k in required if isinstance(k, str) and k not in props]
    extra = s.get("additionalProperties")
    if missing:  # a key the schema leaves to additionalProperties keeps that schema
        s["properties"] = {**props, **{k: dict(extra) if isinstance(extra, dict) else {} for k in missing}}


def _enum_to_items(s: dict) -> None:
    """An array whose `enum` lists scalars (BFCL live: `{"type": "array", "items": {"type": "string"}, "enum":
    ["trust", ...]}`) means each item is one of them: no array equals a string, so as written nothing fits."""
    enum = s.get("enum")
    items = s.get("items")
    if (isinstance(enum, list) and enum and not any(isinstance(v, (list, dict)) for v in enum)
            and (items is None or (isinstance(items, dict) and "enum" not in items))):
        s["items"] = {**(items or {}), "enum": s.pop("enum")}


def call_schema(fn: dict) -> dict:
    """The JSON Schema of one call of tool `fn` ({"name", "parameters"}): {"name": const, "arguments": params}."""
    params = strict_schema(fn.get("parameters") or {"type": "object", "properties": {}})
    params.setdefault("type", "object")
    return {"type": "object", "properties": {"name": {"const": fn["name"]}, "arguments": params},
            "required": ["name", "arguments"], "additionalProperties": False}


# The JSON exactly as nanoagent.toolcall writes it (json.dumps' separators, no other whitespace): what training saw.
JSON_LAYOUT = {"whitespace_flexible": False, "item_separator": ", ", "key_separator": ": "}


def _lark(schemas: list[dict], require_call: bool = False) -> str:
    body = json.dumps({**({"anyOf": schemas} if len(schemas) > 1 else schemas[0]), "x-guidance": JSON_LAYOUT})
    # `head` is lazy: it ends at the first "<tool_call>", so free text can't run past the tag unconstrained. The tag
    # alone is the trigger, as the parser reads it: with "<tool_call>\n" as the trigger, "<tool_call>{...}" (no
    # newline) or a tag inside prose stayed free text that the parser then read as a call.
    start = ("start: next_call (SEP next_call)*" if require_call
             else "start: TEXT | head call_body (SEP next_call)*")
    return "\n".join([
        "%llguidance {}",
        start,
        f"head[lazy]: TEXT {json.dumps(OPEN)}",
        f"call_body: {json.dumps(chr(10))} %json {body} {json.dumps(chr(10) + CLOSE)}",
        f"next_call: {json.dumps(OPEN)} call_body",
        "SEP: /\\n?/",
        "TEXT: /(.|\\n)*/",
    ]) + "\n"


def tool_grammar(tools, require_call: bool = False) -> tuple[str | None, list[str]]:
    """(Lark grammar for these tools or None, warnings). Tools are canonical or bare function specs.
    `require_call`: no free text, one or more calls (OpenAI's tool_choice "required")."""
    from llguidance import LLMatcher

    fns = [t.get("function", t) for t in tools or []]
    if not fns:
        return None, []
    schemas, warnings = [], []
    for fn in fns:
        schema = call_schema(fn)
        is_error, messages = LLMatcher.validate_grammar_with_warnings(_lark([schema]))
        if is_error:
            reason = messages[0].split("failed to compile JSON schema: ")[-1].split("\n   2 |")[0]
            reason = " ".join(reason.split())[:200]  # the engine's message, without its grammar listing
            warnings.append(f"tool {fn.get('name')!r}: its schema can't be enforced ({reason})")
            continue
        schemas.append(schema)
    if warnings:  # constraining only the others would make this tool impossible to call: constrain none
        return None, warnings + ["decoding is unconstrained for this request"]
    return _lark(schemas, require_call), warnings


@lru_cache(maxsize=4)
def _ll_tokenizer_cached(tokenizer_json: str, eos: tuple[int, ...]):
    from llguidance import LLTokenizer

    return LLTokenizer(tokenizer_json, eos_token=list(eos))


def ll_tokenizer(hf_tokenizer, stop_ids=None):
    """llguidance's tokenizer for a fast tokenizer (HF, or mlx-lm's wrapper; built once per vocabulary, ~1 s).
    `stop_ids`: the tokens that end a reply (default: the tokenizer's EOS); the grammar allows them where a reply
    may end."""
    from nanoagent.render import backend_tokenizer

    backend = copy.copy(backend_tokenizer(hf_tokenizer))
    backend.no_padding()
    backend.no_truncation()
    eos = tuple(int(i) for i in (stop_ids or [hf_tokenizer.eos_token_id]))
    return _ll_tokenizer_cached(backend.to_str(), eos)


class Grammars:
    """A backend's constraints: the llguidance tokenizer, and one grammar per distinct tool list (cached; a tool
    list whose schemas can't be enforced is reported once through `warn` and decoded unconstrained).

        grammars = Grammars(tokenizer, stop_ids)
        c = grammars.constraint(tools)       # a fresh Constraint per reply, or None
    """

    def __init__(self, hf_tokenizer, stop_ids=None, warn=None, cache_size: int = 256, require_call: bool = False):
        self.lltok = ll_tokenizer(hf_tokenizer, stop_ids)
        self.require_call = require_call
        self.warn = warn or (lambda msg: print(f"warning: {msg}", file=sys.stderr))
        self.cache: dict[str, str | None] = {}
        self.cache_size = cache_size

    def constraint(self, tools, require_call: bool | None = None) -> "Constraint | None":
        """A fresh Constraint for one reply offering `tools`; `require_call` overrides the default (a request's
        tool_choice "required")."""
        if not tools:
            return None
        require = self.require_call if require_call is None else require_call
        key = json.dumps([tools, require], sort_keys=True, default=str)
        if key not in self.cache:
            grammar, warnings = tool_grammar(tools, require)
            for w in warnings:
                self.warn(w)
            if len(self.cache) >= self.cache_size:
                self.cache.pop(next(iter(self.cache)))
            self.cache[key] = grammar
        grammar = self.cache[key]
        return Constraint(self.lltok, grammar) if grammar else None


class Constraint:
    """One reply's grammar state: which tokens may come next, and the tokens the model chose.

        c = Constraint(ll_tokenizer(tok), grammar)
        logits = c.mask(logits)          # forbidden tokens -> -inf (numpy, last axis = vocabulary)
        c.advance(token_id)              # after sampling; False when the token broke the grammar
    """

    def __init__(self, lltok, grammar: str):
        from llguidance import LLMatcher

        self.matcher = LLMatcher(lltok, grammar, log_level=0)
        if self.matcher.is_error():
            raise ValueError(f"tool-call grammar does not compile: {self.matcher.get_error()}")
        self.n_vocab = lltok.vocab_size

    def allowed(self, vocab_size: int):
        """Boolean numpy array of length `vocab_size`: the tokens the grammar allows next (ids the tokenizer
        does not have, such as padding rows of the embedding, never are)."""
        import numpy as np

        words = np.zeros((self.n_vocab + 31) // 32, dtype=np.int32)
        self.matcher.unsafe_compute_mask_ptr(words.ctypes.data, words.nbytes)
        bits = np.unpackbits(words.view(np.uint8), bitorder="little")[:self.n_vocab].astype(bool)
        out = np.zeros(vocab_size, dtype=bool)
        out[:min(vocab_size, self.n_vocab)] = bits[:vocab_size]
        return out

    def mask(self, logits):
        import numpy as np

        out = np.array(logits, dtype=np.float32, copy=True)
        out[..., ~self.allowed(out.shape[-1])] = -np.inf
        return out

    def advance(self, token: int) -> bool:
        return self.matcher.consume_token(int(token))

    def accepting(self) -> bool:
        """True when the reply may end here."""
        return self.matcher.is_accepting()
