"""Render a conversation record to ChatML text, token ids and a loss mask; the same convention as a Jinja template.

The text of a record (tools listed in the system turn, each call inside <tool_call> tags, each tool result inside
<tool_response> tags in a `tool` turn):

    <|im_start|>system
    {system text}\n\n{TOOLS_PREAMBLE}<tools>\n{one JSON spec per line}\n</tools>\n\n{TOOLS_FORMAT}<|im_end|>
    <|im_start|>user
    {text}<|im_end|>
    <|im_start|>assistant
    {text}\n<tool_call>\n{"name": ..., "arguments": {...}}\n</tool_call><|im_end|>
    <|im_start|>tool
    <tool_response>\n{result}\n</tool_response><|im_end|>

`render(record, tokenizer)` tokenizes that text once and marks as supervised exactly the tokens an assistant wrote:
its text, its calls and its closing <|im_end|>; never system, user or tool turns, never the `<|im_start|>assistant`
header. `chat_template(fmt)` says the same thing in Jinja for `tokenizer.apply_chat_template`, the GGUF metadata and
llama.cpp (`CHAT_TEMPLATE` is the standard format's); tests/test_render.py proves the two give identical tokens.

The system turn's tool block is a `PromptFormat`, a property of the model: a model answers best in the format it
was trained on. `standard` (the default, and every model trained before formats existed) explains the call format
in full and writes specs with json's default spaces; `compact` says it in two lines and writes specs without spaces:
17.3% fewer tokens over 3,000 rows of the default synthetic mix (`python -m data_recipes.synthetic --n 3000
--tokenizer embedded`, `compact_format_saving_share`). The trainer stores the format with the model and
every reader takes it from there (nanoagent/prompt_format.py).

Usage:
    ids, mask = render(Record.from_dict(row), tokenizer)       # fmt=FORMATS["compact"] for the compact format
    prompt_ids = render_prompt(messages, tools, tokenizer)     # ends with "<|im_start|>assistant\\n"
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Sequence

from nanoagent.record import Record
from nanoagent.toolcall import format_tool_call

IM_START, IM_END = "<|im_start|>", "<|im_end|>"
GENERATION_PROMPT = f"{IM_START}assistant\n"

TOOLS_PREAMBLE = (
    "# Tools\n\n"
    "You can call functions to help with the user's request. Their signatures are listed in "
    "<tools></tools> tags, one JSON object per line:\n"
)
TOOLS_FORMAT = (
    "To call a function, write its name and arguments as one JSON object inside <tool_call></tool_call> tags:\n"
    '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>\n'
    "If no function fits the request, answer in plain text without a call."
)


@dataclass(frozen=True)
class PromptFormat:
    """How the system turn lists the tools: `before` the tool lines, one line per tool, then `after`. A line is the
    spec as JSON with `separators` (json.dumps's; None: its default ", " and ": "), or with `signatures` a one-line
    signature: `name(arg: type, optional?: type, choice: "a"|"b") - description` (tool_signature)."""
    name: str
    before: str
    after: str
    separators: tuple[str, str] | None = None
    signatures: bool = False

    def __post_init__(self):
        # chat_template writes the newline before each spec, and filters.token_counts the one after it
        if not self.before.endswith("\n") or not self.after.startswith("\n</tools>"):
            raise ValueError(f"prompt format {self.name!r}: `before` must end with a newline and `after` start with "
                             "a newline and </tools>")


COMPACT_AFTER = ('\n</tools>\nTo call a function, reply <tool_call>\n{"name": <function-name>, "arguments": '
                 '<args-json-object>}\n</tool_call>\nIf none fits, answer in plain text.')
FORMATS = {f.name: f for f in (
    PromptFormat("standard", TOOLS_PREAMBLE + "<tools>\n", "\n</tools>\n\n" + TOOLS_FORMAT),
    PromptFormat("compact", "# Tools\n<tools>\n", COMPACT_AFTER, (",", ":")),
    PromptFormat("signatures", "# Tools\n<tools>\n", COMPACT_AFTER, signatures=True),
)}
DEFAULT_FORMAT = FORMATS["standard"]


class PromptFormatError(ValueError):
    """A prompt format name that does not exist; the message lists those that do."""


def format_named(name: str | PromptFormat | None) -> PromptFormat:
    """The format a name (or None: the default) stands for; PromptFormatError naming the known ones otherwise."""
    if isinstance(name, PromptFormat):
        return name
    if name is None:
        return DEFAULT_FORMAT
    found = FORMATS.get(str(name).strip())
    if found is None:
        raise PromptFormatError(f"unknown prompt format {name!r}: use one of {', '.join(FORMATS)}")
    return found


def tool_json(tool: dict, separators: tuple[str, str] | None = None) -> str:
    """One tool's spec as its line inside <tools></tools> (`separators` as json.dumps takes them: a format's)."""
    return json.dumps(tool.get("function", tool), ensure_ascii=False, separators=separators)


def _choices(values: list) -> str:
    return "|".join(json.dumps(v, ensure_ascii=False) for v in values)


def tool_signature(tool: dict) -> str:
    """One tool as a signature line: `name(arg: type, optional?: type, choice: "a"|"b") - description`. A parameter
    shows its enum's values (as JSON), an array of enum items `list of "a"|"b"`, else its JSON-Schema type, else
    `any`; `?` marks one that is not required."""
    fn = tool.get("function", tool)
    params = fn.get("parameters") or {}
    props, required = params.get("properties") or {}, params.get("required") or []
    args = []
    for name, schema in props.items():
        if isinstance(schema, dict) and "enum" in schema:
            kind = _choices(schema["enum"])
        elif isinstance(schema, dict) and schema.get("type") == "array" and isinstance(schema.get("items"), dict) \
                and "enum" in schema["items"]:
            kind = "list of " + _choices(schema["items"]["enum"])
        elif isinstance(schema, dict) and isinstance(schema.get("type"), str):
            kind = schema["type"]
        else:
            kind = "any"
        args.append(f"{name}{'' if name in required else '?'}: {kind}")
    description = fn.get("description") or ""
    return f"{fn['name']}({', '.join(args)})" + (f" - {description}" if description else "")


def tool_line(tool: dict, fmt: PromptFormat = DEFAULT_FORMAT) -> str:
    """One tool's line inside <tools></tools> in `fmt`."""
    return tool_signature(tool) if fmt.signatures else tool_json(tool, fmt.separators)


def system_text(system: str, tools: Sequence[dict], fmt: PromptFormat = DEFAULT_FORMAT) -> str:
    if not tools:
        return system
    lines = "\n".join(tool_line(t, fmt) for t in tools)
    head = f"{system}\n\n" if system else ""
    return f"{head}{fmt.before}{lines}{fmt.after}"


def assistant_text(message: dict) -> str:
    """The supervised body of an assistant turn (without the header and the closing <|im_end|>)."""
    text = message.get("content") or ""
    for call in message.get("tool_calls") or []:
        fn = call.get("function", call)
        args = fn.get("arguments", {})
        if isinstance(args, str):
            args = json.loads(args)
        text += ("\n" if text else "") + format_tool_call(fn["name"], args)
    return text


def segments(messages: Sequence[dict], tools: Sequence[dict] = (), add_generation_prompt: bool = False,
             fmt: PromptFormat = DEFAULT_FORMAT):
    """The conversation as `(text, supervised)` pieces; their concatenation is the ChatML text."""
    out: list[tuple[str, bool]] = []
    system = messages[0]["content"] if messages and messages[0]["role"] == "system" else None
    if system is not None or tools:
        out.append((f"{IM_START}system\n{system_text(system or '', tools, fmt)}{IM_END}\n", False))
    for msg in messages:
        role = msg["role"]
        if role == "system":
            continue
        if role == "assistant":
            out.append((GENERATION_PROMPT, False))
            out.append((assistant_text(msg) + IM_END, True))
            out.append(("\n", False))
        elif role == "tool":
            out.append((f"{IM_START}tool\n<tool_response>\n{msg['content']}\n</tool_response>{IM_END}\n", False))
        else:
            out.append((f"{IM_START}{role}\n{msg['content']}{IM_END}\n", False))
    if add_generation_prompt:
        out.append((GENERATION_PROMPT, False))
    return out


def render_text(messages: Sequence[dict], tools: Sequence[dict] = (), add_generation_prompt: bool = False,
                fmt: PromptFormat = DEFAULT_FORMAT) -> str:
    return "".join(text for text, _ in segments(messages, tools, add_generation_prompt, fmt))


def backend_tokenizer(tokenizer):
    """The `tokenizers.Tokenizer` behind an HF fast tokenizer, an mlx-lm TokenizerWrapper, or itself."""
    for attr in ("backend_tokenizer", "_tokenizer"):
        inner = getattr(tokenizer, attr, None)
        if inner is not None and inner is not tokenizer:
            return backend_tokenizer(inner)
    if hasattr(tokenizer, "encode_batch") and hasattr(tokenizer, "get_vocab_size"):
        return tokenizer
    raise TypeError(f"cannot find a `tokenizers` fast tokenizer inside {type(tokenizer).__name__}")


def render(record: Record | dict, tokenizer, fmt: PromptFormat = DEFAULT_FORMAT) -> tuple[list[int], list[int]]:
    """Token ids of the whole conversation and a 0/1 mask that is 1 on assistant-written tokens."""
    if not isinstance(record, Record):
        record = Record.from_dict(record)
    pieces = segments(record.messages, record.tools, fmt=fmt)
    text, spans, pos = "", [], 0
    for piece, supervised in pieces:
        if supervised:
            spans.append((pos, pos + len(piece)))
        text += piece
        pos += len(piece)
    enc = backend_tokenizer(tokenizer).encode(text, add_special_tokens=False)
    mask, k = [], 0
    for start, _ in enc.offsets:
        while k < len(spans) and spans[k][1] <= start:
            k += 1
        mask.append(int(k < len(spans) and spans[k][0] <= start < spans[k][1]))
    return list(enc.ids), mask


def render_prompt(messages: Sequence[dict], tools: Sequence[dict], tokenizer,
                  fmt: PromptFormat = DEFAULT_FORMAT) -> list[int]:
    """Token ids of a conversation followed by the assistant header, ready for generation."""
    text = render_text(messages, tools, add_generation_prompt=True, fmt=fmt)
    return list(backend_tokenizer(tokenizer).encode(text, add_special_tokens=False).ids)


def _jinja_literal(s: str) -> str:
    return json.dumps(s)  # a JSON string is a valid Jinja string literal with the same escapes


# tool_signature in Jinja: the newline before the line, then the signature
SIGNATURE_JINJA = (
    "{%- set params = tool['parameters'] if tool['parameters'] is defined and tool['parameters'] else {} -%}"
    "{%- set props = params['properties'] if params['properties'] is defined and params['properties'] else {} -%}"
    "{%- set req = params['required'] if params['required'] is defined and params['required'] else [] -%}"
    "{{- '\\n' + tool['name'] + '(' -}}"
    "{%- for name, p in props.items() -%}"
    "{%- if not loop.first -%}{{- ', ' -}}{%- endif -%}"
    "{{- name + ('' if name in req else '?') + ': ' -}}"
    "{%- if p is mapping and p['enum'] is defined -%}"
    "{%- for v in p['enum'] -%}{%- if not loop.first -%}{{- '|' -}}{%- endif -%}{{- v | tojson -}}{%- endfor -%}"
    "{%- elif p is mapping and p['type'] is defined and p['type'] == 'array' and p['items'] is defined"
    " and p['items'] is mapping and p['items']['enum'] is defined -%}{{- 'list of ' -}}"
    "{%- for v in p['items']['enum'] -%}{%- if not loop.first -%}{{- '|' -}}{%- endif -%}{{- v | tojson -}}"
    "{%- endfor -%}"
    "{%- elif p is mapping and p['type'] is defined and p['type'] is string -%}{{- p['type'] -}}"
    "{%- else -%}{{- 'any' -}}{%- endif -%}"
    "{%- endfor -%}"
    "{{- ')' -}}"
    "{%- if tool['description'] is defined and tool['description'] -%}{{- ' - ' + tool['description'] -}}"
    "{%- endif -%}"
)


# Every piece of output goes through {{ }} and every tag trims whitespace on both sides, so the result does not
# depend on trim_blocks / lstrip_blocks (transformers sets them, other Jinja engines may not).
def chat_template(fmt: PromptFormat = DEFAULT_FORMAT) -> str:
    """The Jinja chat template that renders exactly as `render_text` does in `fmt`."""
    tojson = "tojson" if fmt.separators is None else f"tojson(separators={fmt.separators!r})"
    line = SIGNATURE_JINJA if fmt.signatures else "{{- '\\n' + (tool | " + tojson + ") -}}"
    return (
        "{%- set sys = messages[0]['content'] if messages and messages[0]['role'] == 'system' else '' -%}"
        "{%- if tools -%}"
        "{{- '<|im_start|>system\\n' -}}"
        "{%- if sys -%}{{- sys + '\\n\\n' -}}{%- endif -%}"
        "{{- " + _jinja_literal(fmt.before.removesuffix("\n")) + " -}}"
        "{%- for tool in tools -%}"
        "{%- if tool['function'] is defined -%}{%- set tool = tool['function'] -%}{%- endif -%}"
        + line +
        "{%- endfor -%}"
        "{{- " + _jinja_literal(fmt.after + IM_END + "\n") + " -}}"
        "{%- elif messages and messages[0]['role'] == 'system' -%}"
        "{{- '<|im_start|>system\\n' + sys + '<|im_end|>\\n' -}}"
        "{%- endif -%}"
        "{%- for message in messages -%}"
        "{%- if message['role'] == 'assistant' -%}"
        "{{- '<|im_start|>assistant\\n' -}}"
        "{%- set content = message['content'] if message['content'] else '' -%}"
        "{{- content -}}"
        "{%- if message['tool_calls'] is defined and message['tool_calls'] -%}"
        "{%- for call in message['tool_calls'] -%}"
        "{%- if call['function'] is defined -%}{%- set call = call['function'] -%}{%- endif -%}"
        "{%- if content or not loop.first -%}{{- '\\n' -}}{%- endif -%}"
        "{%- set args = call['arguments'] if call['arguments'] is string else (call['arguments'] | tojson) -%}"
        "{{- '<tool_call>\\n{\"name\": ' + (call['name'] | tojson) + ', \"arguments\": ' + args + '}\\n</tool_call>' -}}"
        "{%- endfor -%}"
        "{%- endif -%}"
        "{{- '<|im_end|>\\n' -}}"
        "{%- elif message['role'] == 'tool' -%}"
        "{{- '<|im_start|>tool\\n<tool_response>\\n' + message['content'] + '\\n</tool_response><|im_end|>\\n' -}}"
        "{%- elif message['role'] != 'system' -%}"
        "{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' -}}"
        "{%- endif -%}"
        "{%- endfor -%}"
        "{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\\n' -}}{%- endif -%}"
    )


CHAT_TEMPLATE = chat_template(DEFAULT_FORMAT)
