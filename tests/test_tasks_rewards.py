"""Reward functions: valid-call share, patch similarity, test reward through evaluate, weights checked.

Run: .venv/bin/python -m pytest -q tests/test_tasks_rewards.py
"""

import nanoagent  # noqa: F401

import pytest

from nanoagent.agent.tools import TOOLS
from nanoagent.agent.trajectory import Step, Trajectory
from nanoagent.tasks import load_task
from nanoagent.tasks.loader import CODING
from nanoagent.tasks import rewards as R

GOOD = '<tool_call>\n{"name": "shell", "arguments": {"cmd": "ls"}}\n</tool_call>'
UNKNOWN = '<tool_call>\n{"name": "browse", "arguments": {}}\n</tool_call>'
BAD_ARGS = '<tool_call>\n{"name": "shell", "arguments": {"command": "ls"}}\n</tool_call>'
BROKEN = '<tool_call>\n{"name": "shell", "arguments": {"cmd": "ls"}\n</tool_call>'


def traj(*replies, diff=""):
    return Trajectory(task="t", messages=[], tools=TOOLS, steps=[Step(i, r) for i, r in enumerate(replies)],
                      diff=diff)


def test_valid_calls_share():
    rows = R.valid_calls_reward([traj(GOOD, GOOD, "Done."), traj(GOOD, UNKNOWN, BAD_ARGS, BROKEN), traj("Hi."),
                               traj(), None])
    assert rows == [1.0, 0.25, 0.0, 0.0, 0.0]


def test_patch_similarity_and_tests_reward():
    task = load_task(CODING / "strings_slugify")
    same = traj(diff=task.reference_patch)
    half = traj(diff="\n".join(task.reference_patch.splitlines()[:6]))
    sims = R.patch_similarity_reward([same, half, traj(), None], [task] * 4)
    assert sims[0] == 1.0 and 0 < sims[1] < 1 and sims[2:] == [0.0, 0.0]
    assert R.tests_reward([same, traj(), None], [task] * 3) == [1.0, 0.0, 0.0]
    assert all(not line.startswith(("+++", "---")) for line in R.changed_lines(task.reference_patch))


def test_combine_and_weights():
    task = load_task(CODING / "strings_slugify")
    totals, parts = R.combine([traj(GOOD, diff=task.reference_patch)], [task], {"tests": 1, "valid_calls": 0.5})
    assert totals == [1.5] and parts == {"tests": [1.0], "valid_calls": [1.0]}
    for bad, match in [({"tests": "a lot"}, "must be a number"), ({"speed": 1}, "unknown reward"),
                       ({"tests": 0}, "every reward weight is 0"), ({"tests": float("nan")}, "must be a number")]:
        with pytest.raises(ValueError, match=match):
            R.check_weights(bad)


def test_call_format_gives_partial_credit():
    rows = R.call_format_reward([traj(GOOD, "Done."), traj(UNKNOWN, BAD_ARGS), traj(BROKEN, "no call"),
                                 traj("<toolcall>{}</toolcall>"), None])
    assert rows == [1.0, 0.5, 0.25, 0.0, 0.0]  # the plain closing answer after an attempt is not counted
