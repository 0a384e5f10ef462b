"""The agent on a task: `n` runs, each on a fresh copy of the task's repo, the copies always removed afterwards.
eval.coding (judging each run) and GRPO's coding rollouts (rewarding them) both start here.

    trajs = attempt(backend, task, AgentConfig(max_turns=6))              # one run
    trajs = attempt(backend, task, config, n=8, meta={"step": 3})         # a group, batched when the backend can
    trajs = attempt(backend, task, config, paths=["t0.json", "t1.json"])  # each trajectory saved as it goes

Every trajectory's meta names the task (`task`); runs of a group are numbered (`rollout`).
"""

from __future__ import annotations

from pathlib import Path

from nanoagent.agent.loop import AgentConfig, run_agent, run_agents
from nanoagent.agent.sandbox import Workspace


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
