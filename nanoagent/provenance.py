"""Which code made a file: a digest of a source folder, recorded by the data build and checked by the trainer.

    from nanoagent.provenance import code_digest
    code_digest(Path("data_recipes"))     # "3f2a..." (sha256 of every source file's path and bytes, sorted)

The data build writes the digest of the data-recipe code into its stats.json (`code_digest`). `train.dft` computes
it again for the checkout it runs from and warns when a data folder was built by other code, so rows made before a
generator change are not trained on unknowingly. Only files that shape the rows count (Python, YAML, JSON/JSONL
fixtures, text tables); caches do not.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

SOURCE_SUFFIXES = (".py", ".yaml", ".yml", ".json", ".jsonl", ".txt")


def code_digest(folder: Path) -> str | None:
    """sha256 over the relative path and bytes of every source file under `folder`; None when it is not a folder."""
    folder = Path(folder)
    if not folder.is_dir():
        return None
    h = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in SOURCE_SUFFIXES
                       and "__pycache__" not in p.parts):
        h.update(path.relative_to(folder).as_posix().encode() + b"\0")
        h.update(path.read_bytes() + b"\0")
    return h.hexdigest()
