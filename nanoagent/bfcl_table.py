"""The BFCL comparison table: eval.toolcall result runs side by side per suite, with the published anchors.

Used by the model card (export/card.py) and by `python -m eval.report --quality-readme FILE.md`, so a results page's
quality table and the card's results table are the same code.

    from nanoagent.bfcl_table import bfcl_table
    print(bfcl_table(runs))                 # runs: parsed eval.toolcall result files (kind "toolcall")
    print(bfcl_table(runs, detail=True))    # cells with the 95% interval, schema-valid and call rates
"""

from __future__ import annotations

# Published BFCL (non-live AST) accuracies of small tool-callers, in % (issue 15's anchors).
ANCHORS = {
    "FunctionGemma 270M": {"simple_python": 61.6, "multiple": 63.5, "parallel": 39.0, "parallel_multiple": 29.5,
                           "irrelevance": 73.7},
    "Granite-4.0-350M": {"simple_python": 61.7, "multiple": 84.5, "parallel": 70.0, "parallel_multiple": 55.5,
                         "irrelevance": 60.8},
    "Qwen2.5-0.5B-Instruct": {"simple_python": 61.2, "multiple": 78.0, "parallel": 60.0, "parallel_multiple": 50.0,
                              "irrelevance": 46.2},
}

# Accuracy targets of the quality issue (15), in %.
TARGETS = {"simple_python": 55, "multiple": 50, "parallel": 30, "parallel_multiple": 20, "irrelevance": 70,
           "live_simple": 35}


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def _cell(m: dict | None, detail: bool) -> str:
    if not m:
        return "-"
    if not detail:
        return f"{_pct(m['accuracy'])} ({100 * m['valid_rate']:.0f})"
    ci = m.get("accuracy_ci95")
    band = f" ({_pct(ci[0])}-{_pct(ci[1])})" if ci else ""
    return f"{_pct(m['accuracy'])}{band}; valid {100 * m['valid_rate']:.0f}%, calls {100 * m['call_rate']:.0f}%"


def bfcl_table(runs: list[dict], detail: bool = False, targets: bool = False, heads: list[str] | None = None) -> str:
    """Markdown: one row per suite (in the runs' order), one column per run (`heads`, or its label and backend),
    then the targets (when asked) and the anchors. A cell is "accuracy (schema-valid)" in %, or with `detail` the
    accuracy's 95% interval, the schema-valid rate and the share of replies with a call."""
    suites = list(dict.fromkeys(s for r in runs for s in r["suites"]))
    named = [r["label"] if detail else f"{r['label']} ({r.get('model', {}).get('backend', '') or 'model'})"
             for r in runs]
    head = ["suite", "n"] + (heads or named)
    head += (["target"] if targets else []) + list(ANCHORS)
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for s in suites:
        ns = {r["suites"][s]["metrics"].get("n") for r in runs if s in r["suites"]}
        cells = [s, "/".join(str(n) for n in sorted(n for n in ns if n is not None))]
        cells += [_cell(r["suites"].get(s, {}).get("metrics"), detail) for r in runs]
        if targets:
            cells.append(str(TARGETS.get(s, "-")))
        cells += [f"{ANCHORS[a][s]:.1f}" if s in ANCHORS[a] else "-" for a in ANCHORS]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
