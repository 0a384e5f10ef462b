"""A run's `metrics.jsonl`: one JSON object per line, `{"kind": "train" | "valid" | "checkpoint" | ..., "step": N,
"time": ...}`. Both trainers write it through `MetricsLog`; reports, plots, the pipeline and benchmarks read it
through `read_metrics`.

    log = MetricsLog(run_dir / "metrics.jsonl")
    log.resume_at(step)                       # a resumed run: drop lines of steps after its checkpoint
    log.keep(lambda r: r["kind"] != "val")    # rewrite the file with only the lines the predicate keeps
    log.write("train", {"step": 3, "loss": 0.41})
    rows = read_metrics(path, "valid")        # the validation lines, in order ([] when there is no file)
    rows, broken = read_metrics(path, with_broken=True)   # and the numbers of lines that are not JSON objects
    numbered, broken = read_jsonl(path)       # any JSONL file: (line number, value) pairs, unparsable line numbers

On resume the lines of steps the killed run did after its last checkpoint (work it lost) are dropped, so the file
reads like one uninterrupted run; the rewrite is atomic. A line that is not a JSON object (a half-written last
line, say) is never fatal to a reader: it is left out and, with `with_broken`, reported by number.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from nanoagent.atomic import write_text


class MetricsLog:
    def __init__(self, path: str | Path, enabled: bool = True):
        self.path, self.enabled = Path(path), enabled  # enabled=False: a data-parallel rank that is not rank 0

    def write(self, kind: str, info: dict) -> None:
        if self.enabled:
            with self.path.open("a", encoding="utf-8") as f:
                f.write(json.dumps({"kind": kind, "time": round(time.time(), 3), **info}) + "\n")

    def resume_at(self, step: int) -> None:
        """Keep only the lines of steps up to `step` (the checkpoint the run resumes from)."""
        self.keep(lambda r: r.get("step", 0) <= step)

    def keep(self, wanted) -> None:
        """Rewrite the file (atomically) with only the lines `wanted(row)` accepts."""
        if self.enabled and self.path.exists():
            write_text(self.path, "".join(json.dumps(r) + "\n" for r in read_metrics(self.path) if wanted(r)))


def read_jsonl(path: str | Path) -> tuple[list[tuple[int, object]], list[int]]:
    """([(line number, parsed value)], numbers of the lines that are not JSON) of a JSONL file; blank lines are
    skipped, and a missing file reads as empty."""
    path, rows, broken = Path(path), [], []
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines() if path.is_file() else []
    for n, line in enumerate(lines, 1):
        if line.strip():
            try:
                rows.append((n, json.loads(line)))
            except ValueError:
                broken.append(n)
    return rows, broken


def read_metrics(path: str | Path, kind: str | None = None, with_broken: bool = False):
    """The JSON objects of a metrics file (of one `kind` when given); with `with_broken`, also the line numbers
    that are not JSON objects."""
    numbered, broken = read_jsonl(path)
    broken = sorted(broken + [n for n, row in numbered if not isinstance(row, dict)])
    rows = [row for _, row in numbered if isinstance(row, dict) and (kind is None or row.get("kind") == kind)]
    return (rows, broken) if with_broken else rows
