"""GRPO's llama.cpp rollout engine (`rollout_engine: llamacpp`): the policy, synced into llama.cpp every step.

MLX trains; llama.cpp generates, the way vLLM serves the policy in RL recipes for larger models. Before each
step's rollouts `sync` puts the current policy into the llama.cpp backend, whose `complete_batch` generates a
group in one multi-sequence context (nanoagent/agent/backends/llamacpp_batch.py):
- a LoRA policy, `lora_sync="in_place"` (the default): the GGUF (F16 by default) is written and loaded once; each
  sync writes the LoRA layers' fused weights over their stored bytes in that same file (`overwrite_tensors`).
  llama.cpp maps the file shared, so it decodes with them at once: no reload, and no adapter matmuls in every
  decode (bench/grpo_rollouts.py measures both). Where llama.cpp does not read its weights from the mapping
  (`weights_follow_file` is checked at start) the engine says so and syncs as an adapter instead;
- a LoRA policy, `lora_sync="adapter"`: base weights written once; each sync writes only the LoRA update as a
  llama.cpp adapter (float32, `nanoagent.gguf_writer.write_lora_gguf`, a few MB) and applies it (`set_lora`);
- any other policy (full fine-tuning, DoRA) or a Q8_0 copy: the whole model is written (LoRA fused) and reloaded
  each sync (a Q8_0 copy keeps the adapter for LoRA: its bytes can't be overwritten as floats).
The copy lives in RAM (a private folder in /dev/shm, removed on close) where there is room, so the rewrites never
reach the disk; else in the run's engine folder. The sampled ids are exact; the log-probs the ratio needs are then
recomputed by MLX on those ids (`relogprob`), and how far llama.cpp's own log-probs were from them is logged
(`sampler_logprob_gap_mean`, `_max`): F16 weights and llama.cpp's kernels are not MLX's float32.

    engine = LlamaCppRollouts(model, tokenizer, config, folder=run_dir / "engine")
    engine.sync(model)                     # before rollouts whenever an update made it `stale`; returns seconds
    groups = ... engine.backend ...        # any rollout code that takes a backend
    gap = relogprob(model, batches)        # MLX log-probs into the batches; returns the gap statistics

In the LoRA modes the base weights must not change between syncs (LoRA training freezes them).
Left out: asynchronous rollouts while the update runs.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np


LORA_SYNCS = ("in_place", "adapter")


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


MEMORY_ROOT = Path("/dev/shm")  # Linux's RAM-backed folder: the copy's rewrites never reach the disk


def engine_folder(folder: Path, need: int) -> tuple[Path, bool]:
    """Where the llama.cpp copy lives: a private folder in MEMORY_ROOT when it has room for twice `need` bytes (each
    sync rewrites the copy, which in a disk folder the kernel writes back: about 200 MB a step for the 135M model),
    else `folder`. Returns (folder, in memory). Folders left there by runs that died are removed first."""
    if MEMORY_ROOT.is_dir() and os.access(MEMORY_ROOT, os.W_OK):
        for old in MEMORY_ROOT.glob("nanoagent-grpo-*"):
            pid = old.name.split("-")[2]
            if pid.isdigit() and not Path(f"/proc/{pid}").exists():
                shutil.rmtree(old, ignore_errors=True)
        if shutil.disk_usage(MEMORY_ROOT).free >= 2 * need:
            return Path(tempfile.mkdtemp(prefix=f"nanoagent-grpo-{os.getpid()}-", dir=MEMORY_ROOT)), True
    folder.mkdir(parents=True, exist_ok=True)
    return folder, False


def gguf_bytes(model, qtype: str) -> int:
    """About how large the model's GGUF copy is (weights only)."""
    from mlx.utils import tree_flatten

    per = {"f32": 4, "f16": 2, "q8_0": 1.1}[qtype]
    return int(sum(v.size for _, v in tree_flatten(model.parameters())) * per)


class LlamaCppRollouts:
    """A llama.cpp backend over a GGUF copy of an MLX policy, kept in memory where there is room (engine_folder),
    else in `folder`."""

    def __init__(self, model, tokenizer, config: dict, folder: str | Path, qtype: str = "f16",
                 threads: int | None = None, top_p: float = 1.0, n_ctx: int = 8192, lora_sync: str = "in_place",
                 prompt_format=None):
        from nanoagent.gguf_writer import check_type, lora_layers

        if lora_sync not in LORA_SYNCS:
            raise ValueError(f"lora_sync must be one of {', '.join(LORA_SYNCS)}, got {lora_sync!r}")
        self.tokenizer, self.config, self.qtype = tokenizer, dict(config), check_type(qtype)
        self.folder, self.in_memory = engine_folder(Path(folder), gguf_bytes(model, self.qtype))
        layers = lora_layers(model).values()
        self.mode, self.fallback = "weights", None  # fallback: why in_place became adapter, if it did
        if layers and not any(hasattr(m, "m") for m in layers):
            self.mode = lora_sync
            if lora_sync == "in_place" and self.qtype == "q8_0":
                self.mode = "adapter"
                self.fallback = "a Q8_0 copy can't be overwritten as floats, so the LoRA policy syncs as an adapter"
        self.path = self.folder / f"policy-{self.qtype}.gguf"
        self.adapter_path = self.folder / "policy-lora.gguf"
        self.backend = None
        self.prompt_format = prompt_format  # the policy's (None: standard); the copy records it, the backend reads it
        self.options = dict(n_ctx=n_ctx, n_threads=threads, top_p=top_p)
        self.syncs, self.sync_seconds = 0, 0.0
        self.stale = True  # the trainer sets it after every update; rollouts first sync a stale copy
        try:
            self.sync(model)
        except BaseException:  # no half-made copy left in memory
            self.close()
            raise

    def sync(self, model) -> float:
        """Put the policy's current weights into llama.cpp (module docstring); returns the seconds it took."""
        from nanoagent.agent.backends.llamacpp import LlamaCppBackend
        from nanoagent.gguf_writer import lora_adapters, model_weights, write_gguf, write_lora_gguf

        t = time.perf_counter()
        if self.backend is None or self.mode == "weights":
            fuse = self.mode != "adapter"  # in place: the first copy is the policy itself
            write_gguf(model_weights(model, fuse=fuse), self.config, self.tokenizer, self.path, self.qtype,
                       name="grpo-policy", progress=False, prompt_format=self.prompt_format)
            if self.backend is None:
                self.backend = LlamaCppBackend(self.path, tokenizer=self.tokenizer, **self.options)
                if self.mode == "in_place" and not self.backend.weights_follow_file(self.probe_ids()):
                    self.fallback = ("llama.cpp here does not read its weights from the GGUF's mapping (GPU layers, "
                                     "repacked weights or no mmap), so the LoRA policy syncs as an adapter")
                    self.mode = "adapter"
                    write_gguf(model_weights(model, fuse=False), self.config, self.tokenizer, self.path,
                               self.qtype, name="grpo-policy", progress=False, prompt_format=self.prompt_format)
                    self.backend.reload(self.path)
            else:
                self.backend.reload(self.path)
        elif self.mode == "in_place":
            self.backend.overwrite_tensors(fused_lora_tensors(model, self.config, self.qtype))
        if self.mode == "adapter":
            write_lora_gguf(lora_adapters(model), self.config, self.adapter_path)
            self.backend.set_lora(self.adapter_path)
        seconds = time.perf_counter() - t
        self.stale = False
        self.syncs += 1
        self.sync_seconds += seconds
        return seconds

    def probe_ids(self) -> list[int]:
        return list(self.tokenizer.encode("The policy's weights, synced: 1, 2, 3, go.", add_special_tokens=False))

    def close(self) -> None:
        if self.backend is not None:
            self.backend.close()
            self.backend = None
        if self.in_memory:
            shutil.rmtree(self.folder, ignore_errors=True)


def fused_lora_tensors(model, config: dict, qtype: str = "f32") -> dict[str, np.ndarray]:
    """Each LoRA layer's fused weight (W + scale * B A) under its GGUF name, Q/K rows in llama.cpp's rope order,
    as `qtype` (f16 or f32): what an in-place sync writes over the stored weights. One MLX graph for all layers."""
    import mlx.core as mx

    from nanoagent.gguf_writer import gguf_name, lora_layers, rope_order

    dtype = {"f16": mx.float16, "f32": mx.float32}[qtype]
    fused = {}
    for name, layer in lora_layers(model).items():
        w = mx.addmm(layer.linear.weight.astype(mx.float32), layer.lora_b.T, layer.lora_a.T, alpha=layer.scale)
        fused[gguf_name(f"{name}.weight")] = rope_order(w, f"{name}.weight", config).astype(dtype)
    mx.eval(list(fused.values()))
    return {k: np.asarray(v) for k, v in fused.items()}


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
