"""Write llama weights + tokenizer + our chat template as a GGUF file: the exact inverse of nanoagent.gguf_import.
In the library because the export stage writes release files with it and GRPO writes the policy it syncs into
its llama.cpp rollout engine.

Tensor names are gguf_import's table read backwards; attention Q and K rows get llama.cpp's rope permutation (the
inverse of `gguf_import._unpermute`); 1-D tensors (the RMS norms) stay float32; a tied embedding is written once
as `token_embd` with no `output` tensor. Matrices become Q8_0 (`gguf.quants.quantize`, blocks of 32 with one
float16 scale), F16 or F32; the vocabulary-wide matrices may take another type than the rest (`embedding_type`,
below). The file is written to a temporary name beside the target and renamed into place only
when complete, so a failed export never leaves a partial file under the final name.

Usage:
    write_gguf(weights, config, tokenizer, "out.gguf", qtype="q8_0", name="my-model")
    write_gguf(weights, config, tokenizer, "out.gguf", qtype="q8_0", embedding_type="f16")  # output layer in F16
    write_gguf(model_weights(model), config, tokenizer, "policy.gguf", qtype="f16")   # an MLX model, LoRA fused
    write_gguf(model_weights(model, fuse=False), ...)                    # its base weights only, and beside them
    write_lora_gguf(lora_adapters(model), config, "adapter.gguf")       # its LoRA update as a llama.cpp adapter

A llama.cpp LoRA adapter (`general.type` "adapter") holds, for each adapted weight W, `<name>.lora_a` (rank x in)
and `<name>.lora_b` (out x rank), and llama.cpp adds B(Ax) to Wx. The layer's scale is folded into B and no
`adapter.lora.alpha` is written, so llama.cpp applies the pair at the scale the caller sets (1.0 for what MLX does).

Left out: K-quants and other block types (llama.cpp's `llama-quantize` makes them from our F16/F32 file), split
files, big-endian output.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from nanoagent.atomic import staged
from nanoagent.gguf_vocab import ExportError, tokenizer_metadata
from nanoagent.gguf_import import _LAYER_NAMES, _TOP_NAMES

TYPES = ("q8_0", "f16", "f32")
BLOCK = 32  # Q8_0 block size: a row length must be a multiple of it

# Hugging Face llama names -> GGUF names: gguf_import's table inverted, so export and import can't drift apart.
_TO_GGUF_LAYER = {hf: g for g, hf in _LAYER_NAMES.items()}
_TO_GGUF_TOP = {hf: g for g, hf in _TOP_NAMES.items()}


def lora_layers(model) -> dict:
    """The model's LoRA (or DoRA) layers by module path."""
    return {name: m for name, m in model.named_modules() if hasattr(m, "fuse") and hasattr(m, "lora_a")}


def model_weights(model, fuse: bool = True) -> dict[str, np.ndarray]:
    """An mlx-lm model's weights as float32 numpy arrays under Hugging Face names, LoRA layers fused (W + scale *
    B^T A^T) without changing the model: what write_gguf takes, from a folder's model or a policy in training.
    `fuse=False` gives each LoRA layer's base weight as it is (its update goes separately: lora_adapters)."""
    import mlx.core as mx
    from mlx.utils import tree_flatten

    lora = lora_layers(model)
    weights = {}
    for name, value in tree_flatten(model.parameters()):
        owner, _, leaf = name.rpartition(".")
        if leaf in ("lora_a", "lora_b"):
            continue
        if owner.endswith(".linear") and owner[:-len(".linear")] in lora:  # a LoRA layer's base weight
            owner = owner[:-len(".linear")]
            value = getattr(lora[owner].fuse(), leaf) if fuse else value
            name = f"{owner}.{leaf}"
        weights[name] = np.asarray(value.astype(mx.float32))
    return weights


def lora_adapters(model) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Each LoRA layer's update under its base weight's Hugging Face name, as llama.cpp's pair: A (rank x in) and
    B (out x rank) with the layer's scale folded in, so W + B A is what the layer's `fuse` makes. ExportError for a
    layer llama.cpp's adapters can't express (DoRA's magnitude)."""
    import mlx.core as mx

    out = {}
    for name, layer in lora_layers(model).items():
        if hasattr(layer, "m"):
            raise ExportError(f"{name} is a DoRA layer; a llama.cpp adapter holds only LoRA pairs (sync the fused "
                              "weights instead)")
        a = np.asarray(layer.lora_a.astype(mx.float32)).T
        b = np.asarray((layer.scale * layer.lora_b).astype(mx.float32)).T
        out[f"{name}.weight"] = (np.ascontiguousarray(a), np.ascontiguousarray(b))
    return out


def check_type(qtype: str, flag: str = "--type") -> str:
    q = str(qtype).lower()
    if q not in TYPES:
        raise ExportError(f"{flag} {qtype!r} is not supported; choose one of {', '.join(TYPES)} (default q8_0)")
    return q


def gguf_name(hf_name: str) -> str:
    """`model.layers.3.self_attn.q_proj.weight` -> `blk.3.attn_q.weight`; ExportError for a non-llama tensor."""
    stem, _, suffix = hf_name.rpartition(".")
    if stem.startswith("model.layers."):
        rest = stem[len("model.layers."):]
        layer, _, module = rest.partition(".")
        if layer.isdigit() and module in _TO_GGUF_LAYER:
            return f"blk.{layer}.{_TO_GGUF_LAYER[module]}.{suffix}"
    elif stem in _TO_GGUF_TOP:
        return f"{_TO_GGUF_TOP[stem]}.{suffix}"
    raise ExportError(f"tensor {hf_name!r} is not part of a llama model this exporter writes (biases, rotary "
                      "buffers and adapter weights are not supported)")


def permute_rows(w: np.ndarray, n_head: int) -> np.ndarray:
    """llama.cpp's rope row order for a Q or K weight (Hugging Face layout in, GGUF layout out); numpy or MLX."""
    rows, cols = w.shape
    return w.reshape(n_head, 2, rows // n_head // 2, cols).swapaxes(1, 2).reshape(rows, cols)


def rope_order(w, hf_name: str, cfg: dict):
    """`w` (rows of the weight `hf_name`, or of its LoRA B) in GGUF row order: Q and K permuted with their head
    counts, any other weight as it is."""
    if hf_name.endswith("self_attn.q_proj.weight"):
        return permute_rows(w, cfg["num_attention_heads"])
    if hf_name.endswith("self_attn.k_proj.weight"):
        return permute_rows(w, cfg.get("num_key_value_heads") or cfg["num_attention_heads"])
    return w


def encode_tensor(w: np.ndarray, qtype: str):
    """(array to store, GGML type, or None when stored as plain float) for one tensor."""
    from gguf import GGMLQuantizationType as T
    from gguf.quants import quantize

    if w.ndim == 1 or qtype == "f32":
        return w.astype(np.float32), T.F32
    if qtype == "f16" or w.shape[-1] % BLOCK:
        return w.astype(np.float16), T.F16  # Q8_0 needs rows in whole blocks; llama.cpp's converter falls back too
    return quantize(np.ascontiguousarray(w, dtype=np.float32), T.Q8_0), T.Q8_0


def gguf_tensors(weights: dict, cfg: dict) -> dict:
    """Float32 weights under GGUF names, Q/K permuted, tied output dropped."""
    tied = cfg.get("tie_word_embeddings", True)
    out = {}
    for hf, w in weights.items():
        if hf == "lm_head.weight" and tied:
            continue
        out[gguf_name(hf)] = rope_order(w, hf, cfg)
    expected = 2 + cfg["num_hidden_layers"] * len(_LAYER_NAMES) + (0 if tied else 1)
    if len(out) != expected:
        raise ExportError(f"the model has {len(out)} exportable tensors, expected {expected} for a "
                          f"{cfg['num_hidden_layers']}-layer llama; the weights are incomplete")
    return out


def _finish(w, progress: bool = False) -> None:
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file(progress=progress)
    w.close()


def _order(name: str):
    parts = name.split(".")
    return (1, int(parts[1]), name) if parts[0] == "blk" else (0 if name.startswith("token_embd") else 2, 0, name)


EMBEDDING_TENSORS = ("token_embd.weight", "output.weight")  # the vocabulary-wide matrices (tied: token_embd only)


def write_gguf(weights: dict, cfg: dict, tokenizer, out: str | Path, qtype: str = "q8_0", name: str = "model",
               progress: bool = True, call_threshold: float | None = None,
               embedding_type: str | None = None, prompt_format=None, source_weights: str | None = None) -> dict:
    """Write the GGUF atomically; returns {"path", "bytes", "tensor_types": {type: count}, "fallback_f16": [...]}.
    `call_threshold` (the one stored with the source model, nanoagent/call_threshold.py) goes into the metadata;
    so does `prompt_format` (the source model's, nanoagent/prompt_format.py; None: standard), with the chat template
    that renders it; so does `source_weights`, the digest of the weights it is made from (nanoagent/weights_digest.py),
    so that an eval of the file names the model it came from.
    `embedding_type` (default `qtype`) is the type of EMBEDDING_TENSORS, as llama-quantize's --token-embedding-type
    and --output-tensor-type: with tied embeddings token_embd is also the output layer."""
    import gguf
    from tqdm import tqdm

    from nanoagent.call_threshold import GGUF_KEY
    from nanoagent.prompt_format import GGUF_KEY as FORMAT_KEY
    from nanoagent.weights_digest import KEY as DIGEST_KEY
    from nanoagent.render import chat_template, format_named

    qtype = check_type(qtype)
    fmt = format_named(prompt_format)
    embedding_type = check_type(embedding_type or qtype, "--embedding-type")
    out = Path(out)
    tensors = gguf_tensors(weights, cfg)
    n_vocab = tensors["token_embd.weight"].shape[0]
    tok = tokenizer_metadata(tokenizer, n_vocab)
    heads = cfg["num_attention_heads"]
    head_dim = cfg.get("head_dim") or cfg["hidden_size"] // heads

    counts: dict[str, int] = {}
    fallback = []
    with staged(out) as tmp:
        w = gguf.GGUFWriter(str(tmp), "llama")
        w.add_type("model")
        w.add_name(name)
        w.add_file_type({"q8_0": gguf.LlamaFileType.MOSTLY_Q8_0, "f16": gguf.LlamaFileType.MOSTLY_F16,
                         "f32": gguf.LlamaFileType.ALL_F32}[qtype])
        w.add_quantization_version(gguf.GGML_QUANT_VERSION)
        w.add_vocab_size(n_vocab)
        w.add_context_length(int(cfg.get("max_position_embeddings") or 2048))
        w.add_embedding_length(cfg["hidden_size"])
        w.add_block_count(cfg["num_hidden_layers"])
        w.add_feed_forward_length(cfg["intermediate_size"])
        w.add_head_count(heads)
        w.add_head_count_kv(cfg.get("num_key_value_heads") or heads)
        w.add_rope_dimension_count(head_dim)
        if head_dim != cfg["hidden_size"] // heads:
            w.add_key_length(head_dim)
            w.add_value_length(head_dim)
        w.add_rope_freq_base(float(cfg.get("rope_theta", 10000.0)))
        w.add_layer_norm_rms_eps(float(cfg.get("rms_norm_eps", 1e-5)))
        w.add_tokenizer_model(tok["model"])
        w.add_tokenizer_pre(tok["pre"])
        w.add_token_list(tok["tokens"])
        w.add_token_types(tok["token_type"])
        w.add_token_merges(tok["merges"])
        for key, add in (("bos", w.add_bos_token_id), ("eos", w.add_eos_token_id),
                         ("unknown", w.add_unk_token_id), ("padding", w.add_pad_token_id)):
            if f"{key}_token_id" in tok:
                add(tok[f"{key}_token_id"])
        w.add_add_bos_token(False)
        w.add_add_space_prefix(False)
        w.add_chat_template(chat_template(fmt))
        w.add_string(FORMAT_KEY, fmt.name)
        if call_threshold is not None:
            w.add_float32(GGUF_KEY, float(call_threshold))
        if source_weights:
            w.add_string(DIGEST_KEY, source_weights)
        for gname in tqdm(sorted(tensors, key=_order), desc=f"encoding {qtype}", unit="tensor", disable=not progress):
            want = embedding_type if gname in EMBEDDING_TENSORS else qtype
            data, ggml_type = encode_tensor(tensors[gname], want)
            if want == "q8_0" and data.ndim == 2 and ggml_type.name == "F16":
                fallback.append(gname)
            counts[ggml_type.name] = counts.get(ggml_type.name, 0) + 1
            w.add_tensor(gname, data, raw_dtype=ggml_type if ggml_type.name == "Q8_0" else None)
        _finish(w, progress)
    return {"path": str(out), "bytes": out.stat().st_size, "tensor_types": counts, "fallback_f16": fallback,
            "embedding_type": embedding_type}


def write_lora_gguf(adapters: dict, cfg: dict, out: str | Path) -> Path:
    """Write `lora_adapters(model)` as a llama.cpp LoRA adapter for the GGUF of the same model's base weights, in
    float32, atomically. Q and K updates get the rope row order their base weights get."""
    import gguf

    with staged(out) as tmp:
        w = gguf.GGUFWriter(str(tmp), "llama")
        w.add_type("adapter")
        w.add_string("adapter.type", "lora")
        for hf, (a, b) in sorted(adapters.items()):
            b = rope_order(b, hf, cfg)
            name = gguf_name(hf)
            w.add_tensor(f"{name}.lora_a", np.ascontiguousarray(a, dtype=np.float32))
            w.add_tensor(f"{name}.lora_b", np.ascontiguousarray(b, dtype=np.float32))
        _finish(w)
    return Path(out)
