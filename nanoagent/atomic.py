"""Atomic file writes: the text goes to a temporary file beside the target, is flushed to disk, then renamed.

A reader (or a killed writer) sees either the old file or the whole new one, never half of it. Every summary,
result, resolved config and report the stages write goes through here.

    from nanoagent.atomic import write_text, write_json
    write_json(run_dir / "summary.json", summary)      # indent=2, trailing newline
    write_text(out / "report.html", html)

Folders that must appear whole (data builds, checkpoints, releases) are staged in a temporary folder and renamed
by their writers; this module is for single files. `staged` gives a writer that opens the file by name (gguf's) the
temporary path and renames it when the writer is done, without the flush to disk (a GGUF is rewritten in seconds).
"""

from __future__ import annotations

import json
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


@contextmanager
def staged(path: str | Path) -> Iterator[Path]:
    """A temporary file beside `path` for the block to write (by name: writers such as gguf's open it
    themselves); renamed to `path` when the block ends, removed when it raises. The parent folder is created."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        os.chmod(tmp, _mode_for(path))  # mkstemp makes 0600; keep the file's mode, or what open() would give
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_text(path: str | Path, text: str, encoding: str = "utf-8") -> Path:
    """Write `text` to `path` atomically; the parent folder is created. Returns the path."""
    with staged(path) as tmp, open(tmp, "w", encoding=encoding) as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    return Path(path)


def _mode_for(path: Path) -> int:
    try:
        return path.stat().st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def write_json(path: str | Path, obj, indent: int | None = 2, **kw) -> Path:
    """`json.dumps(obj)` (serialised before anything is written) to `path` atomically, with a trailing newline."""
    return write_text(path, json.dumps(obj, indent=indent, **kw) + "\n")
