"""Tiny stand-ins for tests and benchmarks: a byte-level tokenizer with our ChatML specials, a random llama.

`tiny_tokenizer()` is a real `tokenizers` byte-level BPE (256 byte tokens, a few merges, the ChatML special
tokens at the same ids as SmolLM2's) wrapped as a transformers fast tokenizer carrying our chat template, so
`render`, `apply_chat_template` and mlx-lm all work on it. `tiny_llama()` is a randomly initialised mlx-lm llama
of a few layers; `save_tiny_model(folder)` writes both in the Hugging Face / MLX layout that `nanoagent.models.load`
and `mlx_lm.load` read.

Usage (in a test):
    tok = tiny_tokenizer(); model = tiny_llama(vocab_size=tok_vocab_size(tok))
    folder = save_tiny_model(tmp_path / "tiny")

Not for real use: the weights are random and the merges are a handful of common pairs.
"""

from __future__ import annotations

import json
from pathlib import Path

# SmolLM2 puts these at ids 0.. in this order; the tiny tokenizer does the same so eos/pad ids match.
SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]


def tiny_backend_tokenizer():
    """A `tokenizers.Tokenizer`: specials 0-2, then 256 byte tokens, then merges of a few common pairs."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from tokenizers.pre_tokenizers import ByteLevel

    alphabet = ByteLevel.alphabet()
    vocab = {t: i for i, t in enumerate(SPECIAL_TOKENS)}
    for ch in sorted(alphabet):
        vocab[ch] = len(vocab)
    merges = []
    for a, b in [("Ġ", "t"), ("h", "e"), ("i", "n"), ("Ġt", "he"), ("a", "n"), ("o", "n"), ("e", "r"),
                 ("Ċ", "Ċ"), ("Ġ", "Ġ"), ("{", "\""), ("\"", ":"), ("a", "m"), ("n", "a")]:
        merges.append((a, b))
        vocab.setdefault(a + b, len(vocab))
    tok = Tokenizer(models.BPE(vocab=vocab, merges=merges, fuse_unk=False))
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Digits(individual_digits=True),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
    ])
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens(SPECIAL_TOKENS)
    return tok


def wrap_tokenizer(backend, chat_template: str | None = None):
    """A transformers fast tokenizer around `backend` with SmolLM2's special-token roles and our template."""
    from transformers import PreTrainedTokenizerFast

    from nanoagent.render import CHAT_TEMPLATE

    return PreTrainedTokenizerFast(
        tokenizer_object=backend,
        bos_token="<|im_start|>", eos_token="<|im_end|>", pad_token="<|im_end|>", unk_token="<|endoftext|>",
        chat_template=chat_template or CHAT_TEMPLATE,
        clean_up_tokenization_spaces=False,
        model_max_length=8192,
    )


def tiny_tokenizer():
    return wrap_tokenizer(tiny_backend_tokenizer())


def tok_vocab_size(tokenizer) -> int:
    return len(tokenizer.get_vocab())


def tiny_config(vocab_size: int, **overrides) -> dict:
    cfg = {
        "model_type": "llama", "architectures": ["LlamaForCausalLM"],
        "hidden_size": 64, "num_hidden_layers": 2, "intermediate_size": 128,
        "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
        "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "vocab_size": vocab_size,
        "tie_word_embeddings": True, "max_position_embeddings": 2048,
        "bos_token_id": 1, "eos_token_id": 2, "pad_token_id": 2,
    }
    cfg.update(overrides)
    return cfg


def tiny_llama(vocab_size: int, seed: int = 0, **overrides):
    import mlx.core as mx
    from mlx_lm.models import llama

    mx.random.seed(seed)
    args = llama.ModelArgs.from_dict(tiny_config(vocab_size, **overrides))
    model = llama.Model(args)
    mx.eval(model.parameters())
    return model


def save_tiny_model(folder: str | Path, seed: int = 0, **overrides) -> Path:
    """Write a random tiny llama + tiny tokenizer as an HF/MLX model folder; returns the folder."""
    import mlx.core as mx
    from mlx.utils import tree_flatten

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    tok = tiny_tokenizer()
    vocab = tok_vocab_size(tok)
    model = tiny_llama(vocab, seed=seed, **overrides)
    mx.save_safetensors(str(folder / "model.safetensors"), dict(tree_flatten(model.parameters())),
                        metadata={"format": "mlx"})
    (folder / "config.json").write_text(json.dumps(tiny_config(vocab, **overrides), indent=2))
    tok.save_pretrained(str(folder))
    return folder
