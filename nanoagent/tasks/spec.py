"""One coding task: what the agent is asked, the repo it starts from, how the harness tests it, and the fix.

A task lives in a folder:

    <task_id>/task.yaml        id, statement, test_command, test_files, split, topic, kind, [timeout, reference_patch]
    <task_id>/repo/...         the files the agent starts from (standard library Python, tests included)
    <task_id>/reference.patch  a git-style diff (a/ b/ paths relative to repo/) that makes the tests pass

    task = load_task("nanoagent/tasks/coding/strings_slugify")   # -> Task, or TaskError naming the field

`load_task` checks everything that can be checked without running anything: required fields and their types,
paths that stay inside the task folder (test files, the patch, every file the patch touches, symlinks in repo/),
test files that exist, a test command whose program exists on the sandbox's PATH. Whether the tests fail before
the reference patch and pass after it needs a run: that is `nanoagent.tasks.validate`.

Left out: tasks with non-Python test commands that need programs outside the sandbox's PATH, binary files in
reference patches.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml

REQUIRED = ("id", "statement", "test_command", "test_files")
OPTIONAL = ("split", "topic", "kind", "timeout", "reference_patch", "title")
SPLITS = ("train", "held-out")
DEFAULT_TIMEOUT = 20.0         # seconds for one test run (the shipped tasks take well under 2)
ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


class TaskError(ValueError):
    """A task that can't be used; the message names the task, the field and what to do."""

    def __init__(self, where: str, problem: str):
        super().__init__(f"{where}: {problem}")
        self.where, self.problem = where, problem


@dataclass
class Task:
    id: str
    statement: str                   # the user's issue, as the agent reads it
    repo: Path                       # pristine starting files (never modified)
    test_command: str                # run in the repo root inside the sandbox; exit code 0 = pass
    test_files: list[str]            # relative to repo; restored from the pristine repo before the harness runs
    reference_patch: str = ""        # git-style diff that makes the tests pass
    split: str = "train"
    topic: str = ""
    kind: str = ""                   # "bug" or "feature"
    timeout: float = DEFAULT_TIMEOUT
    source: str = "coding"           # "coding" (shipped) or "humaneval"
    folder: Path | None = None
    meta: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"id": self.id, "source": self.source, "split": self.split, "topic": self.topic, "kind": self.kind,
                "repo": str(self.repo), "test_command": self.test_command, "test_files": list(self.test_files)}


def sandbox_path() -> str:
    """The PATH commands see inside nanoagent.agent.sandbox.Workspace (same rule as its _env)."""
    return f"{os.path.dirname(sys.executable)}:/usr/local/bin:/usr/bin:/bin"


def patch_paths(patch: str) -> list[str]:
    """Every path (a/ and b/ sides, /dev/null dropped) a git-style diff touches."""
    paths = []
    for line in patch.splitlines():
        if line.startswith("diff --git "):
            parts = line[len("diff --git "):].split(" b/", 1)
            paths += [parts[0][2:] if parts[0].startswith("a/") else parts[0]] + parts[1:]
        elif line.startswith(("--- ", "+++ ")):
            p = line[4:].split("\t")[0].strip()
            if p != "/dev/null":
                paths.append(p[2:] if p[:2] in ("a/", "b/") else p)
        elif line.startswith(("rename from ", "rename to ")):
            paths.append(line.split(" ", 2)[2])
    return list(dict.fromkeys(paths))


def inside(root: Path, rel: str) -> bool:
    """True when root/rel stays inside root (no absolute paths, no .. escapes, symlinks resolved)."""
    if not rel or os.path.isabs(rel):
        return False
    root = root.resolve()
    target = (root / rel).resolve()
    return target == root or root in target.parents


def check_command(command: str, where: str) -> None:
    """The test command must parse and its program must exist on the sandbox's PATH, without a '/' (rbash)."""
    try:
        argv = shlex.split(command)
    except ValueError as e:
        raise TaskError(where, f"test_command {command!r} can't be parsed ({e})") from None
    if not argv:
        raise TaskError(where, "test_command is empty: give the command that runs the tests, e.g. "
                               "`python -m unittest -q`")
    prog = argv[0]
    if "/" in prog:
        raise TaskError(where, f"test_command program {prog!r} contains '/', which the sandbox's restricted shell "
                               "refuses: name a program on PATH, e.g. `python`")
    if shutil.which(prog, path=sandbox_path()) is None:
        raise TaskError(where, f"test_command program {prog!r} does not exist on the sandbox PATH "
                               f"({sandbox_path()}): use `python -I -m unittest -q` or `python -m pytest -q`")


def check_repo(repo: Path, where: str) -> None:
    if not repo.is_dir():
        raise TaskError(where, f"the repo folder {repo} is missing: put the starting files in repo/")
    for dirpath, dirnames, filenames in os.walk(repo):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            if p.is_symlink() and not inside(repo, os.path.relpath(p, repo)):
                raise TaskError(where, f"repo/{os.path.relpath(p, repo)} is a symlink pointing outside the task "
                                       "folder: replace it by a real file")


def task_from_dict(data: dict, folder: Path, where: str) -> Task:
    """Check a task.yaml mapping against its folder and build the Task."""
    if not isinstance(data, dict):
        raise TaskError(where, "task.yaml must be a YAML mapping with keys " + ", ".join(REQUIRED))
    missing = [k for k in REQUIRED if k not in data or data[k] in (None, "", [])]
    if missing:
        raise TaskError(where, f"missing field(s) {', '.join(missing)} (required: {', '.join(REQUIRED)})")
    unknown = sorted(set(data) - set(REQUIRED) - set(OPTIONAL))
    if unknown:
        raise TaskError(where, f"unknown field(s) {', '.join(unknown)} (allowed: {', '.join(REQUIRED + OPTIONAL)})")
    tid = data["id"]
    if not isinstance(tid, str) or not ID_RE.match(tid):
        raise TaskError(where, f"id {tid!r} must be a string of letters, digits, '_', '-', '.'")
    for key in ("statement", "test_command"):
        if not isinstance(data[key], str) or not data[key].strip():
            raise TaskError(where, f"{key} must be a non-empty string")
    tests = data["test_files"]
    if isinstance(tests, str):
        tests = [tests]
    if not isinstance(tests, list) or not all(isinstance(t, str) and t for t in tests):
        raise TaskError(where, "test_files must be a list of paths relative to repo/")
    split = data.get("split", "train")
    if split not in SPLITS:
        raise TaskError(where, f"split {split!r} is not one of {', '.join(SPLITS)}")
    timeout = data.get("timeout", DEFAULT_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout <= 600:
        raise TaskError(where, f"timeout {timeout!r} must be a number of seconds in (0, 600]")
    repo = folder / "repo"
    check_repo(repo, where)
    for t in tests:
        if not inside(repo, t):
            raise TaskError(where, f"test file {t!r} escapes the task's repo folder: give a path inside repo/")
        if not (repo / t).is_file():
            raise TaskError(where, f"test file {t!r} does not exist in repo/")
    check_command(data["test_command"], where)
    patch_name = data.get("reference_patch", "reference.patch")
    if not isinstance(patch_name, str) or not inside(folder, patch_name):
        raise TaskError(where, f"reference_patch {patch_name!r} escapes the task folder: give a file name in it")
    patch_file = folder / patch_name
    if not patch_file.is_file():
        raise TaskError(where, f"reference patch {patch_name} is missing: write the fix as a git-style diff there")
    patch = patch_file.read_text(encoding="utf-8")
    if "diff --git " not in patch and "+++ " not in patch:
        raise TaskError(where, f"{patch_name} is not a unified diff (no 'diff --git' or '+++' lines)")
    for p in patch_paths(patch):
        if not inside(repo, p):
            raise TaskError(where, f"{patch_name} touches {p!r}, which escapes repo/")
    return Task(id=tid, statement=data["statement"].strip(), repo=repo, test_command=data["test_command"].strip(),
                test_files=list(tests), reference_patch=patch, split=split, topic=str(data.get("topic", "")),
                kind=str(data.get("kind", "")), timeout=float(timeout), folder=folder,
                meta={"title": data.get("title", "")})


def load_task(folder: str | Path) -> Task:
    """Load and statically check the task in `folder` (which holds task.yaml); TaskError says what is wrong."""
    folder = Path(folder)
    where = f"task {folder}"
    spec = folder / "task.yaml"
    if not spec.is_file():
        raise TaskError(where, "no task.yaml in this folder: a task folder holds task.yaml, repo/ and reference.patch")
    try:
        data = yaml.safe_load(spec.read_text(encoding="utf-8"))
    except yaml.YAMLError as e:
        raise TaskError(f"{spec}", f"not valid YAML ({e})") from None
    task = task_from_dict(data, folder, where)
    if task.id != folder.name:
        raise TaskError(where, f"id {task.id!r} differs from the folder name {folder.name!r}: make them equal")
    return task
