"""GRPO rewards as plain functions `(trajectories, tasks, **kw) -> list[float]`, and their weighted sum.

    tests             1.0 when `nanoagent.tasks.evaluate` says the final diff makes the task's tests pass, else 0
    valid_calls       share of the assistant turns that parse into a schema-valid call of an offered tool (a final
                      answer without a call after at least one call is not counted against the run)
    call_format       partial credit per turn as a shaping term for a model that can't call tools yet: 1 for a valid
                      call, 0.5 for a well-formed JSON call of an unknown tool or with bad arguments, 0.25 for an
                      opened <tool_call> tag with broken JSON, 0 for no call; averaged like valid_calls
    patch_similarity  difflib ratio between the changed lines (+/-, headers ignored) of the agent's diff and of the
                      reference patch; 0 for an empty diff (an optional shaping term)

    totals, parts = combine(trajectories, tasks, {"tests": 1.0, "valid_calls": 0.2})

A missing trajectory (a rollout that crashed) scores 0 everywhere. `tests` reuses outcomes passed as
`outcomes=[Outcome, ...]` so one evaluation serves both the reward and the logs. Left out: learned reward models,
length penalties.
"""

from __future__ import annotations

import difflib

from nanoagent import config as layered
from nanoagent.tasks.evaluate import Outcome, diff_of, evaluate
from nanoagent.toolcall import OPEN, BadArgumentsError, ToolCallError, UnknownToolError, parse


def tests_reward(trajectories, tasks, outcomes: list[Outcome | None] | None = None, **kw) -> list[float]:
    out = []
    for i, (traj, task) in enumerate(zip(trajectories, tasks)):
        if traj is None:
            out.append(0.0)
            continue
        o = outcomes[i] if outcomes is not None and outcomes[i] is not None else evaluate(task, traj)
        out.append(1.0 if o.success else 0.0)
    return out


def turn_validity(traj) -> tuple[int, int]:
    """(valid tool-call turns, counted turns) of one trajectory."""
    steps = list(getattr(traj, "steps", []) or [])
    tools = getattr(traj, "tools", None)
    flags = []
    for step in steps:
        try:
            reply = parse(step.reply, tools)
        except ToolCallError:
            flags.append(None)  # a broken call: counted, never valid
            continue
        flags.append(bool(reply.tool_calls))
    if len(flags) > 1 and flags[-1] is False and any(flags[:-1]):
        flags = flags[:-1]  # the closing answer after real work is fine
    return sum(1 for f in flags if f), len(flags)


def valid_calls_reward(trajectories, tasks=None, **kw) -> list[float]:
    out = []
    for traj in trajectories:
        if traj is None:
            out.append(0.0)
            continue
        valid, counted = turn_validity(traj)
        out.append(valid / counted if counted else 0.0)
    return out


def turn_scores(traj) -> list[float]:
    """call_format's score per counted turn (the closing answer after real calls is dropped, as in valid_calls)."""
    tools = getattr(traj, "tools", None)
    scores = []
    for step in getattr(traj, "steps", []) or []:
        try:
            scores.append(1.0 if parse(step.reply, tools).tool_calls else 0.0)
        except (UnknownToolError, BadArgumentsError):
            scores.append(0.5)
        except ToolCallError:
            scores.append(0.25)
    if len(scores) > 1 and scores[-1] == 0.0 and OPEN not in traj.steps[-1].reply and any(scores[:-1]):
        scores = scores[:-1]
    return scores


def call_format_reward(trajectories, tasks=None, **kw) -> list[float]:
    out = []
    for traj in trajectories:
        scores = turn_scores(traj) if traj is not None else []
        out.append(sum(scores) / len(scores) if scores else 0.0)
    return out


def changed_lines(diff: str) -> list[str]:
    """The +/- lines of a unified diff without file headers, whitespace at the ends stripped."""
    lines = []
    for line in diff.splitlines():
        if line.startswith(("+++", "---")):
            continue
        if line[:1] in "+-" and line:
            lines.append(line[0] + line[1:].strip())
    return lines


def patch_similarity_reward(trajectories, tasks, **kw) -> list[float]:
    out = []
    for traj, task in zip(trajectories, tasks):
        mine = changed_lines(diff_of(traj)) if traj is not None else []
        ref = changed_lines(task.reference_patch)
        out.append(difflib.SequenceMatcher(None, mine, ref, autojunk=False).ratio() if mine and ref else 0.0)
    return out


REWARDS = {"tests": tests_reward, "valid_calls": valid_calls_reward, "call_format": call_format_reward,
           "patch_similarity": patch_similarity_reward}


def check_weights(weights: dict, known=None, what: str = "reward", negative: bool = True) -> dict[str, float]:
    """Reward weights by name (`known`, default REWARDS): nanoagent.config.check_weights (a ConfigError, which is a
    ValueError, names a bad entry)."""
    return layered.check_weights(weights, REWARDS if known is None else known, what, negative)


def combine(trajectories, tasks, weights: dict, **kw) -> tuple[list[float], dict[str, list[float]]]:
    """Weighted sum of the named rewards, and every component (weight 0 ones too: they are still logged)."""
    weights = check_weights(weights)
    parts = {name: REWARDS[name](trajectories, tasks, **kw) for name in weights}
    totals = [sum(weights[n] * parts[n][i] for n in weights) for i in range(len(trajectories))]
    return totals, parts
