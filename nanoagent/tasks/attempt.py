"""The agent on a task: `n` runs, each on a fresh copy of the task's repo, the copies always removed afterwards.
eval.coding (judging each run) and GRPO's coding rollouts (rewarding them) both start here.

    trajs = attempt(backend, task, AgentConfig(max_turns=6))              # one run
    trajs = attempt(backend, task, config, n=8, meta={"step": 3})         # a group, batched when the backend can
    trajs = attempt(backend, task, config, paths=["t0.json", "t1.json"])  # each trajectory saved as it goes

Every trajectory's meta names the task (`task`); runs of a group are numbered (`rollout`).

    rows = run_task(backend, task, evaluate, config, samples=4)           # runs judged: one row each
    config = agent_config(stage_cfg, wall_time=60)                        # budgets from a stage's config

`run_task` is the one agent-on-a-task evaluation: eval.coding reports its rows, GRPO's held-out policy eval
(train/grpo_rollout.evaluate_policy) scores them as its rewards would.
"""

from __future__ import annotations

from pathlib import Path

from nanoagent.agent.loop import AgentConfig, run_agent, run_agents
from nanoagent.agent.sandbox import Workspace


BUDGETS = ("max_turns", "max_tokens_per_turn", "context_limit", "token_budget", "wall_time", "command_timeout",
           "temperature", "seed")


def agent_config(cfg, **changes) -> AgentConfig:
    """The agent's settings for a task run: the budgets a stage's config holds under AgentConfig's names (BUDGETS),
    then `changes`; the diff is taken once at the end (these runs are judged on it, not watched)."""
    return AgentConfig(**{**{k: getattr(cfg, k) for k in BUDGETS if hasattr(cfg, k)}, "diff_every_step": False,
                          **changes})


def attempt(backend, task, config: AgentConfig, n: int = 1, paths: list[str | Path] | None = None,
            meta: dict | None = None) -> list:
    """`n` agent runs on `task` (the Trajectory objects); a failure of the backend or the workspace raises."""
    n = len(paths) if paths else n
    meta = {"task": task.id, **(meta or {})}
    spaces = []
    try:
        spaces = [Workspace(task.repo) for _ in range(n)]
        if n == 1:
            if paths:
                config.trajectory_path = str(paths[0])
            return [run_agent(backend, spaces[0], task.statement, config, meta=meta)]
        return run_agents(backend, spaces, task.statement, config, paths=paths, meta=meta)
    finally:
        for ws in spaces:
            ws.close()


def run_task(backend, task, evaluate, config, samples: int = 1, traj_dir: str | Path | None = None) -> list[dict]:
    """`samples` agent runs on one task, each judged by `evaluate(task, trajectory)`; one row per run."""
    from nanoagent.tasks.rewards import turn_validity

    paths = [Path(traj_dir) / f"{task.id}.{i}.json" for i in range(samples)] if traj_dir else None
    trajs = attempt(backend, task, config, n=samples, paths=paths)
    rows = []
    for i, traj in enumerate(trajs):
        valid_turns, counted_turns = turn_validity(traj)
        try:
            outcome = evaluate(task, traj)
            success = bool(outcome.success)
            detail = outcome.to_dict() if hasattr(outcome, "to_dict") else {}
        except Exception as e:  # a judge failure is recorded on the row, never a crash of the whole eval
            success, detail = False, {"error": f"evaluate failed: {type(e).__name__}: {e}"}
        rows.append({"task": task.id, "sample": i, "success": success, "exit_status": traj.exit_status,
                     "exit_message": traj.exit_message[:300], "turns": len(traj.steps),
                     "valid_call_turns": valid_turns, "counted_turns": counted_turns,
                     "completion_tokens": traj.tokens["completion"], "prompt_tokens": traj.tokens["prompt"],
                     "seconds": traj.seconds, "diff_lines": len(traj.diff.splitlines()),
                     "error": (detail.get("error") or "")[:300], "patch_applied": detail.get("patch_applied")})
    return rows
