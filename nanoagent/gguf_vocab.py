"""A byte-level BPE tokenizer as GGUF tokenizer metadata: the inverse of nanoagent.gguf_import's tokenizer rebuild.
Also home of ExportError, which every GGUF-writing module raises (the writer below, the export stage above).

`tokenizer_metadata(tokenizer, n_vocab)` returns the `tokenizer.ggml.*` values llama.cpp needs: model "gpt2"
(byte-level BPE), the pre-tokenizer name ("smollm" when digits are split one by one before the byte-level regex,
as in SmolLM2; "gpt2" for the plain byte-level regex), every token by id, token types (3 = control for special
added tokens, 4 = user-defined for other added tokens, 1 = normal), merges, bos/eos/unknown/padding ids and
add_bos_token False. Embedding rows beyond the tokenizer's vocabulary get "[PAD{i}]" tokens of type 5 (unused), as
llama.cpp's own converter does.

Usage:
    meta = tokenizer_metadata(tokenizer, n_vocab=49152)   # tokenizer: HF fast tokenizer or mlx-lm wrapper

Left out: SentencePiece / WordPiece / Unigram tokenizers (a clear error says so).
"""

from __future__ import annotations

import json


class ExportError(RuntimeError):
    """A model or tokenizer the GGUF writer can't write; the message names the input and what to do (the export
    stage's commands report it as bad input)."""

from nanoagent.render import backend_tokenizer

NORMAL, CONTROL, USER_DEFINED, UNUSED = 1, 3, 4, 5


def pre_tokenizer_name(pre: dict | None) -> str:
    """llama.cpp's name for a `tokenizers` pre-tokenizer JSON, or ExportError when llama.cpp has no match."""
    steps = (pre or {}).get("pretokenizers") if (pre or {}).get("type") == "Sequence" else [pre] if pre else []
    kinds = [s.get("type") for s in steps]
    byte_level = steps[-1] if steps and kinds[-1] == "ByteLevel" else None
    if byte_level is not None and not byte_level.get("add_prefix_space", False) and byte_level.get("use_regex", True):
        if kinds == ["ByteLevel"]:
            return "gpt2"
        if kinds == ["Digits", "ByteLevel"] and steps[0].get("individual_digits"):
            return "smollm"
    raise ExportError(f"the tokenizer's pre-tokenizer {kinds or None} has no llama.cpp equivalent this exporter "
                      "knows (supported: SmolLM2's Digits(individual)+ByteLevel = 'smollm', plain ByteLevel = 'gpt2')")


def _merge_strings(merges: list) -> list[str]:
    out = []
    for m in merges:
        pair = m.split(" ", 1) if isinstance(m, str) else list(m)
        if len(pair) != 2 or any(" " in p for p in pair):
            raise ExportError(f"BPE merge {m!r} can't be written as 'left right' (a space inside a token)")
        out.append(f"{pair[0]} {pair[1]}")
    return out


def tokenizer_metadata(tokenizer, n_vocab: int) -> dict:
    """The `tokenizer.ggml.*` metadata for `tokenizer`, padded to `n_vocab` tokens (the embedding's rows)."""
    backend = backend_tokenizer(tokenizer)
    spec = json.loads(backend.to_str())
    model = spec.get("model") or {}
    if model.get("type") != "BPE" or (spec.get("decoder") or {}).get("type") != "ByteLevel":
        raise ExportError(f"tokenizer model {model.get('type')!r} with decoder {(spec.get('decoder') or {}).get('type')!r}"
                          " is not supported: the GGUF export writes byte-level BPE tokenizers (SmolLM2's kind)")
    pre = pre_tokenizer_name(spec.get("pre_tokenizer"))
    vocab = backend.get_vocab(with_added_tokens=True)
    if len(vocab) > n_vocab:
        raise ExportError(f"the tokenizer has {len(vocab)} tokens but the model's embedding only {n_vocab} rows: "
                          "this tokenizer does not belong to this model")
    tokens: list[str | None] = [None] * n_vocab
    for tok, idx in vocab.items():
        tokens[idx] = tok
    types = [NORMAL] * n_vocab
    for idx, added in backend.get_added_tokens_decoder().items():
        types[idx] = CONTROL if added.special else USER_DEFINED
    missing = [i for i, t in enumerate(tokens[: len(vocab)]) if t is None]
    if missing:
        raise ExportError(f"the tokenizer's ids are not contiguous (first gap at id {missing[0]}); GGUF needs one "
                          "token per id")
    for i in range(len(vocab), n_vocab):
        tokens[i], types[i] = f"[PAD{i}]", UNUSED

    def token_id(attr: str) -> int | None:
        hf = getattr(tokenizer, "_tokenizer", tokenizer)
        value = getattr(hf, attr, None)
        return int(value) if value is not None else None

    ids = {"bos": token_id("bos_token_id"), "eos": token_id("eos_token_id"), "unknown": token_id("unk_token_id"),
           "padding": token_id("pad_token_id")}
    if ids["eos"] is None:
        raise ExportError("the tokenizer has no eos token; llama.cpp would never stop generating. Set eos_token "
                          "(SmolLM2: <|im_end|>) in tokenizer_config.json")
    if ids["padding"] is None:
        ids["padding"] = ids["eos"]
    return {"model": "gpt2", "pre": pre, "tokens": tokens, "token_type": types,
            "merges": _merge_strings(model.get("merges") or []),
            **{f"{k}_token_id": v for k, v in ids.items() if v is not None}}
