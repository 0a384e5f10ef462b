"""Benchmark: generation speed of the embedded model through llama-cpp-python and MLX, against the memory floor,
and a GRPO group of rollouts generated as one MLX batch against the same rollouts one after another.

Run (by hand, about 3-5 minutes on 2 cores; writes bench/results/generation.json and generation.config.json):
    .venv/bin/python bench/generation.py
    .venv/bin/python bench/generation.py --new-tokens 128 --group 8 --group-tokens 96

What is measured, all in one run on the same prompt (the agent's system prompt, both tool specs and a task):
    single stream   per backend: prefill time (fresh context, 1 new token), then greedy decode of --new-tokens
                    tokens with end-of-turn ignored, decode tokens/s = (n - 1) / (total - prefill)
    floor           weight bytes read per generated token (every tensor once; the tied embedding is read whole
                    for the output projection) over the measured copy bandwidth (numpy copy of a 256 MiB array,
                    read + write bytes over the best of 5): the most tokens/s memory traffic allows
    group           --group rollouts of the task at temperature 1: MLXBackend.complete_batch (one batch) against
                    --group MLXBackend.complete calls (prompt cache reused, as the agent loop does); end-of-turn
                    is ignored on both sides so every row writes --group-tokens tokens (equal work: sampled rows
                    that stop early would shrink the batch by chance); the ratio compares tokens/s and wall time,
                    and decode alone (each side's prompt pass, timed with 1 new token, taken away). Real GRPO
                    groups, whose rows do stop early, are measured by bench/grpo_rollouts.py.

Left out: GPU/Metal (this machine is a Linux CPU), prompt lengths other than the agent's first turn.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import nanoagent  # noqa: E402  (OpenBLAS before mlx)
import numpy as np  # noqa: E402
from nanoagent import config as layered  # noqa: E402
from nanoagent.machine import machine_info  # noqa: E402


@dataclass
class GenerationBenchConfig:
    new_tokens: int = 200       # single-stream greedy decode length
    group: int = 8              # GRPO group size
    group_tokens: int = 128     # max new tokens per rollout
    temperature: float = 1.0    # rollouts
    seed: int = 0
    copy_mib: int = 256
    threads: int = 0            # llama.cpp threads; 0 = all cores
    out: str = "bench/results/generation.json"


def machine() -> dict:
    return {**machine_info(), "load_average_start": os.getloadavg()}


def copy_bandwidth(mib: int, repeats: int = 5) -> float:
    """Bytes per second moved (read + write) by numpy copying a `mib` MiB array; best of `repeats`."""
    src = np.ones(mib * 2**20 // 8, dtype=np.float64)
    dst = np.empty_like(src)
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        np.copyto(dst, src)
        best = min(best, time.perf_counter() - t)
    return 2 * src.nbytes / best


def gguf_weight_bytes(path) -> int:
    from gguf import GGUFReader

    return int(sum(int(t.n_bytes) for t in GGUFReader(str(path)).tensors))


def mlx_weight_bytes(model) -> int:
    from mlx.utils import tree_flatten

    return int(sum(v.nbytes for _, v in tree_flatten(model.parameters())))


def task_prompt():
    from nanoagent.agent.loop import SYSTEM_PROMPT
    from nanoagent.agent.tools import TOOLS

    messages = [{"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": "The function `mean` in stats.py crashes on an empty list. Make it "
                                            "return 0.0 instead and run the tests."}]
    return messages, TOOLS


class NoStop:
    """Context: a backend whose stop-token list is empty, so greedy decode runs the full length."""

    def __init__(self, backend):
        self.backend, self.saved = backend, backend.stop_ids

    def __enter__(self):
        self.backend.stop_ids = []

    def __exit__(self, *exc):
        self.backend.stop_ids = self.saved


def single_stream(backend, reset, messages, tools, n: int) -> dict:
    reset()
    first = backend.complete(messages, tools, max_tokens=1, temperature=0.0, seed=0)
    reset()
    with NoStop(backend):
        full = backend.complete(messages, tools, max_tokens=n, temperature=0.0, seed=0)
    decode_s = full.seconds - first.seconds
    return {"prompt_tokens": full.prompt_tokens, "new_tokens": full.completion_tokens,
            "prefill_s": round(first.seconds, 4), "prefill_tokens_per_s": round(full.prompt_tokens / first.seconds, 1),
            "total_s": round(full.seconds, 4),
            "decode_tokens_per_s": round((full.completion_tokens - 1) / decode_s, 2)}


def main(argv=None) -> int:
    cfg = layered.load(GenerationBenchConfig, argv, description=__doc__.split("\n\n")[0])
    out = ROOT / cfg.out
    layered.save_resolved(cfg, out.with_name(out.stem + ".config.json"))

    from nanoagent.agent.backends.llamacpp import LlamaCppBackend, embedded_gguf
    from nanoagent.agent.backends.mlx_backend import MLXBackend

    result = {"machine": machine(), "config": dataclasses.asdict(cfg)}
    messages, tools = task_prompt()

    print("copy bandwidth ...", flush=True)
    bw = copy_bandwidth(cfg.copy_mib)
    result["copy_bandwidth_GBps"] = round(bw / 1e9, 2)

    print("llama-cpp-python (Q4_1 GGUF) ...", flush=True)
    gguf = embedded_gguf()
    llama = LlamaCppBackend(gguf, n_ctx=2048, n_threads=cfg.threads or None)
    lb = gguf_weight_bytes(gguf)
    r = single_stream(llama, llama.llm.reset, messages, tools, cfg.new_tokens)
    r.update(weight_bytes_per_token=lb, floor_tokens_per_s=round(bw / lb, 1))
    r["fraction_of_floor"] = round(r["decode_tokens_per_s"] / r["floor_tokens_per_s"], 3)
    result["llama_cpp"] = r
    llama.close()
    print(json.dumps(r), flush=True)

    print("MLX (float32, embedded) ...", flush=True)
    mlx_backend = MLXBackend.from_spec("embedded")
    mb = mlx_weight_bytes(mlx_backend.model)

    def reset_mlx():
        mlx_backend._cache, mlx_backend._cache_ids = None, []

    r = single_stream(mlx_backend, reset_mlx, messages, tools, cfg.new_tokens)
    r.update(weight_bytes_per_token=mb, floor_tokens_per_s=round(bw / mb, 1))
    r["fraction_of_floor"] = round(r["decode_tokens_per_s"] / r["floor_tokens_per_s"], 3)
    result["mlx"] = r
    print(json.dumps(r), flush=True)
    result["llama_cpp_over_mlx_decode"] = round(result["llama_cpp"]["decode_tokens_per_s"] / r["decode_tokens_per_s"],
                                                2)

    print(f"MLX group of {cfg.group}: prefill alone (1 new token) ...", flush=True)
    reset_mlx()
    seq_prefill_s = mlx_backend.complete(messages, tools, max_tokens=1, temperature=cfg.temperature,
                                         seed=cfg.seed).seconds
    t = time.perf_counter()
    mlx_backend.complete_batch([messages] * cfg.group, tools, max_tokens=1, temperature=cfg.temperature, seed=cfg.seed)
    bat_prefill_s = time.perf_counter() - t
    print(f"MLX group of {cfg.group}: sequential ...", flush=True)
    reset_mlx()
    t = time.perf_counter()
    with NoStop(mlx_backend):
        seq = [mlx_backend.complete(messages, tools, max_tokens=cfg.group_tokens, temperature=cfg.temperature,
                                    seed=cfg.seed + i) for i in range(cfg.group)]
    seq_s = time.perf_counter() - t
    print(f"MLX group of {cfg.group}: one batch ...", flush=True)
    t = time.perf_counter()
    with NoStop(mlx_backend):
        bat = mlx_backend.complete_batch([messages] * cfg.group, tools, max_tokens=cfg.group_tokens,
                                         temperature=cfg.temperature, seed=cfg.seed)
    bat_s = time.perf_counter() - t
    seq_tokens = sum(c.completion_tokens for c in seq)
    bat_tokens = sum(c.completion_tokens for c in bat)
    group = {"sequential_s": round(seq_s, 2), "sequential_tokens": seq_tokens,
             "sequential_tokens_per_s": round(seq_tokens / seq_s, 2),
             "batched_s": round(bat_s, 2), "batched_tokens": bat_tokens,
             "batched_tokens_per_s": round(bat_tokens / bat_s, 2),
             "batched_row_lengths": [c.completion_tokens for c in bat],
             "sequential_row_lengths": [c.completion_tokens for c in seq]}
    group["speedup_tokens_per_s"] = round(group["batched_tokens_per_s"] / group["sequential_tokens_per_s"], 2)
    group["speedup_wall"] = round(seq_s / bat_s, 2)
    # decode only: take away one prompt pass from each side (sequential reuses its prompt cache after the first call;
    # the batch prefills the shared prompt once) and the first token of each row, which comes with the prefill
    group.update(sequential_prefill_s=round(seq_prefill_s, 2), batched_prefill_s=round(bat_prefill_s, 2))
    seq_decode = (seq_tokens - cfg.group) / (seq_s - seq_prefill_s)
    bat_decode = (bat_tokens - cfg.group) / (bat_s - bat_prefill_s)
    group.update(sequential_decode_tokens_per_s=round(seq_decode, 2), batched_decode_tokens_per_s=round(bat_decode, 2),
                 speedup_decode=round(bat_decode / seq_decode, 2))
    group["target_speedup"] = 4.0
    result["mlx_group"] = group
    print(json.dumps(group), flush=True)

    result["load_average_at_end"] = os.getloadavg() if hasattr(os, "getloadavg") else None
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
