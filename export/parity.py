"""Proof that an exported GGUF is the MLX model: llama.cpp on the file against MLX on the source, same token ids.

Four checks, each a plain function returning a JSON-able dict:
    next_token_agreement   greedy next token at every position of chat, tool-calling and code prompts
    greedy_tool_calls      greedy decoding of tool-calling prompts in both engines, parsed by nanoagent.toolcall
    perplexity             on a held-out text (written for this check, in no training set), both engines
    chat_format            llama.cpp's own chat formatting of our conversations against our renderer's token ids:
                           llama-cpp-python's Jinja handler with the GGUF's template (what create_chat_completion
                           uses) and llama.cpp's built-in C++ formatter (llama_chat_apply_template)
`parity_report(gguf_path, model, tokenizer)` runs all four, prompting in the format the GGUF records, under one
progress bar on stderr (each check takes `progress`, called with 1 after each prompt it finishes).

Usage:
    report = parity_report("out.gguf", model, tokenizer)      # model, tokenizer: nanoagent.models.load(...)
    python -m export.parity FILE.gguf --model SOURCE            # the same, printed as JSON

Left out: sampling at temperature > 0 (the two engines' random streams differ by design), batch prompts.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

import nanoagent  # noqa: F401  (OpenBLAS before mlx)
from nanoagent.config import HelpFormatter
from nanoagent.heldout import HELDOUT_TEXT
from nanoagent.render import DEFAULT_FORMAT, render_prompt, render_text

WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Current weather for a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"},
                                                   "units": {"type": "string", "enum": ["c", "f"]}},
                   "required": ["city"]}}}
SHELL = {"type": "function", "function": {
    "name": "shell", "description": "Run a shell command in the repository and return its output.",
    "parameters": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}}}
CONVERT = {"type": "function", "function": {
    "name": "convert_currency", "description": "Convert an amount between currencies.",
    "parameters": {"type": "object", "properties": {"amount": {"type": "number"}, "from": {"type": "string"},
                                                   "to": {"type": "string"}}, "required": ["amount", "from", "to"]}}}

# (kind, messages, tools): the conversations both engines see, rendered by our renderer.
CONVERSATIONS = [
    ("chat", [{"role": "user", "content": "What is the capital of France? Answer in one sentence."}], []),
    ("chat", [{"role": "system", "content": "You are a concise assistant."},
              {"role": "user", "content": "Give me three tips for writing clear commit messages."}], []),
    ("tool", [{"role": "user", "content": "What's the weather like in Paris right now?"}], [WEATHER]),
    ("tool", [{"role": "user", "content": "How much is 250 euros in US dollars?"}], [CONVERT, WEATHER]),
    ("tool", [{"role": "system", "content": "You are a coding agent working in a git repository."},
              {"role": "user", "content": "List the Python files in the src folder."}], [SHELL]),
    ("tool", [{"role": "user", "content": "Weather in Tokyo, in fahrenheit?"},
              {"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {
                  "name": "get_weather", "arguments": {"city": "Tokyo", "units": "f"}}}]},
              {"role": "tool", "content": "{\"temp\": 71, \"sky\": \"clear\"}"}], [WEATHER]),
]
TOOL_CONVERSATIONS = [c for c in CONVERSATIONS if c[0] == "tool"]
CODE_TEXTS = [
    "def binary_search(items, target):\n    lo, hi = 0, len(items) - 1\n    while lo <= hi:\n        mid = (lo + hi) // 2\n"
    "        if items[mid] == target:\n            return mid\n",
    "import json\nfrom pathlib import Path\n\n\ndef load_config(path: str) -> dict:\n    \"\"\"Read a JSON config.\"\"\"\n"
    "    return json.loads(Path(path).read_text())\n",
]
# Held-out text for perplexity: nanoagent/heldout.py (written for this project, in no training or eval set).


def prompts(tokenizer, fmt=DEFAULT_FORMAT) -> list[tuple[str, list[int]]]:
    out = [(kind, render_prompt(msgs, tools, tokenizer, fmt)) for kind, msgs, tools in CONVERSATIONS]
    out += [("code", list(tokenizer.encode(t, add_special_tokens=False))) for t in CODE_TEXTS]
    return out


def open_llama(path, n_ctx: int = 2048, n_threads: int = 1, f32_cache: bool = False):
    """llama.cpp with all logits kept; `f32_cache` replaces its default F16 KV cache by F32 (exactness checks).

    One thread by default: on a shared 2-core machine two llama.cpp threads spin-waiting on each other ran token by
    token generation ~10x slower than one (bench/results/export_speed.json), and results don't depend on it."""
    from llama_cpp import Llama

    from nanoagent.agent.backends.llamacpp import check_no_amx

    check_no_amx()  # a clear error where an AMX build would segfault
    kv = {"type_k": 0, "type_v": 0} if f32_cache else {}  # 0 = GGML_TYPE_F32
    return Llama(model_path=str(path), logits_all=True, n_ctx=n_ctx, n_threads=n_threads, verbose=False, **kv)


def llama_logits(llm, ids: list[int]) -> np.ndarray:
    llm.reset()
    llm.eval(ids)
    return np.asarray(llm.scores[: len(ids)], dtype=np.float64)


def mlx_logits(model, ids: list[int]) -> np.ndarray:
    import mlx.core as mx

    return np.asarray(model(mx.array([ids]))[0].astype(mx.float32), dtype=np.float64)


def _tick(progress) -> None:
    if progress is not None:
        progress(1)


def next_token_agreement(llm, model, tokenizer, fmt=DEFAULT_FORMAT, progress=None) -> dict:
    per_kind: dict[str, list[int]] = {}
    diffs, margins = [], []
    for kind, ids in prompts(tokenizer, fmt):
        ref, ours = llama_logits(llm, ids), mlx_logits(model, ids)
        same = ref.argmax(-1) == ours.argmax(-1)
        agg = per_kind.setdefault(kind, [0, 0])
        agg[0] += int(same.sum())
        agg[1] += len(ids)
        diffs.append(np.abs(ref - ours).mean(-1))
        top2 = np.sort(ours, -1)[:, -2:]
        margins += [float(top2[p, 1] - top2[p, 0]) for p in np.where(~same)[0]]
        _tick(progress)
    agree, total = sum(a for a, _ in per_kind.values()), sum(t for _, t in per_kind.values())
    return {"agree": agree, "positions": total, "rate": agree / total,
            "per_kind": {k: {"agree": a, "positions": t, "rate": a / t} for k, (a, t) in per_kind.items()},
            "mean_abs_logit_diff": float(np.concatenate(diffs).mean()),
            "max_disagreement_margin": max(margins, default=0.0)}


def greedy_mlx(model, ids: list[int], max_tokens: int, stop: set[int]) -> list[int]:
    import mlx.core as mx
    from mlx_lm.models.cache import make_prompt_cache

    cache = make_prompt_cache(model)
    logits = model(mx.array([ids]), cache=cache)[:, -1, :]
    out = []
    for _ in range(max_tokens):
        tok = int(mx.argmax(logits, -1).item())
        out.append(tok)
        if tok in stop:
            break
        logits = model(mx.array([[tok]]), cache=cache)[:, -1, :]
    return out


def greedy_llama(llm, ids: list[int], max_tokens: int, stop: set[int]) -> list[int]:
    llm.reset()
    llm.eval(ids)
    out = []
    for _ in range(max_tokens):
        tok = int(np.argmax(llm.scores[llm.n_tokens - 1]))
        out.append(tok)
        if tok in stop:
            break
        llm.eval([tok])
    return out


def _parsed(text: str, tools: list[dict]) -> dict:
    from nanoagent.toolcall import ToolCallError, parse

    try:
        reply = parse(text, tools)
    except ToolCallError as e:
        return {"error": e.kind}
    return {"calls": [{"name": c["function"]["name"], "arguments": c["function"]["arguments"]}
                      for c in reply.tool_calls]}


def greedy_tool_calls(llm, model, tokenizer, max_tokens: int = 64, fmt=DEFAULT_FORMAT, progress=None) -> dict:
    stop = {tokenizer.eos_token_id}
    cases = []
    for kind, msgs, tools in TOOL_CONVERSATIONS:
        ids = render_prompt(msgs, tools, tokenizer, fmt)
        a, b = greedy_mlx(model, ids, max_tokens, stop), greedy_llama(llm, ids, max_tokens, stop)
        same_prefix = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        text_a = tokenizer.decode([t for t in a if t not in stop])
        text_b = tokenizer.decode([t for t in b if t not in stop])
        pa, pb = _parsed(text_a, tools), _parsed(text_b, tools)
        margin = None  # MLX's top-2 margin where the two greedy paths part: a near tie is rounding, not a bug
        if a != b:
            top2 = np.sort(mlx_logits(model, ids + a[:same_prefix])[-1])[-2:]
            margin = float(top2[1] - top2[0])
        cases.append({"prompt": msgs[-1]["content"][:60], "mlx": pa, "llama_cpp": pb, "same_parse": pa == pb,
                      "identical_tokens": a == b, "common_prefix_tokens": same_prefix, "divergence_margin": margin,
                      "mlx_text": text_a, "llama_cpp_text": text_b})
        _tick(progress)
    return {"cases": cases, "same_parse": sum(c["same_parse"] for c in cases),
            "identical": sum(c["identical_tokens"] for c in cases), "total": len(cases),
            "with_calls": sum(bool(c["mlx"].get("calls")) for c in cases)}


def _nll(logits: np.ndarray, ids: list[int]) -> float:
    x = logits[:-1]
    lse = np.log(np.exp(x - x.max(-1, keepdims=True)).sum(-1)) + x.max(-1)
    return float((lse - x[np.arange(len(ids) - 1), ids[1:]]).mean())


def perplexity(llm, model, tokenizer, text: str = HELDOUT_TEXT, progress=None) -> dict:
    ids = list(tokenizer.encode(text, add_special_tokens=False))
    ppl_mlx, ppl_llama = float(np.exp(_nll(mlx_logits(model, ids), ids))), float(np.exp(_nll(llama_logits(llm, ids), ids)))
    _tick(progress)
    return {"tokens": len(ids), "mlx": ppl_mlx, "llama_cpp": ppl_llama,
            "relative_diff": abs(ppl_llama - ppl_mlx) / ppl_mlx}


def _first_diff(a: list[int], b: list[int]) -> int | None:
    i = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return None if a == b else i


def chat_format(llm, tokenizer, fmt=DEFAULT_FORMAT, progress=None) -> dict:
    """llama.cpp's own chat formatting against our renderer (in the model's format), conversation by conversation."""
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    template = llm.metadata.get("tokenizer.chat_template", "")
    formatter = Jinja2ChatFormatter(template, eos_token=tokenizer.eos_token or "",
                                    bos_token=tokenizer.bos_token or "")
    jinja, builtin = [], []
    for kind, msgs, tools in CONVERSATIONS:
        ours = render_prompt(msgs, tools, tokenizer, fmt)
        res = formatter(messages=msgs, tools=tools or None)
        theirs = llm.tokenize(res.prompt.encode(), add_bos=not res.added_special, special=True)
        at = _first_diff(ours, theirs)
        jinja.append({"kind": kind, "identical": at is None, "first_diff_token": at,
                      **({"ours": tokenizer.decode(ours[at:at + 12]), "theirs": tokenizer.decode(theirs[at:at + 12])}
                         if at is not None else {})})
        text = _builtin_format(llm, msgs)
        if text is not None:
            want = render_text(msgs, [], add_generation_prompt=True)
            plain = not tools and all(m["role"] in ("system", "user") for m in msgs)
            pos = next((i for i, (x, y) in enumerate(zip(want, text)) if x != y), min(len(want), len(text)))
            builtin.append({"kind": kind, "identical_text": text == want, "comparable": plain,
                            **({"first_diff_char": pos, "ours": want[pos:pos + 40], "theirs": text[pos:pos + 40]}
                               if text != want else {})})
        _tick(progress)
    return {"chat_handler": llm.chat_format, "jinja_identical": sum(j["identical"] for j in jinja),
            "total": len(jinja), "jinja": jinja, "builtin_cpp": builtin,
            "note": "the built-in C++ formatter takes only role/content (no tools, no tool_calls); it is compared "
                    "for the record, and only conversations without tools are expected to match"}


def _builtin_format(llm, msgs: list[dict]) -> str | None:
    """llama.cpp's C++ llama_chat_apply_template with the model's template (None when this build lacks it)."""
    import ctypes

    import llama_cpp

    try:
        tmpl = llama_cpp.llama_model_chat_template(llm.model, None)
        arr = (llama_cpp.llama_chat_message * len(msgs))(
            *[llama_cpp.llama_chat_message(role=m["role"].encode(), content=(m.get("content") or "").encode())
              for m in msgs])
        buf = ctypes.create_string_buffer(1 << 16)
        n = llama_cpp.llama_chat_apply_template(tmpl, arr, len(msgs), True, buf, len(buf))
    except (AttributeError, TypeError, ctypes.ArgumentError):
        return None
    return buf.raw[:n].decode("utf-8", "replace") if 0 <= n <= len(buf) else None


def parity_report(gguf_path, model, tokenizer, tool_tokens: int = 64, progress: bool = True) -> dict:
    """All four checks, with prompts in the prompt format the GGUF records (nanoagent/prompt_format.py); `progress`:
    one bar over all their prompts."""
    from nanoagent.progress import progress_bar
    from nanoagent.prompt_format import stored_format

    fmt = stored_format(str(gguf_path))
    llm = open_llama(gguf_path)
    total = len(prompts(tokenizer, fmt)) + len(TOOL_CONVERSATIONS) + 1 + len(CONVERSATIONS)
    try:
        with progress_bar(total, "parity", unit="prompt", disable=not progress) as bar:
            return {"prompt_format": fmt.name,
                    "next_token": next_token_agreement(llm, model, tokenizer, fmt, bar.update),
                    "tool_calls": greedy_tool_calls(llm, model, tokenizer, tool_tokens, fmt, bar.update),
                    "perplexity": perplexity(llm, model, tokenizer, progress=bar.update),
                    "chat_format": chat_format(llm, tokenizer, fmt, bar.update)}
    finally:
        llm.close()


def summary_lines(report: dict, qtype: str | None = None) -> list[str]:
    nt, tc, pp, cf = (report[k] for k in ("next_token", "tool_calls", "perplexity", "chat_format"))
    kinds = ", ".join(f"{k} {v['rate']:.4f}" for k, v in nt["per_kind"].items())
    return [
        f"greedy next-token agreement, llama.cpp vs MLX: {nt['agree']}/{nt['positions']} = {nt['rate']:.4f} ({kinds});"
        f" mean |logit diff| {nt['mean_abs_logit_diff']:.4f}; largest top-2 margin at a disagreement "
        f"{nt['max_disagreement_margin']:.3f}",
        f"greedy decoding of tool-calling prompts: same parse {tc['same_parse']}/{tc['total']}, identical tokens "
        f"{tc['identical']}/{tc['total']}, replies with a call (MLX) {tc['with_calls']}/{tc['total']}"
        + "".join(f"; parted at a top-2 margin of {c['divergence_margin']:.3f} on {c['prompt']!r}"
                  for c in tc["cases"] if not c["same_parse"]),
        f"perplexity on {pp['tokens']} held-out tokens: MLX {pp['mlx']:.4f}, llama.cpp {pp['llama_cpp']:.4f} "
        f"(relative difference {pp['relative_diff']:.4%})",
        f"llama.cpp chat formatting ({cf['chat_handler']}): Jinja handler gives our exact prompt tokens on "
        f"{cf['jinja_identical']}/{cf['total']} conversations",
    ]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m export.parity", description=__doc__.split("\n")[0],
                                formatter_class=HelpFormatter)
    p.add_argument("gguf", help="the .gguf file to check")
    p.add_argument("--model", default="embedded", help="the source the GGUF was exported from (default: embedded)")
    args = p.parse_args(argv)
    from nanoagent.gguf_import import GGUFImportError, open_gguf
    from nanoagent.models import ModelLoadError, load

    try:
        if not Path(args.gguf).is_file():
            raise ModelLoadError(f"{args.gguf} does not exist (or is not a file): give the .gguf that "
                                 "`python -m export.gguf` wrote")
        open_gguf(args.gguf)  # a clean error for a truncated or non-GGUF file, before llama.cpp sees it
        model, tokenizer = load(args.model)
    except (ModelLoadError, GGUFImportError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    report = parity_report(args.gguf, model, tokenizer)
    print("\n".join(summary_lines(report)), file=sys.stderr)
    print(json.dumps(report, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
