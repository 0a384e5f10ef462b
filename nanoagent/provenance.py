"""Which code made a file: a digest of source files, recorded by the data build and checked by the trainer.

    from nanoagent.provenance import code_digest
    code_digest(repo_root, ["data_recipes", "nanoagent/render.py"])   # "3f2a..." (sha256, stable order)

The data build writes the digest of the code that shapes its rows into stats.json (`code`: the paths, relative to
the checkout, and their digest). `train.dft` computes the digest of the same paths in the checkout it runs from and
warns when they differ, so rows made before a generator or filter change are not trained on unknowingly. Only
source files count (Python, YAML, JSON/JSONL fixtures, text tables); caches do not. Any edit under a listed folder
counts, so the warning errs on the side of saying so.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

SOURCE_SUFFIXES = (".py", ".yaml", ".yml", ".json", ".jsonl", ".txt")


def _files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    return sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in SOURCE_SUFFIXES
                  and "__pycache__" not in p.parts)


def code_digest(root: Path, paths: list[str]) -> str | None:
    """sha256 over the relative path and bytes of every source file under each of `paths` (files or folders,
    relative to `root`); None when one of them is missing (another checkout layout: nothing to compare)."""
    root, h = Path(root), hashlib.sha256()
    for rel in paths:
        path = root / rel
        if not path.exists():
            return None
        for f in _files(path):
            h.update(f.relative_to(root).as_posix().encode() + b"\0")
            h.update(f.read_bytes() + b"\0")
    return h.hexdigest()
