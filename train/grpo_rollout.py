"""Rollouts for GRPO's coding family: a group of G agent runs per task through the real loop and sandbox, then
their rewards, and the `Group` both task families hand to the trainer.

    trajs, error = rollout_group(backend, task, cfg, seed)      # G Trajectory objects (None for a crashed one)
    scored = score_group(trajs, task, cfg.rewards)              # totals, components, outcomes
    group = coding_group(backend, task, cfg, seed)              # both, plus advantages, log records, loss samples
    summary = evaluate_policy(backend, tasks, cfg)              # greedy, one rollout per task: valid calls, passes

Each rollout gets a fresh copy of the task's repo (nanoagent.tasks.attempt, which eval.coding uses too); the group
runs in lockstep through `nanoagent.agent.loop.run_agents`, which generates the group's turns as one batch with the MLX backend's
`complete_batch` (exact sampled ids and log-probs kept on every step). A group that raises (workspace or backend
failure) yields None trajectories; a rollout that crashed or ran out of wall time scores 0 on every reward. Both
are counted in the logs, and the run goes on.

Left out: rollouts of different tasks in one batch (a group is one task), asynchronous rollout workers.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from nanoagent.agent.loop import AgentConfig, ExitStatus
from nanoagent.tasks.attempt import agent_config as settings_from, attempt, run_task
from nanoagent.tasks.evaluate import check_tests_ran, evaluate
from nanoagent.tasks.rewards import REWARDS, combine

FAILED = (ExitStatus.BACKEND_ERROR.value, ExitStatus.TIMEOUT.value, ExitStatus.INTERRUPTED.value)


def agent_config(cfg, seed: int | None, greedy: bool = False) -> AgentConfig:
    return settings_from(cfg, token_budget=cfg.max_turns * cfg.max_tokens_per_turn, wall_time=cfg.rollout_wall_time,
                         temperature=0.0 if greedy else cfg.temperature, seed=seed)


def rollout_group(backend, task, cfg, seed: int):
    """cfg.group_size sampled rollouts of one task; returns (trajectories or Nones, error text or '')."""
    try:
        return attempt(backend, task, agent_config(cfg, seed), n=cfg.group_size), ""
    except Exception as e:  # never let one group end the run
        return [None] * cfg.group_size, f"{type(e).__name__}: {e}"


def score_group(trajs, task, weights: dict) -> dict:
    """Rewards of one group: totals with the configured weights, and every component for the logs."""
    alive = [t if t is not None and t.exit_status not in FAILED else None for t in trajs]
    outcomes = [evaluate(task, t) if t is not None else None for t in alive]
    for outcome in outcomes:  # tests that cannot run would score every rollout 0: stop with the cause instead
        check_tests_ran(outcome)
    _, parts = combine(alive, [task] * len(alive), {name: 1.0 for name in REWARDS}, outcomes=outcomes)
    totals = [sum(weights.get(n, 0.0) * parts[n][i] for n in parts) for i in range(len(alive))]
    return {"totals": totals, "parts": parts, "outcomes": outcomes,
            "crashed": sum(1 for t in alive if t is None)}


@dataclass
class Group:
    """One task's scored rollouts, as train.grpo logs, saves and trains on them (either family)."""
    family: str                              # "coding" | "toolcall"
    totals: list[float]
    parts: dict[str, list[float]]            # every reward part, per rollout
    zero: bool                               # all rewards equal: no signal, left out of the update
    records: list[dict] = field(default_factory=list)   # one per rollout, for trajectories/step_NNNNNNN.jsonl
    samples: list = field(default_factory=list)         # train.grpo_loss.Sample objects for the update
    crashed: int = 0
    errors: int = 0
    truncated_dropped: int = 0
    tokens: int = 0                          # tokens generated
    no_call: bool = False                    # a tool-call task that expects no call

    def keep(self, samples: list, mask_truncated: bool) -> None:
        """Add a rollout's samples to the loss, unless it was cut at max_tokens and mask_truncated says drop it."""
        if mask_truncated and samples and samples[0].truncated:
            self.truncated_dropped += 1
        else:
            self.samples += samples


def compact(traj) -> dict:
    """A trajectory without its token ids (they are large); replies, tool results and the diff stay."""
    d = traj.to_dict()
    for s in d["steps"]:
        for key in ("prompt_ids", "completion_ids", "logprobs", "mask"):
            s.pop(key, None)
    return d


def coding_group(backend, task, cfg, seed: int, first_rollout: int = 0) -> Group:
    """Roll out, score and turn one coding task's group into loss samples; `first_rollout` numbers its rollouts
    within the step (a rollout split into per-turn samples still counts once in the loss)."""
    from train.grpo_loss import group_advantages, trajectory_samples

    trajs, error = rollout_group(backend, task, cfg, seed=seed)
    scored = score_group(trajs, task, cfg.rewards)
    adv, zero = group_advantages(scored["totals"], scale_std=cfg.loss == "grpo")
    g = Group("coding", scored["totals"], scored["parts"], zero, crashed=scored["crashed"], errors=int(bool(error)))
    for i, traj in enumerate(trajs):
        rec = {"family": "coding", "task": task.id, "rollout": i, "reward": scored["totals"][i], "advantage": adv[i],
               "parts": {n: v[i] for n, v in scored["parts"].items()}, "error": error}
        if traj is not None:
            g.tokens += traj.tokens["completion"]
            rec["outcome"] = scored["outcomes"][i].to_dict() if scored["outcomes"][i] else None
            rec["trajectory"] = compact(traj)
            if not zero and adv[i] != 0.0:
                try:
                    g.keep(trajectory_samples(traj, adv[i], rollout=first_rollout + i), cfg.mask_truncated)
                except ValueError as e:  # no ids/log-probs: logged, left out of the loss
                    rec["error"] = rec["error"] or str(e)
                    g.errors += 1
        g.records.append(rec)
    return g


def evaluate_policy(backend, tasks, cfg, seed: int = 0) -> dict:
    """Greedy single rollouts on `tasks` (nanoagent.tasks.attempt.run_task, as eval.coding runs them), scored as
    the rewards score them: a run that crashed or ran out of time passes nothing and makes no valid call."""
    rows = []
    start = time.perf_counter()
    for task in tasks:
        try:
            run = run_task(backend, task, evaluate, agent_config(cfg, seed, greedy=True))[0]
        except Exception as e:  # never let one task end the run
            run = {"exit_status": "crashed", "turns": 0, "error": f"{type(e).__name__}: {e}"}
        ok = run["exit_status"] not in (*FAILED, "crashed")
        rows.append({"task": task.id, "passed": float(ok and run["success"]),
                     "valid_calls": run["valid_call_turns"] / run["counted_turns"] if ok and run["counted_turns"]
                     else 0.0, "turns": run["turns"], "exit_status": run["exit_status"], "error": run["error"]})
    n = max(len(rows), 1)
    return {"tasks": len(rows), "test_pass_rate": sum(r["passed"] for r in rows) / n,
            "valid_call_rate": sum(r["valid_calls"] for r in rows) / n,
            "seconds": round(time.perf_counter() - start, 2), "rows": rows}
