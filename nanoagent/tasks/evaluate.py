"""The one judge of success: apply the agent's final diff to a fresh copy of the task and run its tests.

    outcome = evaluate(task, trajectory)     # trajectory: a Trajectory, a dict with "diff", or the diff text
    outcome.success                          # True when the test command exits 0

Steps: copy the pristine repo to a temporary folder; apply the diff with `git apply` (`patch -p1` where git is
missing), leaving out the task's test files; copy the test files back from the pristine repo (so edits to tests,
deleting them included, never count); run the test command in a sandboxed `nanoagent.agent.sandbox.Workspace`
with the task's timeout. Both the GRPO test reward and the eval stage call this function. It never raises for
what the agent did: a diff that does not apply, a crash or a timeout is an unsuccessful Outcome with the reason. A
test command that cannot run at all (not found, not executable, the sandbox failing) sets `tests_could_not_run`:
callers treat that as an error of the run, not as a failed task.

Left out: binary changes (`git apply` refuses "Binary files differ" entries: the outcome says the patch failed),
partial application of a diff that only partly applies.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from nanoagent.tasks.spec import Task, TaskError, inside, patch_paths

OUTPUT_TAIL = 2000   # characters of test output kept in an Outcome


class TestsCannotRun(TaskError):
    """A task's test command does not run in the sandbox at all, so every attempt would score as a failure: an error
    of the run (eval.coding, train.grpo), not a result."""


def check_tests_ran(outcome: "Outcome") -> None:
    """TestsCannotRun naming the task and the cause when `outcome`'s tests could not run."""
    if outcome is not None and outcome.tests_could_not_run:
        raise TestsCannotRun(f"task {outcome.task}", outcome.error)


@dataclass
class Outcome:
    task: str
    success: bool
    patch_applied: bool
    empty_diff: bool
    exit_code: int | None = None
    timed_out: bool = False
    error: str = ""                      # why the tests could not run or the patch did not apply
    touched_tests: list[str] = field(default_factory=list)   # test files the diff changed (ignored)
    output: str = ""                     # tail of the test output
    seconds: float = 0.0
    tests_could_not_run: bool = False    # the harness or the sandbox failed, not the agent: an error of the run

    def to_dict(self) -> dict:
        return asdict(self)


def diff_of(trajectory) -> str:
    """The final diff of a Trajectory, a trajectory dict, or diff text itself."""
    if trajectory is None:
        return ""
    if isinstance(trajectory, str):
        return trajectory
    if isinstance(trajectory, dict):
        return trajectory.get("diff") or ""
    return getattr(trajectory, "diff", "") or ""


def _git_env(folder: Path) -> dict:
    env = dict(os.environ)
    env["GIT_CEILING_DIRECTORIES"] = str(folder.parent)  # never pick up an enclosing repository
    return env


def apply_diff(diff: str, folder: Path, exclude: list[str] = ()) -> tuple[bool, str]:
    """Apply a git-style diff inside `folder`; returns (ok, error message). Paths outside folder are refused."""
    if not diff.strip():
        return True, ""
    bad = [p for p in patch_paths(diff) if not inside(folder, p)]
    if bad:
        return False, f"the diff touches paths outside the repo: {', '.join(bad[:3])}"
    if shutil.which("git"):
        argv = ["git", "apply", "--whitespace=nowarn", "-p1"] + [f"--exclude={p}" for p in exclude] + ["-"]
    elif shutil.which("patch"):
        argv = ["patch", "-p1", "--batch", "--forward", "--no-backup-if-mismatch"]
    else:
        return False, "neither git nor patch is installed, so the diff can't be applied"
    try:
        r = subprocess.run(argv, input=diff.encode("utf-8", "surrogateescape"), cwd=folder, capture_output=True,
                           env=_git_env(folder), timeout=60)
    except subprocess.TimeoutExpired:
        return False, "applying the diff timed out"
    if r.returncode != 0:
        return False, (r.stderr or r.stdout).decode("utf-8", "replace").strip()[-500:] or f"exit {r.returncode}"
    return True, ""


def restore_tests(task: Task, folder: Path) -> None:
    for rel in task.test_files:
        dest = folder / rel
        if dest.is_symlink() or dest.is_file():
            dest.unlink()
        elif dest.is_dir():
            shutil.rmtree(dest)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(task.repo / rel, dest)


def run_tests(task: Task, folder: Path, timeout: float | None = None) -> dict:
    """Run the task's test command in a sandboxed copy of `folder`; returns exit code, timeout flag, output tail."""
    from nanoagent.agent.sandbox import Workspace

    with Workspace(folder) as ws:
        res = ws.run(task.test_command, timeout=timeout or task.timeout)
    return {"exit_code": res.exit_code, "timed_out": res.timed_out, "output": res.output[-OUTPUT_TAIL:]}


def evaluate(task: Task, trajectory, timeout: float | None = None) -> Outcome:
    """Did the agent's final diff make the task's (restored) tests pass? See the module docstring."""
    start = time.monotonic()
    diff = diff_of(trajectory)
    touched = sorted(set(patch_paths(diff)) & set(task.test_files))
    out = Outcome(task=task.id, success=False, patch_applied=False, empty_diff=not diff.strip(), touched_tests=touched)
    with tempfile.TemporaryDirectory(prefix="nanoagent-eval-") as tmp:
        folder = Path(tmp) / "repo"
        shutil.copytree(task.repo, folder, symlinks=True)
        ok, err = apply_diff(diff, folder, exclude=task.test_files)
        if not ok:
            out.error = f"the diff does not apply: {err}"
        else:
            out.patch_applied = True
            restore_tests(task, folder)
            try:
                r = run_tests(task, folder, timeout)
            except Exception as e:  # a harness failure is recorded, never raised into a training run
                out.error = f"the test run failed: {type(e).__name__}: {e}"
                out.tests_could_not_run = True
            else:
                out.exit_code, out.timed_out, out.output = r["exit_code"], r["timed_out"], r["output"]
                out.success = r["exit_code"] == 0
                if r["timed_out"]:
                    out.error = f"the tests timed out after {timeout or task.timeout:g} s"
                elif r["exit_code"] in (126, 127):  # the shell's "not executable" and "not found"
                    out.error = (f"the test command {task.test_command!r} could not run in the sandbox "
                                 f"(exit {r['exit_code']}): {r['output'].strip()[-300:]}")
                    out.tests_could_not_run = True
    out.seconds = round(time.monotonic() - start, 4)
    return out
