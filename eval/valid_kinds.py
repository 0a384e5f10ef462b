"""How runs do on each kind of row of the validation split: the `valid` suite's items grouped by the data kind
that made them, for runs side by side.

    python -m eval.valid_kinds eval/results/quality/toolcall_quality-cpu-compact-ul-seed3-q8_0-valid.json
    python -m eval.valid_kinds A-valid.json B-valid.json --valid data/default/valid.jsonl

The BFCL suites say how far the model is from BFCL; the validation split says how well it learned its own training
distribution, and by kind (single, parallel, no_tool, clarify, ...) where it did not. Each item of a result's
`valid` suite is matched to its record in the validation file by id (a record's `meta.id`, else `STEM-LINE` as
nanoagent/suites.py names it), and counted under `meta.kind` (or `meta.source` for rows without a kind), with its
commonest failure kinds. The file must be the one the result was scored on (the same build): an item with no record
there is counted as `(not in the file)` and said.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from eval.compare import CompareError, read_arm
from nanoagent.config import HelpFormatter
from nanoagent.suites import DEFAULT_VALID_PATH, VALID

MISSING = "(not in the file)"


def kinds_by_id(path: Path) -> dict[str, str]:
    """{item id: data kind} for a validation file, ids as nanoagent/suites.py gives them."""
    if not path.is_file():
        raise CompareError(f"validation file {path} does not exist: give the build's valid.jsonl with --valid")
    out = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                meta = json.loads(line).get("meta") or {}
            except (ValueError, AttributeError):
                raise CompareError(f"{path}:{n} is not a JSON record; give the build's valid.jsonl") from None
            out[meta.get("id") or f"{path.stem}-{n}"] = str(meta.get("kind") or meta.get("source") or "unknown")
    return out


def count_kinds(runs: list[dict], kinds: dict[str, str]) -> dict[str, dict[str, Counter]]:
    """{run label: {data kind: Counter of item kinds}} over each run's validation suite items."""
    out = {}
    for run in runs:
        items = [it for name, suite in run["suites"].items() if name.split("@")[0].split(":")[0] == VALID
                 for it in suite.get("items", [])]
        if not items:
            raise CompareError(f"run {run['label']} has no {VALID} suite; score one with --suites valid@200")
        table = out.setdefault(run["label"], {})
        for it in items:
            table.setdefault(kinds.get(it.get("id"), MISSING), Counter())[str(it.get("kind") or "unknown")] += 1
    return out


def render(counts: dict[str, dict[str, Counter]]) -> str:
    labels = list(counts)
    order = Counter()
    for table in counts.values():
        for kind, c in table.items():
            order[kind] += sum(c.values())
    lines = ["| data kind | " + " | ".join(f"{label}: right / n (commonest failures)" for label in labels) + " |",
             "|---|" + "---|" * len(labels)]
    for kind, _ in order.most_common():
        cells = []
        for label in labels:
            c = counts[label].get(kind)
            if not c:
                cells.append("-")
                continue
            n = sum(c.values())
            fails = ", ".join(f"{k} {v}" for k, v in [kv for kv in c.most_common() if kv[0] != "ok"][:3])
            cells.append(f"{c['ok']} / {n} ({fails})" if fails else f"{c['ok']} / {n}")
        lines.append(f"| {kind} | " + " | ".join(cells) + " |")
    total = [sum(c["ok"] for c in counts[label].values()) for label in labels]
    n = [sum(sum(c.values()) for c in counts[label].values()) for label in labels]
    lines.append("| all | " + " | ".join(f"{t} / {m}" for t, m in zip(total, n)) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.valid_kinds", description=__doc__.split("\n\n")[0],
                                 formatter_class=HelpFormatter)
    ap.add_argument("runs", nargs="+", help="eval.toolcall result files holding a valid suite, one per run")
    ap.add_argument("--valid", default=DEFAULT_VALID_PATH,
                    help=f"the validation file the runs were scored on (default: {DEFAULT_VALID_PATH})")
    ap.add_argument("--json", action="store_true", help="print the counts as JSON")
    args = ap.parse_args(argv)
    try:
        runs = [run for spec in args.runs for run in read_arm(spec)]
        counts = count_kinds(runs, kinds_by_id(Path(args.valid)))
    except CompareError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({label: {k: dict(c) for k, c in t.items()} for label, t in counts.items()}, indent=2))
    else:
        print(render(counts))
    missing = {label: sum(t[MISSING].values()) for label, t in counts.items() if MISSING in t}
    if missing:
        print(f"warning: items with no record in {args.valid} ({missing}): was the run scored on another build?",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
