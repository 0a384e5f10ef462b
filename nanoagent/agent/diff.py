"""The complete diff between two folder trees, taken by the harness (never written by the model).

`tree_changes(old, new)` lists what changed (added, deleted, modified, exact renames, mode changes, symlinks);
`unified_diff(old, new)` writes those changes as one git-style unified diff (`diff --git` headers, `new file mode`,
`deleted file mode`, `rename from/to`, `Binary files ... differ`), which `git apply` and `patch -p1` accept for
text changes. No git repository is needed: the agent keeps a pristine copy and diffs against it.

Usage:
    text = unified_diff(pristine_dir, work_dir)

Left out: renames with edits (shown as a delete plus an add; only byte-identical moves are renames), binary
patches (named, not encoded), quoting of unusual path characters the way git does.
"""

from __future__ import annotations

import difflib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

# Build and cache folders that tools create by themselves; they are not the agent's change.
DIFF_IGNORE = frozenset({".git", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis"})
IGNORE_SUFFIXES = (".pyc", ".pyo")
# Text files larger than this are reported as changed but not diffed line by line.
MAX_TEXT_DIFF_BYTES = 1 << 20


@dataclass(frozen=True)
class Entry:
    kind: str  # "file" or "link"
    mode: int  # 0o100644 / 0o100755 / 0o120000
    path: Path  # absolute path on disk

    def data(self) -> bytes:
        if self.kind == "link":
            return os.readlink(self.path).encode("utf-8", "surrogateescape")
        return self.path.read_bytes()


@dataclass(frozen=True)
class Change:
    kind: str  # "add" | "delete" | "modify" | "rename" | "mode"
    path: str  # the new path (the old one for "delete")
    old_path: str | None = None
    old: Entry | None = None
    new: Entry | None = None


def scan(root: str | Path) -> tuple[dict[str, Entry], list[str]]:
    """Relative path -> Entry for files and symlinks under root (ignored names skipped); also the skipped specials."""
    root = Path(root)
    entries: dict[str, Entry] = {}
    specials: list[str] = []
    stack = [root]
    while stack:
        folder = stack.pop()
        with os.scandir(folder) as it:
            for e in it:
                if e.name in DIFF_IGNORE or e.name.endswith(IGNORE_SUFFIXES):
                    continue
                rel = Path(e.path).relative_to(root).as_posix()
                st = os.lstat(e.path)
                if stat.S_ISLNK(st.st_mode):
                    entries[rel] = Entry("link", 0o120000, Path(e.path))
                elif stat.S_ISDIR(st.st_mode):
                    stack.append(Path(e.path))
                elif stat.S_ISREG(st.st_mode):
                    mode = 0o100755 if st.st_mode & 0o111 else 0o100644
                    entries[rel] = Entry("file", mode, Path(e.path))
                else:
                    specials.append(rel)
    return entries, specials


def _same(a: Entry, b: Entry) -> bool:
    if a.kind != b.kind:
        return False
    if a.kind == "file" and os.path.getsize(a.path) != os.path.getsize(b.path):
        return False
    return a.data() == b.data()


def tree_changes(old_root: str | Path, new_root: str | Path) -> list[Change]:
    old, _ = scan(old_root)
    new, _ = scan(new_root)
    changes: list[Change] = []
    added, deleted = [], []
    for rel in sorted(set(old) | set(new)):
        a, b = old.get(rel), new.get(rel)
        if a is None:
            added.append(rel)
        elif b is None:
            deleted.append(rel)
        elif a.kind != b.kind:  # file <-> symlink: a delete and an add
            deleted.append(rel)
            added.append(rel)
        elif not _same(a, b):
            changes.append(Change("modify", rel, rel, a, b))
        elif a.mode != b.mode:
            changes.append(Change("mode", rel, rel, a, b))
    # Exact renames: a deleted entry whose bytes equal an added one's.
    by_content: dict[tuple[str, bytes], list[str]] = {}
    for rel in deleted:
        by_content.setdefault((old[rel].kind, old[rel].data()), []).append(rel)
    for rel in added:
        b = new[rel]
        sources = by_content.get((b.kind, b.data()))
        if sources and b.data():  # empty files are not renames of each other
            src = sources.pop(0)
            deleted.remove(src)
            changes.append(Change("rename", rel, src, old[src], b))
        else:
            changes.append(Change("add", rel, None, None, b))
    changes.extend(Change("delete", rel, rel, old[rel], None) for rel in deleted)
    changes.sort(key=lambda c: (c.path, c.kind))
    return changes


def _is_text(data: bytes) -> bool:
    if b"\0" in data or len(data) > MAX_TEXT_DIFF_BYTES:
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _hunks(a: bytes, b: bytes, a_name: str, b_name: str) -> list[str]:
    a_lines = a.decode("utf-8").splitlines(keepends=True)
    b_lines = b.decode("utf-8").splitlines(keepends=True)
    out = []
    for line in difflib.unified_diff(a_lines, b_lines, a_name, b_name, n=3):
        if line.startswith(("---", "+++")):
            line = line.rstrip() + "\n"  # difflib adds a trailing tab/space for empty dates
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return out


def _file_diff(change: Change) -> str:
    a, b = change.old, change.new
    a_path = change.old_path or change.path
    head = [f"diff --git a/{a_path} b/{change.path}\n"]
    if change.kind == "add":
        head.append(f"new file mode {b.mode:o}\n")
    elif change.kind == "delete":
        head.append(f"deleted file mode {a.mode:o}\n")
    elif a.mode != b.mode:
        head += [f"old mode {a.mode:o}\n", f"new mode {b.mode:o}\n"]
    if change.kind == "rename":
        head += ["similarity index 100%\n", f"rename from {a_path}\n", f"rename to {change.path}\n"]
    if change.kind in ("rename", "mode"):
        return "".join(head)
    a_data = a.data() if a else b""
    b_data = b.data() if b else b""
    if not (_is_text(a_data) and _is_text(b_data)):
        a_name = f"a/{a_path}" if a else "/dev/null"
        b_name = f"b/{change.path}" if b else "/dev/null"
        return "".join(head) + f"Binary files {a_name} and {b_name} differ\n"
    if not a_data and not b_data:
        return "".join(head)
    a_name = f"a/{a_path}" if a else "/dev/null"
    b_name = f"b/{change.path}" if b else "/dev/null"
    return "".join(head + _hunks(a_data, b_data, a_name, b_name))


def unified_diff(old_root: str | Path, new_root: str | Path) -> str:
    """One git-style diff of every change from old_root to new_root ('' when nothing changed)."""
    return "".join(_file_diff(c) for c in tree_changes(old_root, new_root))


def diff_stats(diff: str) -> dict:
    """Files touched and lines added/removed in a diff from `unified_diff`."""
    files = sum(1 for line in diff.splitlines() if line.startswith("diff --git "))
    added = sum(1 for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++"))
    removed = sum(1 for line in diff.splitlines() if line.startswith("-") and not line.startswith("---"))
    return {"files": files, "lines_added": added, "lines_removed": removed}
