"""Which weights train (LoRA or full), and how the final model is written so `mlx_lm.load` can read it.

    n_trainable = prepare(model, cfg)          # freezes the base, adds LoRA, or unfreezes everything
    save_final(model, tokenizer, base_folder, out_folder, cfg, fmt)   # + prompt_format.json (the model's format)

LoRA reuses mlx-lm's `linear_to_lora_layers` (rank, scale, dropout, last N blocks, which modules; by default every
linear layer of a block). Full fine-tuning trains every weight, including the tied embedding that mlx-lm's full
mode leaves frozen (21% of SmolLM2's parameters, and the output projection too when tied).

The final folder holds `config.json`, the tokenizer files and `model.safetensors`: with LoRA fused into the weights
by default, or with `fuse=False` the untouched base weights plus `adapters/` (`adapters.safetensors`,
`adapter_config.json` in mlx-lm's format: `mlx_lm.load(folder, adapter_path=folder/"adapters")`).
Gradient checkpointing recomputes a block's activations in the backward pass instead of keeping them; with
`checkpoint_every` N only every Nth block does (a part of the memory saved for a part of the extra forward).
Like mlx-lm's `grad_checkpoint` it wraps the block class's `__call__`, but only blocks marked `checkpointed`
recompute, so other models of the same class in the process are untouched.
Left out: DoRA, quantized (QLoRA) bases.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import mlx.core as mx
from mlx.utils import tree_flatten, tree_unflatten

from nanoagent.call_threshold import FILE as THRESHOLD_FILE
from nanoagent.packed_attention import weights_kept

WEIGHT_SUFFIXES = (".safetensors", ".gguf", ".bin", ".pt", ".pth", ".npz")
# the model cache's own bookkeeping, wrong for a new folder; and the start model's call threshold, which was chosen
# for its weights, not the trained ones (train.dft chooses a new one after training; GRPO's model has none)
NOT_COPIED = {"nanoagent-manifest.json", THRESHOLD_FILE}


def lora_parameters(cfg) -> dict:
    params = {"rank": cfg.lora_rank, "scale": cfg.lora_scale, "dropout": cfg.lora_dropout}
    if cfg.lora_keys:
        params["keys"] = list(cfg.lora_keys)
    return params


def prepare(model, cfg) -> int:
    """Set which parameters train; returns their count."""
    if cfg.fine_tune == "full":
        model.unfreeze()
    else:
        from mlx_lm.tuner.utils import linear_to_lora_layers

        model.freeze()
        n_layers = len(model.layers)
        num = n_layers if cfg.lora_layers < 0 else min(cfg.lora_layers, n_layers)
        linear_to_lora_layers(model, num, lora_parameters(cfg))
        if not tree_flatten(model.trainable_parameters()):
            raise ValueError(f"LoRA found no module matching lora_keys={cfg.lora_keys} in the model's blocks; "
                             "use names like self_attn.q_proj, mlp.down_proj")
    if cfg.grad_checkpoint:
        checkpoint_blocks(model, cfg.checkpoint_every)
    return count_trainable(model)


def checkpoint_blocks(model, every: int = 1) -> int:
    """Recompute the activations of every `every`-th transformer block (the first, then each every-th after it) in
    the backward pass instead of keeping them; returns how many blocks recompute."""
    if every < 1:
        raise ValueError(f"checkpoint_every must be at least 1, got {every}")
    cls = type(model.layers[0])
    if not getattr(cls.__call__, "checkpoints_marked_blocks", False):
        plain = cls.__call__

        def call(block, *args, **kwargs):
            if not getattr(block, "checkpointed", False):
                return plain(block, *args, **kwargs)

            def run(params, *args, **kwargs):
                block.update(params)
                with weights_kept():  # the block's forward runs again anyway: not the attention a third time
                    return plain(block, *args, **kwargs)

            return mx.checkpoint(run)(block.trainable_parameters(), *args, **kwargs)

        call.checkpoints_marked_blocks = True
        cls.__call__ = call
    for i, block in enumerate(model.layers):
        block.checkpointed = i % every == 0
    return sum(block.checkpointed for block in model.layers)


def count_trainable(model) -> int:
    return int(sum(v.size for _, v in tree_flatten(model.trainable_parameters())))


def fuse_lora(model) -> int:
    """Replace every LoRA layer by a plain layer holding W + scale * B^T A^T; returns how many were fused."""
    fused = [(name, m.fuse()) for name, m in model.named_modules() if hasattr(m, "fuse") and hasattr(m, "lora_a")]
    if fused:
        model.update_modules(tree_unflatten(fused))
    return len(fused)


def copy_side_files(base: Path, out: Path) -> None:
    """Tokenizer files, config and anything else that isn't weights."""
    for p in base.iterdir():
        if (p.is_file() and not p.name.endswith(WEIGHT_SUFFIXES) and not p.name.endswith(".safetensors.index.json")
                and p.name not in NOT_COPIED):
            shutil.copy2(p, out / p.name)


def save_final(model, tokenizer, base_folder, out_folder, cfg, fmt=None) -> Path:
    """The final model folder; `fmt` (nanoagent.render.PromptFormat, None: standard) is recorded beside it."""
    from mlx_lm.utils import save_model

    from nanoagent.prompt_format import save_format

    base, out = Path(base_folder), Path(out_folder)
    out.mkdir(parents=True, exist_ok=True)
    copy_side_files(base, out)
    if not (out / "tokenizer.json").exists() and tokenizer is not None:
        tokenizer.save_pretrained(str(out))
    if cfg.fine_tune == "lora" and not cfg.fuse:
        adapters = dict(tree_flatten(model.trainable_parameters()))
        (out / "adapters").mkdir(exist_ok=True)
        mx.save_safetensors(str(out / "adapters" / "adapters.safetensors"), adapters)
        n_layers = len(model.layers)
        num = n_layers if cfg.lora_layers < 0 else min(cfg.lora_layers, n_layers)
        (out / "adapters" / "adapter_config.json").write_text(json.dumps(
            {"fine_tune_type": "lora", "num_layers": num, "lora_parameters": lora_parameters(cfg)}, indent=2))
        base_weights = {k: v for k, v in tree_flatten(model.parameters())
                        if ".lora_a" not in k and ".lora_b" not in k}
        base_weights = {k.replace(".linear.", "."): v for k, v in base_weights.items()}
        mx.save_safetensors(str(out / "model.safetensors"), base_weights, metadata={"format": "mlx"})
    else:
        fuse_lora(model)
        save_model(out, model)
    save_format(out, fmt or "standard")
    return out
