"""A held-out English paragraph and a model's perplexity on it: how much general language a fine-tune cost.

The paragraph was written for this project, so it is in no training or eval set. `train.dft` reports the
perplexity before and after training (summary.json: prose_ppl_before/after); `export.parity` compares llama.cpp
and MLX on the same text.

Measured here (MLX, float32): the embedded SmolLM2-135M-Instruct 65.2; after the 90-step SFT LoRA run at lr 5e-4
(bench/results/train_real_run.json) 751; after 12 DFT LoRA steps at lr 5e-4, 7864. Tool-calling data alone, at
that learning rate, costs the model much of its English.

Usage:
    from nanoagent.heldout import prose_perplexity
    prose_perplexity(model, tokenizer)      # -> float
"""

from __future__ import annotations

HELDOUT_TEXT = (
    "The lighthouse keeper counted the ships that passed each evening and wrote their names in a worn notebook. "
    "Most nights there were only fishing boats, but in late autumn the cargo vessels came south before the storms. "
    "She liked to guess where each one was going from the way it sat in the water: a ship riding high was empty and "
    "heading home, while a low, slow one carried grain or timber to the harbours along the coast. When the fog "
    "rolled in she lit the lamp early and listened for the horns, which sounded closer than they were. In spring "
    "her nephew visited and asked why she still kept the notebook when the harbour office tracked every ship by "
    "radio. She told him that a list written by hand is a different kind of record, because it remembers what the "
    "writer noticed and not only what the machines were told to measure."
)


def prose_perplexity(model, tokenizer, text: str = HELDOUT_TEXT) -> float:
    """exp(mean next-token negative log-likelihood) of `text` (no chat template, no special tokens) under an MLX
    model."""
    import math

    import mlx.core as mx

    ids = list(tokenizer.encode(text, add_special_tokens=False))
    if len(ids) < 2:
        raise ValueError("the text must have at least 2 tokens")
    logits = model(mx.array([ids[:-1]]))[0].astype(mx.float32)
    targets = mx.array(ids[1:])
    nll = mx.logsumexp(logits, axis=-1) - mx.take_along_axis(logits, targets[:, None], axis=-1)[:, 0]
    return math.exp(nll.mean().item())
