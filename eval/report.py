"""Compare eval runs: a markdown table and PNG charts from the result files in eval/results/.

Run:
    python -m eval.report                                   # eval/results -> eval/results/report/
    python -m eval.report --results eval/results --out /tmp/report --labels base-gguf,dft-gguf
    python -m eval.report --readme RESULTS.md               # also refresh a markdown file's table (between markers)
    python -m eval.report --results eval/results/quality --quality-readme RESULTS.md  # the quality-run table

For each (kind, label) each suite's latest result is used (`--all-runs` keeps every run apart); `--labels` picks
runs and sets the order of the tables' columns and rows (otherwise oldest first). Written to `--out`: `report.md`
(tool-calling accuracy per suite with 95% intervals; call and schema-valid rates; coding resolved rate, pass@k,
turns, exits; items per second per backend; the runs' models, settings and machines), `toolcall_accuracy.png`,
`toolcall_validity.png` and, when there are coding runs, `coding_resolved.png`. With `--readme`, the text between
`<!-- eval-table:start -->` and `<!-- eval-table:end -->` in that file is replaced by the accuracy table (an error
names the missing markers; nothing else in the file is touched).

Left out: significance tests between runs (the intervals are per run), interactive charts.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from nanoagent.atomic import write_text
from nanoagent.bfcl_table import bfcl_table
from nanoagent.config import HelpFormatter
from eval.results import DEFAULT_DIR, load_runs

START, END = "<!-- eval-table:start -->", "<!-- eval-table:end -->"
QUALITY_MARKERS = ("<!-- quality-table:start -->", "<!-- quality-table:end -->")


def latest(runs: list[dict]) -> list[dict]:
    """One run per (kind, label): the newest run, holding for each suite the newest result any run of that label
    has for it (a later run on a few suites does not hide an earlier run's other suites); `_files` names the files
    the suites came from."""
    keep: dict[tuple, dict] = {}
    for r in runs:  # sorted by creation time: later runs replace earlier ones, suite by suite
        key = (r["kind"], r["label"])
        suites = dict(keep[key]["suites"]) if key in keep else {}
        suites.update({name: {**res, "_file": Path(r["_path"]).name} for name, res in r["suites"].items()})
        keep[key] = {**r, "suites": suites}
    for r in keep.values():
        r["_files"] = sorted({res["_file"] for res in r["suites"].values()})
    return sorted(keep.values(), key=lambda r: (r["kind"], r["created"]))


def suite_names(runs: list[dict]) -> list[str]:
    names: list[str] = []
    for r in runs:
        names += [s for s in r["suites"] if s not in names]
    return names


def _pct(x) -> str:
    return "-" if x is None else f"{100 * x:.1f}"


def _cell(metrics: dict | None) -> str:
    if not metrics:
        return ""
    ci = metrics.get("accuracy_ci95")
    band = f" ({_pct(ci[0])}-{_pct(ci[1])})" if ci else ""
    return f"{_pct(metrics['accuracy'])}{band} n={metrics['n']}"


def toolcall_table(runs: list[dict]) -> str:
    suites = suite_names(runs)
    head = "| run | backend | " + " | ".join(suites) + " |"
    lines = [head, "|" + "---|" * (len(suites) + 2)]
    for r in runs:
        cells = [_cell(r["suites"].get(s, {}).get("metrics")) for s in suites]
        lines.append(f"| {r['label']} | {r['model']['backend']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def validity_table(runs: list[dict]) -> str:
    suites = suite_names(runs)
    lines = ["| run | " + " | ".join(suites) + " |", "|" + "---|" * (len(suites) + 1)]
    for r in runs:
        cells = []
        for s in suites:
            m = r["suites"].get(s, {}).get("metrics")
            cells.append(f"{_pct(m['call_rate'])} / {_pct(m['valid_rate'])}" if m else "")
        lines.append(f"| {r['label']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def coding_table(runs: list[dict]) -> str:
    lines = ["| run | backend | tasks | runs | resolved % (95% CI) | pass@k | valid-call % | mean turns | mean tokens "
             "| exits |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in runs:
        for name, s in r["suites"].items():
            m = s["metrics"]
            ci = m.get("resolved_ci95")
            band = f" ({_pct(ci[0])}-{_pct(ci[1])})" if ci else ""
            pk = ", ".join(f"@{k} {_pct(v)}" for k, v in m["pass_at_k"].items())
            exits = ", ".join(f"{k} {v}" for k, v in sorted(m["exit_statuses"].items()))
            valid = _pct(m["valid_call_rate"]) if m.get("valid_call_rate") is not None else "-"  # older files: none
            lines.append(f"| {r['label']} | {r['model']['backend']} | {name} ({m['tasks']}) | {m['runs']} | "
                         f"{_pct(m['resolved_rate'])}{band} | {pk} | {valid} | {m['mean_turns']:.1f} | "
                         f"{m['mean_completion_tokens']:.0f} | {exits} |")
    return "\n".join(lines)


def throughput_table(runs: list[dict]) -> str:
    lines = ["| run | kind | backend | items | seconds | items/s | machine |", "|---|---|---|---|---|---|---|"]
    for r in runs:
        t, m = r.get("throughput") or {}, r.get("machine") or {}
        lines.append(f"| {r['label']} | {r['kind']} | {r['model']['backend']} | {t.get('items')} | "
                     f"{t.get('seconds')} | "
                     f"{t.get('items_per_s')} | {m.get('cpu')}, {m.get('cores')} cores |")
    return "\n".join(lines)


def bar_chart(runs: list[dict], suites: list[str], metric: str, path: Path, title: str, ci_key: str | None = None):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    width = 0.8 / max(1, len(runs))
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(suites) + 2), 4))
    for i, r in enumerate(runs):
        xs, ys, lo, hi = [], [], [], []
        for j, s in enumerate(suites):
            m = r["suites"].get(s, {}).get("metrics")
            if not m or m.get(metric) is None:
                continue
            xs.append(j + (i - (len(runs) - 1) / 2) * width)
            ys.append(100 * m[metric])
            ci = m.get(ci_key) if ci_key else None
            lo.append(100 * (m[metric] - ci[0]) if ci else 0)
            hi.append(100 * (ci[1] - m[metric]) if ci else 0)
        ax.bar(xs, ys, width, label=r["label"], yerr=[lo, hi] if ci_key else None, capsize=2)
    ax.set_xticks(range(len(suites)))
    ax.set_xticklabels(suites, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("%")
    ax.set_ylim(0, 100)
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def render(runs: list[dict], out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    tool = [r for r in runs if r["kind"] == "toolcall"]
    code = [r for r in runs if r["kind"] == "coding"]
    parts = ["# Eval report", "", f"Runs: {len(runs)} ({len(tool)} tool-calling, {len(code)} coding). "
             "Accuracy in % with the 95% bootstrap interval and the number of items.", ""]
    if tool:
        suites = suite_names(tool)
        parts += ["## Tool calling: accuracy", "", toolcall_table(tool), "",
                  "## Tool calling: replies with a call / schema-valid (%)", "", validity_table(tool), "",
                  "![accuracy](toolcall_accuracy.png)", "", "![validity](toolcall_validity.png)", ""]
        bar_chart(tool, suites, "accuracy", out / "toolcall_accuracy.png", "Tool-calling accuracy (95% CI)",
                  "accuracy_ci95")
        bar_chart(tool, suites, "valid_rate", out / "toolcall_validity.png", "Schema-valid tool calls")
    if code:
        parts += ["## Coding tasks", "", coding_table(code), "", "![coding](coding_resolved.png)", ""]
        bar_chart(code, suite_names(code), "resolved_rate", out / "coding_resolved.png", "Coding tasks resolved",
                  "resolved_ci95")
    parts += ["## Speed", "", throughput_table(runs), "", "## Runs", ""]
    for r in runs:
        s = r["settings"]
        cut = " **incomplete: cut off before its last suite**" if r.get("complete") is False else ""
        parts.append(f"- **{r['label']}**{cut} ({r['kind']}, {r['created']}): model `{r['model']['spec']}`, "
                     f"{r['model']['backend']}; max_tokens {s.get('max_tokens', s.get('max_tokens_per_turn'))}, "
                     f"temperature {s.get('temperature')}, limit {s.get('limit')}; "
                     f"file{'s' if len(r.get('_files', [])) > 1 else ''} "
                     + ", ".join(f"`{f}`" for f in r.get("_files", [Path(r["_path"]).name])))
    path = out / "report.md"
    write_text(path, "\n".join(parts) + "\n")
    return path


def update_readme(readme: Path, table: str, start: str = START, end: str = END) -> None:
    text = readme.read_text(encoding="utf-8")
    if start not in text or end not in text or text.index(start) > text.index(end):
        raise ValueError(f"{readme} has no {start} ... {end} block: add the two markers where the table goes")
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    write_text(readme, f"{head}{start}\n{table}\n{end}{tail}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description="Markdown table and PNG charts comparing eval runs",
                                formatter_class=HelpFormatter)
    p.add_argument("--results", default=str(DEFAULT_DIR),
                   help="folder of result JSON files, searched recursively (default: eval/results)")
    p.add_argument("--out", default=None, help="output folder (default: RESULTS/report)")
    p.add_argument("--labels", default=None,
                   help="only these run labels, comma-separated, in this order (default: every label, oldest first)")
    p.add_argument("--all-runs", action="store_true", help="every run, not only the latest per label")
    p.add_argument("--readme", default=None, help="file whose eval-table block gets the accuracy table")
    p.add_argument("--quality-readme", default=None,
                   help="file whose quality-table block gets the BFCL table (suites as rows, the runs' accuracy "
                        "with 95%% intervals, schema-valid and call rates, targets and published anchors)")
    args = p.parse_args(argv)
    try:
        runs, skipped = load_runs(args.results)
    except FileNotFoundError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    for s in skipped:
        print(f"skipped {s}", file=sys.stderr)
    wanted = [x.strip() for x in args.labels.split(",") if x.strip()] if args.labels else []
    if wanted:
        missing = set(wanted) - {r["label"] for r in runs}
        if missing:
            print(f"error: no runs labelled {', '.join(sorted(missing))} in {args.results}", file=sys.stderr)
            return 2
        runs = [r for r in runs if r["label"] in wanted]
    if not runs:
        print(f"error: no eval results in {args.results}: run `python -m eval.toolcall` first", file=sys.stderr)
        return 2
    runs = runs if args.all_runs else latest(runs)
    if wanted:  # the columns and rows in the order asked for (sorted is stable: a label's runs keep their order)
        runs = sorted(runs, key=lambda r: wanted.index(r["label"]))
    path = render(runs, Path(args.out or Path(args.results) / "report"))
    if args.readme:
        tool = [r for r in runs if r["kind"] == "toolcall"]
        try:
            update_readme(Path(args.readme), toolcall_table(tool) if tool else coding_table(runs))
        except (OSError, ValueError) as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
    if args.quality_readme:
        tool = [r for r in runs if r["kind"] == "toolcall"]
        if not tool:
            print(f"error: no tool-call results in {args.results}: the quality table is left as it is",
                  file=sys.stderr)
            return 2
        try:
            update_readme(Path(args.quality_readme), bfcl_table(tool, detail=True, targets=True), *QUALITY_MARKERS)
        except (OSError, ValueError) as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
