"""Row filters: pure functions `record dict -> record dict` that raise `Drop(reason)`, applied after the adapters.

In order (`apply_filters`):
1. `clean_turns`: strip whitespace, remove empty system prompts and trailing user/tool turns that no assistant
   answers; a row with an empty user turn or an assistant turn with neither text nor calls is dropped.
2. `strip_think`: remove `<think>...</think>` reasoning from assistant turns (SmolLM2-135M has no thinking mode,
   and long traces are what the token cap would cut first).
3. `check_schema`: every call's arguments must fit its tool's JSON Schema (nanoagent.toolcall.check_arguments).
4. `shorten_responses`: an assistant text longer than `max_response_tokens` is cut at the last paragraph or
   sentence end that fits, if that keeps at least `min_keep_fraction` of the cap; otherwise the row is dropped.
   (NanoAgent's finding: shorter responses trained a small model better.) Tool calls are never cut.
5. `token_cap`: the whole record rendered with the real tokenizer must fit `max_tokens`.

Usage:
    rec, info = apply_filters(rec, FilterConfig(), tokenizer)   # info: {"tokens", "supervised", "shortened"}

Left out: language identification and quality scoring; the sources we use are English and curated.
"""

from __future__ import annotations

import re

from data_recipes.convert import Drop
from data_recipes.recipe import FilterConfig
from nanoagent.render import DEFAULT_FORMAT, IM_END, IM_START, backend_tokenizer, render, segments, tool_json
from nanoagent.toolcall import arguments_fit

THINK = re.compile(r"<think>.*?</think>\s*", re.DOTALL)
_CUT_POINTS = re.compile(r"\n\n|(?<=[.!?])\s+|\n")


def clean_turns(rec: dict) -> dict:
    msgs = []
    for m in rec["messages"]:
        m = dict(m)
        m["content"] = (m.get("content") or "").strip() if m["role"] != "tool" else (m.get("content") or "")
        if m["role"] == "system" and not m["content"]:
            continue
        msgs.append(m)
    while msgs and msgs[-1]["role"] in ("user", "tool"):
        msgs.pop()
    if not any(m["role"] == "assistant" for m in msgs):
        raise Drop("no_assistant_turn")
    for m in msgs:
        if m["role"] == "user" and not m["content"]:
            raise Drop("empty_user_turn")
        if m["role"] == "assistant" and not m["content"] and not m.get("tool_calls"):
            raise Drop("empty_assistant_turn")
    return {**rec, "messages": msgs}


def strip_think(rec: dict) -> dict:
    msgs = []
    for m in rec["messages"]:
        if m["role"] == "assistant" and "<think>" in (m.get("content") or ""):
            text = THINK.sub("", m["content"]).strip()
            if "<think>" in text:
                raise Drop("unclosed_think")
            if not text and not m.get("tool_calls"):
                raise Drop("empty_after_think")
            m = {**m, "content": text}
        msgs.append(m)
    return {**rec, "messages": msgs}


def check_schema(rec: dict) -> dict:
    params = {t["function"]["name"]: t["function"]["parameters"] for t in rec["tools"]}
    for m in rec["messages"]:
        for c in m.get("tool_calls") or []:
            fn = c["function"]
            if not arguments_fit(fn["arguments"], params[fn["name"]]):
                raise Drop("arguments_off_schema")
    return rec


def cut_text(text: str, tokenizer, max_tokens: int, min_keep_fraction: float) -> str | None:
    """`text` itself if it fits, else its longest paragraph/sentence-aligned prefix that fits, else None."""
    enc = backend_tokenizer(tokenizer).encode(text, add_special_tokens=False)
    if len(enc.ids) <= max_tokens:
        return text
    limit = enc.offsets[max_tokens][0]  # first character that no longer fits
    cuts = [m.start() for m in _CUT_POINTS.finditer(text, 0, limit + 1) if m.start() <= limit]
    if not cuts:
        return None
    kept = text[:cuts[-1]].rstrip()
    n_kept = len(backend_tokenizer(tokenizer).encode(kept, add_special_tokens=False).ids)
    return kept if kept and n_kept >= min_keep_fraction * max_tokens else None


def shorten_responses(rec: dict, tokenizer, cfg: FilterConfig) -> tuple[dict, bool]:
    msgs, shortened = [], False
    for m in rec["messages"]:
        if m["role"] == "assistant" and m.get("content"):
            kept = cut_text(m["content"], tokenizer, cfg.max_response_tokens, cfg.min_keep_fraction)
            if kept is None:
                raise Drop("response_too_long")
            if kept != m["content"]:
                m, shortened = {**m, "content": kept}, True
        msgs.append(m)
    return {**rec, "messages": msgs}, shortened


_PIECE_TOKENS: dict[tuple[int, str], int] = {}  # per process: counts of pieces that repeat (tool specs)
_PIECE_CACHE_MAX = 200_000
_SHORT_PIECE = 32  # characters: pieces this short are headers or separators, worth caching


def _cached_count(piece: str, backend) -> int:
    key = (id(backend), piece)  # one cache for every tokenizer in the process, keyed apart
    n = _PIECE_TOKENS.get(key)
    if n is None:
        if len(_PIECE_TOKENS) > _PIECE_CACHE_MAX:
            _PIECE_TOKENS.clear()
        n = _PIECE_TOKENS[key] = len(backend.encode(piece, add_special_tokens=False).ids)
    return n


def token_counts(rec: dict, tokenizer) -> tuple[int, int]:
    """(tokens, supervised tokens) of the rendered record, summed over its pieces.

    The pieces are the renderer's own text (nanoagent.render) with the tools block split per tool, so each
    tool spec and the fixed tool instructions are encoded once per process and reused: real sources offer the
    same tools in many rows. A sum over pieces can differ from one encode of the whole text by a token at a
    piece boundary, so `apply_filters` re-counts exactly whenever a record comes within 10% of the cap.
    """
    backend = backend_tokenizer(tokenizer)
    fmt = DEFAULT_FORMAT  # the longer format: a record that fits it fits the compact one too
    msgs, tools = rec["messages"], rec["tools"]
    system = msgs[0]["content"] if msgs and msgs[0]["role"] == "system" else None
    fresh, total = [], 0
    if tools:
        fresh.append(f"{IM_START}system\n" + (f"{system}\n\n" if system else ""))
        total += _cached_count(fmt.before, backend)
        for t in tools:  # each spec with the newline after it (`after` starts with that newline)
            total += _cached_count(tool_json(t, fmt.separators) + "\n", backend)
        total += _cached_count(fmt.after[1:] + IM_END + "\n", backend)
    elif system is not None:
        fresh.append(f"{IM_START}system\n{system}{IM_END}\n")
    rest = segments([m for m in msgs if m["role"] != "system"], ())
    # One encode per piece: encode_batch's thread pool costs more CPU than it saves on a handful of short pieces.
    # Short pieces (role headers, separators, a bare system header) repeat in every row: counted once.
    for piece in fresh:
        total += _count(piece, backend)
    supervised = 0
    for text, sup in rest:
        n = _count(text, backend)
        total += n
        supervised += n if sup else 0
    return total, supervised


def _count(piece: str, backend) -> int:
    if len(piece) <= _SHORT_PIECE:
        return _cached_count(piece, backend)
    return len(backend.encode(piece, add_special_tokens=False).ids)


def apply_filters(rec: dict, cfg: FilterConfig, tokenizer) -> tuple[dict, dict]:
    rec = clean_turns(rec)
    if cfg.strip_think:
        rec = strip_think(rec)
    if cfg.check_schema:
        rec = check_schema(rec)
    rec, shortened = shorten_responses(rec, tokenizer, cfg)
    tokens, supervised = token_counts(rec, tokenizer)
    if tokens > 0.9 * cfg.max_tokens:  # near or over the cap: count exactly
        ids, mask = render(rec, tokenizer)
        tokens, supervised = len(ids), sum(mask)
    if tokens > cfg.max_tokens:
        raise Drop("over_token_cap")
    return rec, {"tokens": tokens, "supervised": supervised, "shortened": shortened}
