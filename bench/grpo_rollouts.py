"""Benchmark: GRPO rollout throughput, batched groups vs sequential generation, and rollout vs update time share.

    .venv/bin/python -m bench.grpo_rollouts                       # embedded model, 1 task, G=4, 1 turn x 64 tokens
    .venv/bin/python -m bench.grpo_rollouts --model runs/x/model --group-size 8 --max-tokens 128 --steps 2
    .venv/bin/python -m bench.grpo_rollouts --group-size 8 --max-tokens 128 --engine-type q8_0 --generation-only \
        --out grpo_rollouts_q8_0
    .venv/bin/python -m bench.grpo_rollouts --group-size 8 --max-tokens 128 --generation-only --repeats 5 \
        --out grpo_rollouts_repeats                              # medians of 5 alternating rounds
    .venv/bin/python -m bench.grpo_rollouts --group-size 8 --max-tokens 128 --generation-only --repeats 5 \
        --lora-sync both --out grpo_rollouts_sync_modes          # in-place and adapter sync, same rounds

Part 1 runs the same group of G rollouts (one agent turn each, temperature 1, same seed) three times through
`run_agents`: with the MLX backend's `complete_batch` (one batch), with a wrapper that only offers `complete` (one
conversation after another), and through the llama.cpp rollout engine (`rollout_engine: llamacpp`,
train/grpo_engine.py: the policy synced, timed, then the group in one multi-sequence batch), with the gap between
its log-probs and MLX's on the same ids. The engine holds the policy a run's does: with `fine_tune: lora` (the
default) a LoRA model with B moved off zero, synced as a run's default does (its LoRA layers' fused weights written
over the loaded GGUF; `--lora-sync adapter`: a llama.cpp adapter); the MLX batch runs the plain model,
which generates faster than one with LoRA layers, so the ratio errs in MLX's favour. Tokens/s counts generated
tokens over the generation wall time.
`--repeats N` times the MLX batch and the llama.cpp group N times each, alternating, and compares their medians:
on one 2-core EPYC, MLX's batch moved from 31 to 41 tokens/s between runs of the same command, enough to move the
ratio from 3.2x to 2.1x.
Part 2 runs `--steps` real GRPO steps (`train.grpo.train_step`, LoRA) and reports the share of wall time spent
in rollouts (generation + sandbox + test runs) against updates. The base model's groups usually all score 0 (no
signal, so no update); part 3 therefore times one update on part 1's group with advantages forced to +1/-1, and
the share is also given with that update time. Writes bench/results/grpo_rollouts.json.
Left out: multi-turn rollouts (turn count varies with the sampled text, which makes the comparison noisy).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from types import SimpleNamespace


import nanoagent  # noqa: F401


class SequentialOnly:
    """The same backend without complete_batch, so run_agents generates one conversation at a time."""

    def __init__(self, backend):
        self.backend = backend

    def complete(self, *a, **k):
        return self.backend.complete(*a, **k)


def timed_group(backend, task, cfg, seed):
    from nanoagent.agent.loop import run_agents
    from nanoagent.agent.sandbox import Workspace
    from train.grpo_rollout import agent_config

    wss = [Workspace(task.repo) for _ in range(cfg.group_size)]
    try:
        t = time.perf_counter()
        trajs = run_agents(backend, wss, task.statement, agent_config(cfg, seed))
        wall = time.perf_counter() - t
    finally:
        for w in wss:
            w.close()
    model_s = sum(s.timings.get("model_s", 0) for tr in trajs for s in tr.steps)
    tokens = sum(tr.tokens["completion"] for tr in trajs)
    return {"wall_s": round(wall, 3), "generation_s": round(model_s, 3), "tokens": tokens,
            "tokens_per_s": tokens / max(model_s, 1e-9), "exit": [tr.exit_status for tr in trajs]}, trajs


def run_policy(args, cfg):
    """The policy a run's engine holds: a fresh copy of the model, with LoRA as `cfg` says (its B moved away from
    zero, seeded, as after some updates), so the engine syncs the way a run does (an adapter, or whole weights)."""
    import mlx.core as mx
    import numpy as np

    from nanoagent.gguf_writer import lora_layers
    from nanoagent.models import load
    from train.tuning import prepare

    model, _ = load(args.model)
    prepare(model, cfg)
    rng = np.random.default_rng(0)
    for layer in lora_layers(model).values():
        layer.lora_b = mx.array(rng.normal(0, 0.01, layer.lora_b.shape).astype(np.float32))
    mx.eval(model.parameters())
    return model


def llamacpp_engines(model, tok, task, cfg, args, between=None) -> dict:
    """The same group through the llama.cpp rollout engine (train/grpo_engine.py) on `model` (run_policy), once per
    LoRA sync mode asked for (`--lora-sync`; `both`: in_place and adapter, two engines over copies of the same
    policy): one sync timed (a run pays it every step), then the group in one multi-sequence batch; and how far its
    log-probs are from MLX's on the same ids. With `--repeats N` each engine's group is timed N times, round by
    round, `between()` (the MLX batch's next timing) running before each round after the first, so every engine
    and MLX see the machine's same moments; with two modes, who goes first alternates by round. Returns {mode: part}."""
    import json

    from nanoagent.models import resolve_model_path
    from train.grpo_engine import LlamaCppRollouts

    config = json.loads((resolve_model_path(args.model) / "config.json").read_text())
    modes = ["in_place", "adapter"] if args.lora_sync == "both" else [args.lora_sync]
    parts, trajs, rounds, engines = {}, {}, {m: [] for m in modes}, {}
    with tempfile.TemporaryDirectory() as d:
        try:
            for m in modes:
                engines[m] = LlamaCppRollouts(model, tok, config, f"{d}/{m}", args.engine_type, lora_sync=m)
                sync_s = engines[m].sync(model)  # the second one: caches warm, as in a run's later steps
                timed_group(engines[m].backend, task, SimpleNamespace(**{**vars(cfg), "group_size": 1,
                                                                         "max_tokens_per_turn": 4}), 0)
                parts[m] = {"sync_mode": engines[m].mode, "sync_s": round(sync_s, 3)}
            for r in range(args.repeats):
                if r:
                    between()
                for m in modes if r % 2 == 0 else modes[::-1]:  # alternate who goes first: no position bias
                    part, trajs[m] = timed_group(engines[m].backend, task, cfg, seed=1)
                    rounds[m].append(part["tokens_per_s"])
                    if r == 0:  # the first round's record, with the sync's
                        parts[m] = {**part, **parts[m]}
        finally:
            for e in engines.values():
                e.close()
    for m in modes:
        part = parts[m]
        with_rounds(part, rounds[m])
        gap = logprob_gaps(model, trajs[m])
        seconds = part["tokens"] / part["tokens_per_s"]
        part.update(gguf_type=args.engine_type,
                    tokens_per_s_with_one_sync=part["tokens"] / (seconds + part["sync_s"]),
                    logprob_gap_to_mlx_mean=float(gap.mean()) if gap.size else None,
                    logprob_gap_to_mlx_max=float(gap.max()) if gap.size else None)
        print(f"llama.cpp engine ({m} sync)", part, flush=True)
    return parts


def logprob_gaps(model, trajs):
    """|llama.cpp's log-prob - MLX's| of every sampled token, MLX recomputing on the same ids."""
    import mlx.core as mx
    import numpy as np

    gaps = []
    for tr in trajs:
        for st in tr.steps:
            if st.completion_ids:
                ids = st.prompt_ids + st.completion_ids
                logits = model(mx.array([ids[:-1]]))[0].astype(mx.float32)
                lp = logits - mx.logsumexp(logits, axis=-1, keepdims=True)
                n = len(st.prompt_ids)
                ours = np.array([lp[n - 1 + i, t].item() for i, t in enumerate(st.completion_ids)])
                gaps.append(np.abs(ours - np.array(st.logprobs)))
    return np.concatenate(gaps) if gaps else np.zeros(0)


def with_rounds(part: dict, rounds: list[float]) -> None:
    """Record every round's tokens/s; `tokens_per_s` becomes their median when there is more than one."""
    if len(rounds) > 1:
        part["tokens_per_s_first"], part["tokens_per_s_rounds"] = part["tokens_per_s"], rounds
        part["tokens_per_s"] = float(statistics.median(rounds))


def common(args, cfg, load_start) -> dict:
    return {"load_average_at_end": os.getloadavg() if hasattr(os, "getloadavg") else None,
            "load_average_at_start": load_start,
            "config": {"model": args.model, "task": args.task, "group_size": cfg.group_size, "max_turns": 1,
                       "max_tokens_per_turn": args.max_tokens, "temperature": cfg.temperature, "steps": args.steps,
                       "inner_steps": cfg.inner_steps, "fine_tune": cfg.fine_tune, "lora_rank": cfg.lora_rank,
                       "engine_gguf_type": args.engine_type, "engine_lora_sync": args.lora_sync,
                       "repeats": args.repeats}}


def per_round(batched: dict, engine_part: dict) -> dict:
    """Each round's llama.cpp / MLX ratio (round i of each ran back to back) and their median."""
    ratios = [e / max(b, 1e-9) for e, b in zip(engine_part.get("tokens_per_s_rounds", []),
                                                batched.get("tokens_per_s_rounds", []))]
    return {"llamacpp_over_mlx_batched_per_round": ratios or None,
            "llamacpp_over_mlx_batched_median_round": float(statistics.median(ratios)) if ratios else None}


def engine_ratios(batched: dict, sequential: dict, engine_parts: dict) -> dict:
    """The first sync mode's engine and ratios at the top level (the file's long-standing keys); with `--lora-sync
    both`, the other mode's under `other_sync_modes`."""
    def ratios(part):
        return {"llamacpp_over_mlx_batched_tokens_per_s": part["tokens_per_s"] / max(batched["tokens_per_s"], 1e-9),
                **per_round(batched, part),
                "llamacpp_over_mlx_batched_with_sync": part["tokens_per_s_with_one_sync"] /
                max(batched["tokens_per_s"], 1e-9)}

    (_, part), *others = engine_parts.items()
    out = {"batched_over_sequential_tokens_per_s": batched["tokens_per_s"] / max(sequential["tokens_per_s"], 1e-9),
           "llamacpp_engine": part, **ratios(part)}
    if others:
        out["other_sync_modes"] = {m: {"llamacpp_engine": p, **ratios(p)} for m, p in others}
    return out


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="embedded")
    ap.add_argument("--task", default="strings_slugify")
    ap.add_argument("--group-size", type=int, default=4)
    ap.add_argument("--max-tokens", type=int, default=64)
    ap.add_argument("--steps", type=int, default=1)
    ap.add_argument("--engine-type", default="f16", help="the llama.cpp engine's GGUF type (f16, f32, q8_0)")
    ap.add_argument("--lora-sync", default="in_place", choices=("in_place", "adapter", "both"),
                    help="how the engine syncs the LoRA policy (train/grpo_engine.py); both: one engine each, timed "
                         "round by round beside the same MLX rounds")
    ap.add_argument("--out", default="grpo_rollouts", help="result name under bench/results/")
    ap.add_argument("--generation-only", action="store_true", help="part 1 only (no GRPO steps, no forced update)")
    ap.add_argument("--repeats", type=int, default=1,
                    help="time the MLX batch and the llama.cpp engine this many times each, alternating, and compare "
                         "medians (the sequential baseline runs once)")
    args = ap.parse_args(argv)
    load_start = os.getloadavg() if hasattr(os, "getloadavg") else None

    from bench.machine import write_result
    from nanoagent.agent.backends.mlx_backend import MLXBackend
    from nanoagent.models import load
    from nanoagent.prompt_format import stored_format
    from nanoagent.tasks import load_tasks
    from train.grpo import train_step
    from train.grpo_config import GRPOConfig, check
    from train.trainer import build_optimizer, compiled_update
    from train.tuning import prepare

    cfg = check(GRPOConfig(model=args.model, group_size=args.group_size, max_turns=1, tasks_per_step=1,
                           max_tokens_per_turn=args.max_tokens, save_trajectories=False, progress=False,
                           task_mix={"coding": 1.0}))
    task = next(t for t in load_tasks("coding") if t.id == args.task)
    model, tok = load(args.model)
    backend = MLXBackend(model, tok, prompt_format=stored_format(args.model))
    timed_group(backend, task, SimpleNamespace(**{**vars(cfg), "group_size": 1, "max_tokens_per_turn": 4}), 0)
    batched, trajs = timed_group(backend, task, cfg, seed=1)
    sequential, _ = timed_group(SequentialOnly(backend), task, cfg, seed=1)
    print("batched", batched, "\nsequential", sequential, flush=True)
    if args.repeats < 1:
        raise SystemExit(f"--repeats must be at least 1, got {args.repeats}")
    mlx_rounds = [batched["tokens_per_s"]]
    engine_parts = llamacpp_engines(
        run_policy(args, cfg), tok, task, cfg, args,
        between=lambda: mlx_rounds.append(timed_group(backend, task, cfg, seed=1)[0]["tokens_per_s"]))
    with_rounds(batched, mlx_rounds)
    if args.generation_only:
        write_result(args.out, {**common(args, cfg, load_start), "batched": batched, "sequential": sequential,
                                **engine_ratios(batched, sequential, engine_parts)})
        return

    prepare(model, cfg)
    optimizer = build_optimizer(SimpleNamespace(**{**vars(cfg), "steps": args.steps * cfg.inner_steps}))
    apply_update = compiled_update(model, optimizer, cfg.grad_clip)
    steps = []
    with tempfile.TemporaryDirectory() as d:
        for s in range(args.steps):
            info = train_step(s, model, optimizer, apply_update, backend, {"coding": [task]}, cfg, d)
            steps.append({k: info[k] for k in ("rollout_s", "update_s", "tokens_generated", "loss_tokens",
                                               "zero_adv_share", "reward_mean", "valid_call_rate", "test_pass_rate",
                                               "skipped_update")})
            print(steps[-1], flush=True)
    # Part 3: the update alone on part 1's batched group with advantages forced to +1/-1 (the base model's real
    # groups usually carry no signal, so part 2 may skip its update).
    from train.grpo import update
    from train.grpo_loss import make_batches, trajectory_samples

    samples = [s for i, tr in enumerate(trajs) for s in trajectory_samples(tr, 1.0 if i % 2 else -1.0, rollout=i)]
    batches = make_batches(samples, cfg.micro_batch)
    t = time.perf_counter()
    upd = update(model, apply_update, batches, cfg)
    forced = {"update_s": round(time.perf_counter() - t, 3), "inner_steps": cfg.inner_steps,
              "sequences": len(samples), "tokens_in": sum(len(s.ids) for s in samples),
              "loss_tokens": sum(sum(s.mask) for s in samples), **upd}
    print("forced update", forced, flush=True)
    r_s, u_s = sum(x["rollout_s"] for x in steps), sum(x["update_s"] for x in steps)
    write_result(args.out, {
        **common(args, cfg, load_start), "batched": batched, "sequential": sequential,
        **engine_ratios(batched, sequential, engine_parts),
        "grpo_steps": steps, "rollout_share_of_step_time": r_s / max(r_s + u_s, 1e-9),
        "forced_signal_update": forced,
        "rollout_share_with_forced_update": r_s / max(r_s + forced["update_s"] * args.steps, 1e-9)})


if __name__ == "__main__":
    main()
