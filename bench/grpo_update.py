"""Benchmark: one GRPO update on real tool-call groups, each group's prompt run once against every row whole.

    .venv/bin/python -m bench.grpo_update                              # embedded model, 4 tasks x G=4, LoRA rank 8
    .venv/bin/python -m bench.grpo_update --model runs/quality-cpu-callfirst/model --tasks 6 --repeats 3

A group's rollouts share their prompt (the tools and the request: most of a tool-call row), so
train.grpo_loss.make_batches puts one group's samples in a micro-batch and runs that prompt once
(`share_prompts=True`, the default). The peer is the path before it in the same run: the same samples in order,
every row whole (`share_prompts=False`). Both time what a step of `train.grpo` with the llama.cpp engine does after
its rollouts: MLX's log-probs on the sampled ids (relogprob), `inner_steps` forward and backward passes with the
optimiser step, and the clip-fraction pass. The rollouts are real: a seeded sample of `--tasks` tool-call tasks
from the validation split (`--source`, as `train.grpo --toolcall-tasks`), `--group-size` replies each from the MLX
backend at temperature 1 (untimed), advantages forced to alternate +1/-1 so every rollout is in the loss.
Reports seconds per update for both, their ratio, the tokens each pass reads and the largest gap between the two
paths' log-probs. Writes bench/results/grpo_update.json.
"""

from __future__ import annotations

import argparse
import os
import random
import time
from types import SimpleNamespace

import nanoagent  # noqa: F401  (OpenBLAS before mlx)


def rollouts(backend, tasks, cfg, seed: int) -> list:
    """Loss samples of every task's group, advantages alternating +1/-1."""
    from train.grpo_loss import completion_sample
    from train.grpo_toolcall import rollout_toolcall_group

    samples = []
    for k, task in enumerate(tasks):
        completions, error = rollout_toolcall_group(backend, task, cfg, seed + k)
        if error:
            raise SystemExit(f"error: rollouts of task {task.id} failed: {error}")
        for i, c in enumerate(completions):
            samples.append(completion_sample(c.prompt_ids, c.completion_ids, c.logprobs, 1.0 if i % 2 else -1.0,
                                             rollout=len(samples)))
    return samples


def timed_update(model, apply_update, samples, cfg, share: bool, repeats: int) -> dict:
    import mlx.core as mx
    import numpy as np

    from train.grpo import update
    from train.grpo_engine import relogprob
    from train.grpo_loss import make_batches, token_logprobs

    batches = make_batches(samples, cfg.micro_batch, share_prompts=share)
    logprobs = np.concatenate([np.asarray(token_logprobs(model, b)) for b in batches])
    params = model.trainable_parameters()  # arrays are immutable: these stay the starting weights
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        relogprob(model, batches)
        update(model, apply_update, batches, cfg)
        times.append(time.perf_counter() - t)
        model.update(params)  # every repeat from the same weights
        mx.eval(model.parameters())
    rows_read = sum(b.inputs.size + (0 if b.prefix is None else len(b.prefix)) for b in batches)
    return {"seconds": [round(x, 3) for x in times], "best_s": round(min(times), 3), "micro_batches": len(batches),
            "tokens_read_per_pass": int(rows_read), "_logprobs": logprobs}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="embedded")
    ap.add_argument("--source", default="valid", help="tool-call tasks, as train.grpo --toolcall-tasks")
    ap.add_argument("--tasks", type=int, default=4, help="groups in the update (a seeded sample)")
    ap.add_argument("--group-size", type=int, default=4)
    ap.add_argument("--max-tokens", type=int, default=192, help="per reply")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="grpo_update", help="result name under bench/results/")
    args = ap.parse_args(argv)
    load_start = list(os.getloadavg())

    import numpy as np

    from bench.machine import write_result
    from nanoagent.agent.backends.mlx_backend import MLXBackend
    from nanoagent.models import load
    from nanoagent.prompt_format import stored_format
    from train.grpo_config import GRPOConfig, check
    from train.grpo_toolcall import load_toolcall_tasks
    from train.trainer import build_optimizer, compiled_update
    from train.tuning import prepare

    cfg = check(GRPOConfig(model=args.model, group_size=args.group_size, toolcall_max_tokens=args.max_tokens,
                           inner_steps=1, micro_batch=args.group_size, task_mix={"toolcall": 1.0}, progress=False))
    pool = load_toolcall_tasks(args.source)
    tasks = random.Random(args.seed).sample(pool, min(args.tasks, len(pool)))
    model, tok = load(args.model)
    samples = rollouts(MLXBackend(model, tok, prompt_format=stored_format(args.model)), tasks, cfg, args.seed)
    prepare(model, cfg)
    apply_update = compiled_update(model, build_optimizer(SimpleNamespace(**{**vars(cfg), "steps": 100})),
                                   cfg.grad_clip)
    whole = timed_update(model, apply_update, samples, cfg, share=False, repeats=args.repeats)
    shared = timed_update(model, apply_update, samples, cfg, share=True, repeats=args.repeats)
    gap = float(np.abs(whole.pop("_logprobs") - shared.pop("_logprobs")).max())
    result = {"load_average_at_start": load_start, "load_average_at_end": list(os.getloadavg()),
              "config": {**vars(args), "fine_tune": cfg.fine_tune, "lora_rank": cfg.lora_rank,
                         "micro_batch": cfg.micro_batch, "inner_steps": cfg.inner_steps},
              "tasks": [t.id for t in tasks], "sequences": len(samples),
              "prompt_tokens": [len(s.ids) - sum(s.mask) for s in samples[::args.group_size]],
              "reply_tokens": [sum(s.mask) for s in samples],
              "whole_rows": whole, "shared_prompts": shared,
              "speedup": round(whole["best_s"] / shared["best_s"], 3), "max_logprob_gap": gap}
    print({k: v for k, v in result.items() if k not in ("reply_tokens",)}, flush=True)
    print(write_result(args.out, result))


if __name__ == "__main__":
    main()
