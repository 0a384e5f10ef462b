"""`python -m train.grpo`: GRPO in MLX on two task families: single-turn tool-call tasks from our own data, and
repo-local coding tasks with the two-tool agent in the loop.

    python -m train.grpo                                   # newest DFT run's model (else embedded), both families
    python -m train.grpo --steps 3 --group-size 2 --tasks-per-step 1 --run-dir runs/grpo-try
    python -m train.grpo --task-mix toolcall=1,coding=0 --toolcall-tasks data/mine/valid.jsonl
    python -m train.grpo --config grpo.yaml --loss dr_grpo --beta 0.02 --eval-n 9
    python -m train.grpo --run-dir runs/grpo-try           # again after a kill: resumes from the last checkpoint

Order, so bad input fails before any rollout: config (unknown keys, group size < 2, weights not numbers, unknown
task families or reward parts) -> task sets of the families in the mix (malformed or empty; a tool-call task whose
expected call breaks its own tools' schemas is named; data/default/valid.jsonl is built first when missing, as
train.dft does) -> model (a clear error when it can't be loaded) -> optional held-out coding evaluation -> LoRA ->
steps. Each step: pick `tasks_per_step` groups, each one family's task, the family drawn by `task_mix` (a pure
function of seed and step, so resume continues the same stream); roll out `group_size` per task: for a tool-call
task one sampled reply each, batched (train/grpo_toolcall.py, rewards nanoagent.tasks.toolcall_rewards), for a
coding task an agent run each (train/grpo_rollout.py, rewards nanoagent.tasks.rewards); group-normalised
advantages, then `inner_steps` optimiser steps on the clipped objective (train/grpo_loss.py) against the log-probs
recorded at sampling time. Groups whose rewards are all equal are left out of the update and counted; the loss
averages over the rollouts that carry signal.

The run folder: config.yaml (resolved), metrics.jsonl (one line per step: reward mean/std; per family in the mix
its groups, zero-advantage share, reward mean and every reward part's mean/std as reward_FAMILY_PART_mean/_std,
None when the family had no group that step; the coding valid-call and test pass rates; tokens generated, rollout
and update seconds, zero-advantage share, crashed rollouts (reward 0), loss, clip fraction),
trajectories/step_NNNNNNN.jsonl (one line per rollout with its family, rewards and advantage: a coding rollout's
turns and diff, a tool-call rollout's reply, expected calls and eval's verdict kind), checkpoints/, eval.json
(before/after on held-out coding tasks when --eval-n > 0), grpo.png, summary.json, model/ (fused, loadable by
mlx_lm.load and export).
With `val_n` > 0, that many tool-call tasks are held out of the pool (a seeded sample) and answered greedily before
the first step, every `val_every` steps and after the last (train/grpo_toolcall.validate): a `val` line in
metrics.jsonl, the per-item outcomes in val/step_NNNNNNN.json, and with `keep_best` the best-scoring policy's
weights in best/, which become model/ (the start model's own score included: a run that only made things worse
hands back its start).
Left out: multi-process data parallelism, rollouts on a separate inference server.
"""

from __future__ import annotations

import json
import random
import shutil
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import nanoagent  # noqa: F401  (OpenBLAS before mlx)

from train.config import ConfigError
from train.grpo_config import FAMILIES, GRPOConfig, load_grpo_config, resume_settings
from train.grpo_engine import LlamaCppRollouts, engine_for, relogprob
from nanoagent import config as layered
from nanoagent.atomic import write_json
from nanoagent.stats import mean, std
from nanoagent.tasks.toolcall_rewards import no_call_expected


def is_dft_run(run: Path) -> bool:
    """A train.dft run folder: named dft-* (its default) or with a config.yaml whose `loss` is dft or sft."""
    if run.name.startswith("dft-"):
        return True
    try:
        import yaml

        data = yaml.safe_load((run / "config.yaml").read_text())
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("loss") in ("dft", "sft")


def newest_dft_model(root: str | Path = "runs") -> Path | None:
    """The final model of the newest finished DFT/SFT run under `root` (a model/ folder with config.json)."""
    found = [p for p in Path(root).glob("*/model") if (p / "config.json").is_file() and is_dft_run(p.parent)]
    return max(found, key=lambda p: p.stat().st_mtime) if found else None


def resolve_model_spec(cfg: GRPOConfig) -> str:
    if cfg.model:
        return cfg.model
    newest = newest_dft_model()
    return str(newest) if newest else "embedded"


def pick_groups(pools: dict[str, list], mix: dict[str, float], k: int, seed: int, step: int,
                no_call_share: float | None = None) -> list[tuple]:
    """`k` (family, task) pairs for one step: each slot's family drawn by the `mix` weights (families without tasks
    left out), then distinct tasks within each family. A pure function of (seed, step), so a resumed run continues
    the same stream; with a single family it draws exactly what the coding-only trainer drew. With `no_call_share`,
    each tool-call slot is a task that expects no call with that probability (else one that expects calls)."""
    rng = random.Random(seed * 1_000_003 + step)
    names = [f for f, w in mix.items() if w > 0 and pools.get(f)]
    if len(names) == 1:
        counts = {names[0]: k}
    else:
        drawn = rng.choices(names, weights=[mix[f] for f in names], k=k)
        counts = {f: drawn.count(f) for f in names}
    draws = {f: [(pools[f], counts[f])] for f in names}  # per family: (pool, how many tasks from it)
    if no_call_share is not None and counts.get("toolcall"):
        none = [t for t in pools["toolcall"] if no_call_expected(t)]
        calls = [t for t in pools["toolcall"] if not no_call_expected(t)]
        if none and calls:
            n_none = sum(rng.random() < no_call_share for _ in range(counts["toolcall"]))
            draws["toolcall"] = [(none, n_none), (calls, counts["toolcall"] - n_none)]
    return [(f, task) for f in names for pool, n in draws[f] if n for task in rng.sample(pool, min(n, len(pool)))]


def update(model, apply_update, batches, cfg, ref_model=None) -> dict:
    """`inner_steps` optimiser steps on the batch; gradients of micro-batches add up (weights are global), then
    `apply_update` (train.trainer.compiled_update: clip and AdamW in one compiled function) takes the step."""
    import mlx.core as mx
    import mlx.nn as nn
    import numpy as np
    from mlx.utils import tree_map

    from nanoagent.numpy_ops import training_kernels, using_numpy_ops
    from nanoagent.packed_attention import using_packed_rows
    from train.grpo_loss import clip_fraction, grpo_loss, token_logprobs

    kl = []  # the policy's k3 KL to the reference at sampling time, per loss token (what the beta term holds down)
    if ref_model is not None and cfg.beta:
        for b in batches:
            b.ref_logprobs = np.asarray(token_logprobs(ref_model, b))
            d = b.ref_logprobs - b.old_logprobs
            kl.append((float(np.mean(np.exp(d) - d - 1.0)) if d.size else 0.0, b.n_tokens))
    # attention in query blocks (train.losses.hidden_states), kept in place for checkpointing's backward too
    loss_and_grad = using_packed_rows(nn.value_and_grad(model, lambda m, b: grpo_loss(m, b, cfg.clip_eps, cfg.beta)))
    kernels = training_kernels(False, cfg.native_ops)  # the compiled exp-family kernels where built (numpy_ops.py)
    if kernels:
        loss_and_grad = using_numpy_ops(loss_and_grad, kernels)
    losses, norms, clips = [], [], []
    for _ in range(cfg.inner_steps):
        grads, total = None, mx.array(0.0)
        for b in batches:
            value, g = loss_and_grad(model, b)
            grads = g if grads is None else tree_map(mx.add, grads, g)
            total = total + value
            mx.eval(grads, total)
        norm = apply_update(grads, mx.array(1.0))  # the loss is already a weighted sum: nothing to divide by
        mx.eval(model.parameters(), norm)
        losses.append(total.item())
        norms.append(norm.item())
    for b in batches:  # how far the policy moved from the sampling policy after this batch's updates
        clips.append((clip_fraction(token_logprobs(model, b), b, cfg.clip_eps), b.n_tokens))
    n = sum(w for _, w in clips) or 1
    return {"loss": losses[0], "loss_last": losses[-1], "grad_norm": norms[0],
            "clip_fraction": sum(c * w for c, w in clips) / n,
            **({"kl_to_ref": sum(k * w for k, w in kl) / (sum(w for _, w in kl) or 1)} if kl else {})}


def family_metrics(groups, cfg) -> dict:
    """Per family in the mix: groups this step, their zero-advantage share, total reward and each reward part
    (mean and std over the family's rollouts); None where the family had no group this step, so every line of
    metrics.jsonl has the same keys."""
    from nanoagent.tasks.rewards import REWARDS
    from nanoagent.tasks.toolcall_rewards import PARTS

    names = {"coding": list(REWARDS), "toolcall": list(PARTS)}
    out = {}
    for family in (f for f in FAMILIES if cfg.task_mix.get(f)):
        gs = [g for g in groups if g.family == family]
        totals = [x for g in gs for x in g.totals]
        out[f"{family}_groups"] = len(gs)
        if family == "toolcall":
            out["toolcall_no_call_groups"] = sum(g.no_call for g in gs)
        out[f"{family}_zero_adv_share"] = sum(g.zero for g in gs) / len(gs) if gs else None
        out[f"reward_{family}_mean"] = mean(totals)
        for part in names[family]:
            vals = [x for g in gs for x in g.parts.get(part, [])]
            out[f"reward_{family}_{part}_mean"], out[f"reward_{family}_{part}_std"] = mean(vals), std(vals)
    return out


def train_step(step, model, optimizer, apply_update, backend, pools, cfg, run_dir, ref_model=None,
               engine=None) -> dict:
    """One step: pick the groups (pick_groups), roll out and score each by its family, save the rollouts, update.
    With a llama.cpp `engine` (train/grpo_engine.py) the policy is synced into it first and generates the
    rollouts; MLX then recomputes their log-probs."""
    from train.grpo_loss import make_batches
    from train.grpo_rollout import coding_group
    from train.grpo_toolcall import toolcall_group

    sync_s = engine.sync(model) if engine is not None and engine.stale else 0.0  # fresh: written at start
    if engine is not None:
        backend = engine.backend
    t0 = time.perf_counter()
    groups = []
    picks = pick_groups(pools, cfg.task_mix, cfg.tasks_per_step, cfg.seed, step, cfg.no_call_share)
    for gi, (family, task) in enumerate(picks):
        run_group = coding_group if family == "coding" else toolcall_group
        groups.append(run_group(backend, task, cfg, seed=cfg.seed * 1_000_003 + step * 101 + gi,
                                first_rollout=sum(len(g.records) for g in groups)))
    samples = [s for g in groups for s in g.samples]
    rollout_s = time.perf_counter() - t0
    if cfg.save_trajectories:
        folder = Path(run_dir) / "trajectories"
        folder.mkdir(parents=True, exist_ok=True)
        with (folder / f"step_{step + 1:07d}.jsonl").open("w") as f:
            for rec in (r for g in groups for r in g.records):
                f.write(json.dumps(rec, ensure_ascii=False) + "\n")
    t1 = time.perf_counter()
    upd = {"loss": 0.0, "loss_last": 0.0, "grad_norm": 0.0, "clip_fraction": 0.0, "skipped_update": True}
    if samples:
        budget = max(cfg.max_turns * cfg.max_tokens_per_turn if cfg.task_mix.get("coding") else 0,
                     cfg.toolcall_max_tokens if cfg.task_mix.get("toolcall") else 0)
        # a group's prompt once per micro-batch, but whole rows under gradient checkpointing (train.losses)
        batches = make_batches(samples, cfg.micro_batch, "sequence" if cfg.loss == "grpo" else "constant", budget,
                               share_prompts=not cfg.grad_checkpoint)
        gap = relogprob(model, batches) if engine is not None else {}
        upd = {**update(model, apply_update, batches, cfg, ref_model), "skipped_update": False, **gap}
        if engine is not None:
            engine.stale = True  # the policy moved: sync before the next rollouts
    update_s = time.perf_counter() - t1
    totals = [x for g in groups for x in g.totals]
    coding = [g for g in groups if g.family == "coding"]
    tokens = sum(g.tokens for g in groups)
    zero_groups = sum(g.zero for g in groups)
    return {"step": step + 1, "reward_mean": mean(totals) or 0.0, "reward_std": std(totals) or 0.0,
            **family_metrics(groups, cfg),
            # the coding family's rates (None on a step without a coding group)
            "valid_call_rate": mean([x for g in coding for x in g.parts["valid_calls"]]),
            "test_pass_rate": mean([x for g in coding for x in g.parts["tests"]]),
            "tokens_generated": tokens, "rollout_s": round(rollout_s, 3), "update_s": round(update_s, 3),
            "sync_s": round(sync_s, 3),
            "rollout_tokens_per_s": tokens / max(rollout_s, 1e-9), "zero_adv_groups": zero_groups,
            "zero_adv_share": zero_groups / max(len(groups), 1), "crashed_rollouts": sum(g.crashed for g in groups),
            "group_errors": sum(g.errors for g in groups),
            "truncated_dropped": sum(g.truncated_dropped for g in groups),
            "loss_tokens": int(sum(sum(s.mask) for s in samples)), "lr": float(optimizer.learning_rate), **upd}


def policy_backend(model, tokenizer, cfg: GRPOConfig, spec: str, fmt=None):
    """The MLX backend over the trained model, prompting in its format `fmt`. It keeps no prompt cache between
    requests: the weights change under it, and a kept cache would hold an older policy's keys and values
    (complete_batch builds fresh ones anyway)."""
    from nanoagent.agent.backends.mlx_backend import MLXBackend

    return MLXBackend(model, tokenizer, top_p=cfg.top_p, name=f"mlx:{spec}", reuse_prompt_cache=False,
                      prompt_format=fmt)


def validate_step(backend, model, tasks, cfg: GRPOConfig, run_dir: Path, step: int) -> dict:
    """Score the policy on the held-out tool-call tasks, keep the per-item outcomes in val/, and with keep_best save
    its weights to best/ when it beats the best so far; returns the metrics line (`best`: True when it did)."""
    from train.checkpoint import best_state, save_best
    from train.grpo_toolcall import validate

    result = validate(backend, tasks, cfg)
    info = {"step": step, **result["metrics"]}
    write_json(Path(run_dir) / "val" / f"step_{step:07d}.json", {"step": step, **result})
    if cfg.keep_best:
        best = best_state(run_dir)
        if best is None or step == 0 or info["val_score"] > best.get("val_score", float("-inf")):
            save_best(run_dir, model, {"step": step, "val_score": info["val_score"]})  # step 0: a new run's start
            info["best"] = True
    return info


def reset_validation(run_dir: Path, metrics, step: int) -> bool:
    """Before the first step of this session: a new run (step 0) drops an earlier run's best/ and val/; a resumed one
    drops best weights saved after the checkpoint it resumes from (that training is undone), with the validation
    line of the resumed step. Returns True when that step must be validated again."""
    from train.checkpoint import best_state

    if step == 0:
        for old in ("best", "val"):
            shutil.rmtree(run_dir / old, ignore_errors=True)
        return False
    best = best_state(run_dir) or {}
    if best.get("step", 0) <= step:
        return False
    print(f"the best weights in {run_dir / 'best'} are from step {best['step']}, after the checkpoint this run "
          f"resumes from (step {step}): they are dropped, and step {step} is validated again", flush=True)
    shutil.rmtree(run_dir / "best")
    metrics.keep(lambda r: not (r.get("kind") == "val" and r.get("step") == step))
    return True


def load_pools(cfg: GRPOConfig) -> dict[str, list]:
    """Each family's tasks, for the families the mix uses; TaskError for a bad or empty source, before any model."""
    from nanoagent.tasks import load_tasks
    from train.grpo_toolcall import load_toolcall_tasks

    pools = {}
    if cfg.task_mix.get("coding"):  # first: cheap, while the tool-call default may build the data (minutes)
        pools["coding"] = load_tasks(cfg.tasks)
    if cfg.task_mix.get("toolcall"):
        pools["toolcall"] = load_toolcall_tasks(cfg.toolcall_tasks)
    return {name: pools[name] for name in ("toolcall", "coding") if name in pools}


def run(cfg: GRPOConfig) -> dict:
    import mlx.core as mx

    from nanoagent.models import load, resolve_model_path
    from nanoagent.prompt_format import stored_format
    from nanoagent.tasks import load_tasks
    from train.checkpoint import fingerprint, load_best, load_checkpoint, save_checkpoint
    from train.grpo_report import GRPOReporter
    from train.grpo_rollout import evaluate_policy
    from train.grpo_toolcall import hold_out
    from train.trainer import TrainState, build_optimizer, compiled_update, method_of
    from train.tuning import prepare, save_final

    pools = load_pools(cfg)  # TaskError before any model loads
    val_tasks = []
    if cfg.val_n:
        pools["toolcall"], val_tasks = hold_out(pools["toolcall"], cfg.val_n, cfg.seed)
    eval_tasks = load_tasks(cfg.eval_tasks)[:cfg.eval_n] if cfg.eval_n else []
    run_dir = Path(cfg.run_dir or Path("runs") / time.strftime("grpo-%Y%m%d-%H%M%S"))
    cfg.run_dir = str(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    spec = cfg.model = resolve_model_spec(cfg)  # saved resolved: a resume continues from the same model
    sources = {"toolcall": cfg.toolcall_tasks, "coding": cfg.tasks}
    mix = ", ".join(f"{f} {cfg.task_mix[f]:g}: {len(p)} tasks ({sources[f]})" for f, p in pools.items())
    print(f"model {spec}; task mix {mix}; run folder {run_dir}", flush=True)
    if val_tasks:
        kinds = sum(map(no_call_expected, val_tasks))
        print(f"validation: {len(val_tasks)} held-out tool-call tasks ({kinds} expect no call), every "
              f"{cfg.val_every} steps{'; the best becomes the final model' if cfg.keep_best else ''}", flush=True)
    model, tokenizer = load(spec)
    base_folder = resolve_model_path(spec)
    fmt = stored_format(spec)  # the start model's prompt format: rollouts use it, the final model keeps it
    ref_model = None
    if cfg.beta > 0:
        ref_model, _ = load(spec)
        ref_model.freeze()
    backend = policy_backend(model, tokenizer, cfg, spec, fmt)
    eval_path = run_dir / "eval.json"
    try:
        evals = json.loads(eval_path.read_text()) if eval_path.exists() else {}
    except ValueError:  # written atomically now; a damaged one from elsewhere is measured again
        print(f"warning: {eval_path} is not readable JSON; the before/after evaluation runs again", flush=True)
        evals = {}

    def evaluate_as(when: str) -> None:
        print(f"evaluating the {'starting' if when == 'before' else 'trained'} model on {len(eval_tasks)} "
              f"{cfg.eval_tasks} tasks ...", flush=True)
        e = evals[when] = evaluate_policy(backend, eval_tasks, cfg, cfg.seed)
        write_json(eval_path, evals)
        print(f"  {when}: pass {e['test_pass_rate']:.3f}, valid calls {e['valid_call_rate']:.3f}", flush=True)

    if eval_tasks and "before" not in evals:
        evaluate_as("before")

    mx.random.seed(cfg.seed)
    n_trainable = prepare(model, cfg)
    total_updates = cfg.steps * cfg.inner_steps
    optimizer = build_optimizer(SimpleNamespace(**{**vars(cfg), "steps": total_updates}))
    fp = fingerprint(model, method_of(cfg))
    step, restored = 0, None
    if cfg.resume:
        restored = load_checkpoint(run_dir, model, optimizer, fp)
        if restored:
            step = restored["step"]
            print(f"resumed at step {step} from {restored['path']}", flush=True)
    apply_update = compiled_update(model, optimizer, cfg.grad_clip)  # after a resume replaced the optimizer state
    model_config = json.loads((base_folder / "config.json").read_text())
    engine, (engine_name, why) = None, engine_for(cfg.rollout_engine, model_config)
    if cfg.rollout_engine == "auto":
        print(f"rollouts by {engine_name} ({why}; --rollout-engine chooses)", flush=True)
    if engine_name == "llamacpp":  # the policy as of now (a resume's weights included) goes to llama.cpp
        engine = LlamaCppRollouts(model, tokenizer, model_config, run_dir / "engine", cfg.engine_gguf_type,
                                  top_p=cfg.top_p, lora_sync=cfg.engine_lora_sync, prompt_format=fmt)
        if engine.fallback:
            print(f"rollout engine: {engine.fallback}", flush=True)
        each = {"in_place": "the LoRA layers' fused weights written over it", "adapter": "the LoRA adapter",
                "weights": "the whole model written and loaded"}[engine.mode]
        print(f"rollout engine: llama.cpp on {engine.path} ({engine.sync_seconds:.1f} s to write and load; before "
              f"every step, {each})", flush=True)
    cfg.extra = {**cfg.extra, "model_spec": spec, "base_model_folder": str(base_folder), "rollouts_by": engine_name,
                 **({"rollout_sync": engine.mode} if engine is not None else {}),
                 "trainable_parameters": n_trainable, "training_tasks": {f: len(p) for f, p in pools.items()}}
    layered.save_resolved(cfg, run_dir / "config.yaml")
    reporter = GRPOReporter(run_dir, cfg.steps, show=cfg.progress)
    # drops the lines of steps a killed run did after its last checkpoint
    reporter.on_start(TrainState(step=step, resumed_from=restored["path"] if restored else None))
    revalidate = reset_validation(run_dir, reporter.log, step) and bool(val_tasks)
    rollout_s = update_s = 0.0

    def validation(at: int) -> None:
        if engine is not None and engine.stale:
            engine.sync(model)
        model.eval()  # no LoRA dropout in greedy answers
        try:
            val = validate_step(engine.backend if engine is not None else backend, model, val_tasks, cfg, run_dir, at)
        finally:
            model.train()
        reporter.on_eval(val)

    try:
        if val_tasks and (step == 0 or revalidate):
            validation(step)
        while step < cfg.steps:
            info = train_step(step, model, optimizer, apply_update, backend, pools, cfg, run_dir, ref_model, engine)
            step += 1
            rollout_s += info["rollout_s"]
            update_s += info["update_s"]
            reporter.on_step(info)
            if val_tasks and (step % cfg.val_every == 0 or step == cfg.steps):
                validation(step)  # before the checkpoint: a resume from it does not repeat a missed one
            if cfg.save_every and (step % cfg.save_every == 0 or step == cfg.steps):
                path = save_checkpoint(run_dir, model, optimizer, {"step": step}, fp, keep=cfg.keep_checkpoints)
                reporter.on_checkpoint({"step": step, "path": str(path)})
    finally:
        if engine is not None:  # a copy of the policy for rollouts only (model/ below is the result), even on a kill
            engine.close()
            for f in engine.folder.glob("*.gguf*"):
                f.unlink(missing_ok=True)
    reporter.on_end(None)
    best = load_best(run_dir, model) if val_tasks and cfg.keep_best else None
    if best:
        last = "the last step" if best["step"] == step else f"not those of the last, step {step}"
        print(f"final model: the weights of step {best['step']} (best validation, balanced accuracy "
              f"{best['val_score']:.3f}; {last})", flush=True)
    if eval_tasks:
        evaluate_as("after")
    final = save_final(model, tokenizer, base_folder, run_dir / "model", cfg, fmt)
    if cfg.plot:
        from train.grpo_report import plot

        plot(reporter.log.path, run_dir / "grpo.png")
    summary = {"steps": step, "model": str(final), "start_model": spec, "rollout_s_this_session": round(rollout_s, 2),
               "update_s_this_session": round(update_s, 2),
               "rollout_share": rollout_s / max(rollout_s + update_s, 1e-9),
               **({"best_step": best["step"], "best_val_score": best["val_score"]} if best else {}),
               "eval_before": {k: v for k, v in evals.get("before", {}).items() if k != "rows"} or None,
               "eval_after": {k: v for k, v in evals.get("after", {}).items() if k != "rows"} or None}
    write_json(run_dir / "summary.json", summary)
    print(json.dumps(summary, indent=2))
    return summary


def main(argv: list[str] | None = None) -> int:
    from nanoagent.models import ModelLoadError
    from nanoagent.tasks import TaskError
    from train.checkpoint import CheckpointError
    from train.data import DataError

    try:
        run(resume_settings(load_grpo_config(argv), argv))
    except (ConfigError, TaskError, DataError, ModelLoadError, CheckpointError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
