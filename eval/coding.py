"""Coding-task eval: the two-tool agent on repo-local tasks with fixed budgets, judged by the shared `evaluate`.

Run:
    python -m eval.coding --model embedded-gguf --tasks held-out --limit 5
    python -m eval.coding --model runs/grpo-1 --tasks humaneval:20 --samples 4 --temperature 0.7
    python -m eval.coding --model embedded --tasks path/to/task_folders --max-turns 6

`--tasks` is anything `nanoagent.tasks.load_tasks` takes (held-out, train, coding, humaneval, humaneval:N, a
folder). Each task runs `--samples` times in a fresh sandboxed copy of its repo (nanoagent.agent.loop.run_agent;
several samples of one task run in lockstep, batched on the MLX and llama.cpp backends, one seeded generator per
batch so the samples differ); `nanoagent.tasks.evaluate` applies the final diff to a clean copy and runs the
task's tests. Reported: resolved rate (share of all runs that succeed,
with a 95% bootstrap interval), pass@k for k = 1 and k = samples (unbiased estimator over the samples), the valid-call
rate (mean over runs of the share of turns that are a schema-valid call of an offered tool: GRPO's `valid_calls`
reward, except that GRPO scores a run that ended in a backend error, a timeout or an interruption 0, where this
counts the turns it made), mean turns, mean generated tokens, exit statuses, tasks per second; per run: exit
status, success, turns, valid-call turns, tokens, the outcome's error. One versioned JSON result file per run in
eval/results/ (eval/results.py).

Left out: saving whole trajectories (pass --trajectories DIR to keep them), parallel workers.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass, field

import nanoagent  # noqa: F401  (OpenBLAS before mlx)
from eval.config import ConfigError, EvalConfig, load_eval_backend
from eval.results import label_for, new_run, save_run
from nanoagent import config as layered
from nanoagent.stats import BOOTSTRAP_SAMPLES, bootstrap_ci, mean, pass_at_k
from nanoagent.suites import SuiteError, pick
from nanoagent.tasks.attempt import agent_config, run_task
from nanoagent.tasks.evaluate import TestsCannotRun, check_tests_ran


@dataclass
class CodingConfig(EvalConfig):
    tasks: str = field(default="held-out", metadata={"help": "held-out | train | humaneval[:N] | PATH"})
    samples: int = field(default=1, metadata={"help": "runs per task (pass@k needs k samples and temperature > 0)"})
    max_turns: int = field(default=8, metadata={"help": "model calls per run"})
    max_tokens_per_turn: int = field(default=256, metadata={"help": "new tokens per model call"})
    token_budget: int = field(default=4096, metadata={"help": "a run stops when its generated tokens reach this"})
    context_limit: int = field(default=8192, metadata={"help": "a run stops when prompt + reply of a call reach "
                                                               "this many tokens"})
    wall_time: float = field(default=300.0, metadata={"help": "seconds per run"})
    command_timeout: float = field(default=20.0, metadata={"help": "seconds per shell command"})
    trajectories: str | None = field(default=None, metadata={"help": "folder to save each run's trajectory in"})


def check_config(cfg: CodingConfig) -> None:
    if cfg.limit is not None and cfg.limit < 1:
        raise ConfigError(f"limit must be >= 1 (or left out for every task), got {cfg.limit}")
    if cfg.samples < 1:
        raise ConfigError(f"samples must be >= 1, got {cfg.samples}")
    if cfg.samples > 1 and cfg.temperature <= 0:
        raise ConfigError(f"--samples {cfg.samples} with temperature {cfg.temperature} gives identical greedy runs: "
                          "pass --temperature 0.7 (or another value > 0)")
    if cfg.max_turns < 1 or cfg.max_tokens_per_turn < 1:
        raise ConfigError("max_turns and max_tokens_per_turn must be >= 1")


def split_already_passing(tasks: list, evaluate) -> tuple[list, list]:
    """(tasks to run, tasks whose tests already pass on the untouched repo): the latter would count as resolved
    whatever the agent did. TestsCannotRun when a task's tests cannot run there at all (a missing interpreter, a
    sandbox failure), naming the task and the cause."""
    keep, passing = [], []
    for task in tasks:
        outcome = evaluate(task, "")
        check_tests_ran(outcome)
        (passing if outcome.success else keep).append(task)
    return keep, passing


def summarize(rows: list[dict], samples: int, seconds: float, n_boot: int = BOOTSTRAP_SAMPLES,
              seed: int = 0) -> dict:
    by_task: dict[str, list[bool]] = {}
    for r in rows:
        by_task.setdefault(r["task"], []).append(r["success"])
    ks = sorted({1, samples})
    ci = bootstrap_ci([r["success"] for r in rows], samples=n_boot, seed=seed)
    return {"tasks": len(by_task), "runs": len(rows), "resolved_rate": mean(r["success"] for r in rows),
            "resolved_ci95": list(ci) if ci else None,
            "pass_at_k": {str(k): mean(pass_at_k(len(v), sum(v), k) for v in by_task.values()) for k in ks},
            "valid_call_rate": mean(r["valid_call_turns"] / r["counted_turns"] if r.get("counted_turns") else 0.0
                                    for r in rows),
            "mean_turns": mean(r["turns"] for r in rows),
            "mean_completion_tokens": mean(r["completion_tokens"] for r in rows),
            "exit_statuses": dict(Counter(r["exit_status"] for r in rows)),
            "seconds": round(seconds, 3), "tasks_per_s": round(len(by_task) / seconds, 5) if seconds > 0 else None}


def main(argv=None) -> int:
    try:
        cfg = layered.load(CodingConfig, argv, description="Coding-task eval: the agent on repo-local tasks")
        check_config(cfg)
        from nanoagent.tasks import TaskError, evaluate, load_tasks

        try:
            tasks = pick(load_tasks(cfg.tasks), cfg.limit, cfg.sample, cfg.sample_seed, key=str(cfg.tasks))
        except (TaskError, OSError, SuiteError) as e:
            raise ConfigError(f"could not load tasks {cfg.tasks!r}: {e}") from None
        backend = load_eval_backend(cfg)  # after the tasks: bad input is refused before the model loads
    except ConfigError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    try:
        tasks, passing = split_already_passing(tasks, evaluate)
    except TestsCannotRun as e:
        print(f"error: {e}\nthe tests must run in the sandbox before the agent can be scored: check that the "
              "test command works there (`nanoagent run` shows the sandbox's protections)", file=sys.stderr)
        return 1
    for t in passing:
        print(f"warning: task {t.id}: its tests pass before any change, so it measures nothing; left out",
              file=sys.stderr)
    if not tasks:
        print("error: every task's tests pass before any change; nothing to measure", file=sys.stderr)
        return 2
    desc = backend.describe() if hasattr(backend, "describe") else type(backend).__name__
    label = cfg.label or (label_for(cfg.model) + ("-constrained" if cfg.constrain else ""))
    run = new_run("coding", cfg.model, desc, asdict(cfg) | {"task_ids": [t.id for t in tasks]}, label)
    run["left_out"] = {t.id: "tests pass before any change" for t in passing}
    from tqdm import tqdm

    rows, t0 = [], time.perf_counter()
    for task in tqdm(tasks, desc="coding eval", unit="task", file=sys.stderr):
        rows += run_task(backend, task, evaluate, agent_config(cfg), cfg.samples, cfg.trajectories)
    seconds = time.perf_counter() - t0
    metrics = summarize(rows, cfg.samples, seconds, cfg.bootstrap_samples, cfg.seed)
    run["suites"][f"coding:{cfg.tasks}"] = {"metrics": metrics, "items": rows}
    run["throughput"] = {"items": len(tasks), "seconds": round(seconds, 3), "items_per_s": metrics["tasks_per_s"]}
    path = save_run(run, cfg.out_dir, cfg.name)
    print(f"resolved {metrics['resolved_rate']:.3f} over {metrics['runs']} runs of {metrics['tasks']} tasks; "
          f"pass@k {metrics['pass_at_k']}; valid-call rate {metrics['valid_call_rate']:.3f}; "
          f"mean turns {metrics['mean_turns']:.1f}; exits {metrics['exit_statuses']}",
          file=sys.stderr)
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
