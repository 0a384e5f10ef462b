"""GRPO's llama.cpp rollout engine (`rollout_engine: llamacpp`): the policy, synced into llama.cpp every step.

MLX trains; llama.cpp generates, the way vLLM serves the policy in RL recipes for larger models. Before each
step's rollouts `sync` puts the current policy into the llama.cpp backend, whose `complete_batch` generates a
group in one multi-sequence context (nanoagent/agent/backends/llamacpp_batch.py):
- a LoRA policy: its base weights are written once as a GGUF (F16 by default) and loaded; each sync writes only
  the LoRA update as a llama.cpp adapter (float32, `nanoagent.gguf_writer.write_lora_gguf`, a few MB) and applies
  it over them (`set_lora`), with no reload;
- any other policy (full fine-tuning, DoRA): the whole model is written (LoRA fused) and reloaded each sync.
The sampled ids are exact; the log-probs the ratio needs are then recomputed by MLX on those ids (`relogprob`),
and how far llama.cpp's own log-probs were from them is logged (`sampler_logprob_gap_mean`, `_max`): F16 weights
and llama.cpp's kernels are not MLX's float32.

    engine = LlamaCppRollouts(model, tokenizer, config, folder=run_dir / "engine")
    engine.sync(model)                     # before rollouts whenever an update made it `stale`; returns seconds
    groups = ... engine.backend ...        # any rollout code that takes a backend
    gap = relogprob(model, batches)        # MLX log-probs into the batches; returns the gap statistics

In adapter mode the base weights must not change between syncs (LoRA training freezes them).
Left out: asynchronous rollouts while the update runs.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np


def engine_for(name: str, model_config: dict) -> tuple[str, str]:
    """The rollout engine `rollout_engine: NAME` means for a model with this config.json, and why. `auto` is llamacpp
    where MLX runs on the CPU, llama-cpp-python is installed and the model is a plain llama the GGUF writer can
    write (bench/grpo_rollouts.py measures llama.cpp faster there), else mlx (Metal, CUDA, other models)."""
    if name != "auto":
        return name, "asked for"
    import importlib.util

    import mlx.core as mx

    if mx.default_device().type != mx.cpu:
        return "mlx", "MLX runs on the GPU"
    if importlib.util.find_spec("llama_cpp") is None:
        return "mlx", "llama-cpp-python is not installed"
    plain = (model_config.get("model_type") == "llama" and "quantization" not in model_config
             and not model_config.get("attention_bias") and not model_config.get("mlp_bias"))
    if not plain:
        return "mlx", "the model is not a plain float llama (the GGUF writer's kind)"
    return "llamacpp", "MLX runs on the CPU"


class LlamaCppRollouts:
    """A llama.cpp backend over GGUF copies of an MLX policy, kept in `folder` (files replaced each sync)."""

    def __init__(self, model, tokenizer, config: dict, folder: str | Path, qtype: str = "f16",
                 threads: int | None = None, top_p: float = 1.0, n_ctx: int = 8192):
        from nanoagent.gguf_writer import check_type, lora_layers

        self.tokenizer, self.config, self.qtype = tokenizer, dict(config), check_type(qtype)
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        layers = lora_layers(model).values()
        self.mode = "adapter" if layers and not any(hasattr(m, "m") for m in layers) else "weights"
        self.path = self.folder / f"policy-{self.qtype}.gguf"
        self.adapter_path = self.folder / "policy-lora.gguf"
        self.backend = None
        self.options = dict(n_ctx=n_ctx, n_threads=threads, top_p=top_p)
        self.syncs, self.sync_seconds = 0, 0.0
        self.stale = True  # the trainer sets it after every update; rollouts first sync a stale copy
        self.sync(model)

    def sync(self, model) -> float:
        """Put the policy's current weights into llama.cpp (module docstring); returns the seconds it took."""
        from nanoagent.agent.backends.llamacpp import LlamaCppBackend
        from nanoagent.gguf_writer import lora_adapters, model_weights, write_gguf, write_lora_gguf

        t = time.perf_counter()
        adapter = self.mode == "adapter"
        if self.backend is None or not adapter:
            write_gguf(model_weights(model, fuse=not adapter), self.config, self.tokenizer, self.path, self.qtype,
                       name="grpo-policy", progress=False)
            if self.backend is None:
                self.backend = LlamaCppBackend(self.path, tokenizer=self.tokenizer, **self.options)
            else:
                self.backend.reload(self.path)
        if adapter:
            write_lora_gguf(lora_adapters(model), self.config, self.adapter_path)
            self.backend.set_lora(self.adapter_path)
        seconds = time.perf_counter() - t
        self.stale = False
        self.syncs += 1
        self.sync_seconds += seconds
        return seconds

    def close(self) -> None:
        if self.backend is not None:
            self.backend.close()
            self.backend = None


def relogprob(model, batches) -> dict:
    """Replace each batch's sampling-time log-probs with MLX's on the same ids (the ratio's denominator must be the
    trained model's own numbers); returns how far the rollout engine's were: mean and max absolute gap."""
    from train.grpo_loss import token_logprobs

    gaps = []
    for b in batches:
        mlx_lp = np.asarray(token_logprobs(model, b), dtype=np.float32)
        gaps.append(np.abs(mlx_lp - b.old_logprobs))
        b.old_logprobs = mlx_lp
    gap = np.concatenate(gaps) if gaps else np.zeros(0)
    return {"sampler_logprob_gap_mean": float(gap.mean()) if gap.size else 0.0,
            "sampler_logprob_gap_max": float(gap.max()) if gap.size else 0.0}
