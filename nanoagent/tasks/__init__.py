"""Repo-local coding tasks for GRPO and eval: the task spec, the shipped task set, HumanEval, and the judge.

    from nanoagent.tasks import load_tasks, evaluate
    tasks = load_tasks("held-out")               # "train" | "held-out" | "coding" | "humaneval" | a folder
    outcome = evaluate(tasks[0], trajectory)     # Outcome: success, patch_applied, exit_code, output, ...

Files: spec.py (Task, load_task, static checks), loader.py (load_tasks), evaluate.py (the one success test),
attempt.py (the agent on a task: n runs on fresh copies of its repo, for eval.coding and GRPO),
validate.py (`python -m nanoagent.tasks.validate`: fails before the reference patch, passes after),
humaneval.py (the adapter), rewards.py (GRPO reward functions for coding tasks), toolcall_rewards.py (GRPO reward
parts for single-turn tool-call tasks, sharing eval's checker), coding/ (the shipped tasks).
Left out: network or non-Python tasks.
"""

from nanoagent.tasks.evaluate import Outcome, TestsCannotRun, check_tests_ran, evaluate
from nanoagent.tasks.loader import load_tasks
from nanoagent.tasks.spec import Task, TaskError, load_task

__all__ = ["Outcome", "Task", "TaskError", "TestsCannotRun", "check_tests_ran", "evaluate", "load_task",
           "load_tasks"]
