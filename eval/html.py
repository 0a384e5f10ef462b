"""One self-contained HTML page for a run folder, and a trajectory viewer: open the file, no server, no network.

Run:
    python -m eval.html report runs/pipeline --out report.html        # a pipeline output folder
    python -m eval.html report runs/dft-1 --out dft.html              # a train.dft or train.grpo run folder
    python -m eval.html report eval/results --out eval.html           # a folder of eval result files
    python -m eval.html trajectories runs/grpo-1/trajectories --out viewer.html    # see eval/html_trajectories.py

`report` finds what the folder holds: a pipeline output (done/<stage>.json markers, sft/, grpo/, eval/, agent/),
a train run (config.yaml, metrics.jsonl, summary.json, validity.json or eval.json, data_stats.json) or eval results
(eval/results.py files). The page has a summary, loss curves (and rewards and rates for GRPO) as inline SVG, the
held-out before/after figures, per-run eval tables (accuracy with its 95% interval, valid and call rates per suite)
and every per-item outcome in one table filtered by suite and failure kind (a few lines of inline JS; with JS off
every row shows). Missing or partial files are named on the page, never fatal; a path that does not exist is an
error (exit code 2). Every text from the files is escaped.

Left out: zooming or hovering on the charts, comparing two run folders on one page, the PNGs the runs write
(the SVG charts draw the same data).
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import sys
from html import escape
from pathlib import Path

from matplotlib.ticker import MaxNLocator

from nanoagent.atomic import write_text
from nanoagent.config import HelpFormatter
from nanoagent.metrics import read_metrics
from eval.report import _cell, _pct, latest, suite_names
from eval.results import load_runs

# pipeline.STAGES (importing that module loads MLX; tests/test_eval_html.py checks they agree)
PIPELINE_STAGES = ("smoke", "data", "sft", "grpo", "export", "eval", "agent")
COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf", "#7f7f7f")
CSS = """body{font:14px/1.4 system-ui,sans-serif;margin:1.5em auto;max-width:1150px;padding:0 1em;color:#222}
h1{font-size:1.5em}h2{border-bottom:1px solid #ccc;margin-top:1.6em}h3{margin-bottom:.3em}
table{border-collapse:collapse;margin:.5em 0;display:block;overflow-x:auto;max-width:100%}td,th{border:1px solid #ddd;padding:2px 7px;text-align:left;
vertical-align:top}th{background:#f3f3f3}tr[hidden]{display:none}.num{text-align:right}
pre{background:#f7f7f7;padding:.5em;white-space:pre-wrap;word-break:break-word;margin:.3em 0;max-height:40em;
overflow:auto}.missing{background:#fff4e5;border-left:4px solid #f0a030;padding:.4em .8em}.bad{color:#b00}
.good{color:#070}svg{background:#fff;border:1px solid #eee;margin:.3em .5em .3em 0}.charts{display:flex;
flex-wrap:wrap}.turn{border:1px solid #ddd;border-radius:6px;margin:.5em 0;padding:.4em .7em}
.system{background:#f4f4f4}.user{background:#eef5ff}.assistant{background:#f1fbf1}.tool{background:#fffbea}
.role{font-weight:bold;font-size:.85em;color:#555}.meta{color:#666;font-size:.85em}.add{color:#070}
.del{color:#b00}.hunk{color:#55a}nav li{margin:.15em 0}"""

FILTER_JS = """(function(){var s=document.getElementById('f-suite'),k=document.getElementById('f-kind'),
c=document.getElementById('f-count'),rows=document.querySelectorAll('#items tbody tr');
function apply(){var n=0;rows.forEach(function(r){var ok=(!s.value||r.dataset.suite===s.value)&&(!k.value||
r.dataset.kind===k.value||(k.value==='!ok'&&r.dataset.kind!=='ok'));r.hidden=!ok;if(ok)n++;});
c.textContent=n+' of '+rows.length+' items shown';}
var q=new URLSearchParams(location.search);if(q.get('suite'))s.value=q.get('suite');
if(q.get('kind'))k.value=q.get('kind');
s.addEventListener('change',apply);k.addEventListener('change',apply);apply();})();"""


def esc(x) -> str:
    return escape("" if x is None else str(x))


def page(title: str, body: list[str], script: str = "") -> str:
    stamp = datetime.datetime.now().isoformat(timespec="seconds")
    js = f"<script>{script}</script>" if script else ""
    return (f"<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>{esc(title)}</title>"
            f"<style>{CSS}</style></head><body><h1>{esc(title)}</h1><p class=meta>written {stamp} by "
            f"<code>python -m eval.html</code></p>\n" + "\n".join(body) + f"\n{js}</body></html>\n")


def table(head: list[str], rows: list[list], attrs: list[str] | None = None, tid: str = "") -> str:
    """Cells are escaped unless wrapped in Raw; `attrs` adds attributes to each <tr>."""
    def cell(c):
        return c.html if isinstance(c, Raw) else esc(_fmt(c))
    body = "".join(f"<tr{' ' + attrs[i] if attrs else ''}>" + "".join(f"<td>{cell(c)}</td>" for c in r) + "</tr>"
                   for i, r in enumerate(rows))
    return (f"<table{f' id={tid}' if tid else ''}><thead><tr>" + "".join(f"<th>{esc(h)}</th>" for h in head)
            + f"</tr></thead><tbody>{body}</tbody></table>")


class Raw:
    def __init__(self, html: str):
        self.html = html


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, (dict, list)):
        return json.dumps(v, ensure_ascii=False)
    return "" if v is None else str(v)


def missing_note(missing: list[str], where: Path) -> str:
    return (f"<p class=missing>missing in <code>{esc(where)}</code>: " + ", ".join(f"<code>{esc(m)}</code>"
            for m in missing) + "</p>") if missing else ""


def read_json(path: Path, problems: list[str]):
    """The JSON in `path`, or None with the reason added to `problems` (a missing file is not a problem here)."""
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        problems.append(f"{path.name} is not readable JSON ({e})")
        return None


def tick_label(value: float, ticks) -> str:
    """`value` with as many digits as its axis's tick step needs, so neighbouring ticks never read the same."""
    step = abs(ticks[1] - ticks[0]) if len(ticks) > 1 else 1.0
    span = max(abs(t) for t in ticks) or 1.0
    if step >= 1e-4 and span < 1e6:
        decimals = next((d for d in range(8) if abs(round(step, d) - step) <= step * 1e-6), 8)
        return f"{value:.{decimals}f}"
    return f"{value:.{max(1, math.ceil(math.log10(span / step)) + 1)}g}"


def line_chart(series: dict[str, list], title: str, width: int = 540, height: int = 250) -> str:
    """An SVG line chart of {name: [(x, y), ...]}; points whose y is not a finite number are dropped."""
    series = {k: [(float(x), float(y)) for x, y in v if isinstance(y, (int, float)) and y == y
                  and abs(y) != float("inf")] for k, v in series.items()}
    series = {k: v for k, v in series.items() if v}
    if not series:
        return ""
    xs = [x for v in series.values() for x, _ in v]
    ys = [y for v in series.values() for _, y in v]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    if x1 == x0:
        x0, x1 = x0 - 1, x1 + 1
    if y1 == y0:
        y0, y1 = y0 - (abs(y0) * 0.1 or 1), y1 + (abs(y1) * 0.1 or 1)
    # round tick values (0.2, 0.4 ...; steps 0, 50, 100), the axes widened to the outer ticks
    xticks = MaxNLocator(nbins=5, integer=all(x.is_integer() for x in xs)).tick_values(x0, x1)
    yticks = MaxNLocator(nbins=5).tick_values(y0, y1)
    x0, x1, y0, y1 = min(x0, xticks[0]), max(x1, xticks[-1]), min(y0, yticks[0]), max(y1, yticks[-1])
    left, right, top, bottom = 52, 12, 24, 32
    w, h = width - left - right, height - top - bottom

    def px(x):
        return left + (x - x0) / (x1 - x0) * w

    def py(y):
        return top + (y1 - y) / (y1 - y0) * h

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + 18 * len(series)}" '
           f'role="img"><title>{esc(title)}</title><text x="{left}" y="15" font-size="13" font-weight="bold">'
           f'{esc(title)}</text><rect x="{left}" y="{top}" width="{w}" height="{h}" fill="none" stroke="#999"/>']
    for yv in yticks:
        out.append(f'<line x1="{left}" x2="{left + w}" y1="{py(yv):.1f}" y2="{py(yv):.1f}" stroke="#eee"/>'
                   f'<text x="{left - 4}" y="{py(yv) + 4:.1f}" font-size="10" text-anchor="end">'
                   f'{tick_label(yv, yticks)}</text>')
    for xv in xticks:
        out.append(f'<text x="{px(xv):.1f}" y="{top + h + 14}" font-size="10" text-anchor="middle">'
                   f'{tick_label(xv, xticks)}</text>')
    out.append(f'<text x="{left + w / 2}" y="{top + h + 28}" font-size="10" text-anchor="middle">step</text>')
    for i, (name, pts) in enumerate(series.items()):
        color = COLORS[i % len(COLORS)]
        pts = sorted(pts)
        path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in pts)
        out.append(f'<polyline fill="none" stroke="{color}" stroke-width="1.6" points="{path}"/>')
        if len(pts) <= 30:
            out += [f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="2.5" fill="{color}"/>' for x, y in pts]
        ly = height + 18 * i + 4
        out.append(f'<line x1="{left}" x2="{left + 18}" y1="{ly}" y2="{ly}" stroke="{color}" stroke-width="3"/>'
                   f'<text x="{left + 24}" y="{ly + 4}" font-size="11">{esc(name)}</text>')
    return "".join(out) + "</svg>"


def before_after(data: dict, title: str) -> str:
    """A table of the scalar figures of {"before": {...}, "after": {...}} (validity.json, GRPO's eval.json)."""
    cols = [c for c in ("before", "after") if isinstance(data.get(c), dict)]
    keys = [k for c in cols for k, v in data[c].items() if isinstance(v, (int, float, str)) or v is None]
    keys = list(dict.fromkeys(keys))
    rows = [[k] + [data[c].get(k) for c in cols] for k in keys]
    return f"<h3>{esc(title)}</h3>" + table(["figure"] + cols, rows) if rows else ""


def train_section(run: Path, heading: str) -> list[str]:
    """A train.dft or train.grpo run folder: what is missing, summary, curves, before/after, data, config."""
    problems: list[str] = []
    rows, broken = read_metrics(run / "metrics.jsonl", with_broken=True)
    train = [r for r in rows if r.get("kind") == "train"]
    grpo = any("reward_mean" in r for r in train) or (run / "eval.json").is_file() or (run / "trajectories").is_dir()
    expect = ["config.yaml", "metrics.jsonl", "summary.json", "model"] + (
        ["grpo.png"] if grpo else ["validity.json", "data_stats.json", "loss.png"])
    missing = [f for f in expect if not (run / f).exists()]
    if broken:
        problems.append(f"metrics.jsonl: {len(broken)} broken lines (line {', '.join(map(str, broken[:5]))})")
    out = [f"<h2>{esc(heading)}: {'GRPO' if grpo else 'SFT/DFT'} run <code>{esc(run)}</code></h2>",
           missing_note(missing, run)]
    valid = [r for r in rows if r.get("kind") == "valid"]
    curves = {"train loss": [(r.get("step"), r.get("loss")) for r in train],
              "val loss": [(r.get("step"), r.get("val_loss")) for r in valid],
              "val cross-entropy": [(r.get("step"), r.get("val_ce")) for r in valid]}
    if curves["val loss"] == curves["val cross-entropy"]:  # SFT: the loss is the cross-entropy
        curves.pop("val loss")
    charts = [line_chart(curves, "loss")]
    if grpo:
        parts = [k for k in (train[0] if train else {}) if k.startswith("reward_") and k.endswith("_mean")]
        charts.append(line_chart({k[7:-5] or "total": [(r.get("step"), r.get(k)) for r in train]
                                  for k in ["reward_mean"] + [p for p in parts if p != "reward_mean"]}, "reward"))
        charts.append(line_chart({k: [(r.get("step"), r.get(k)) for r in train]
                                  for k in ("valid_call_rate", "test_pass_rate", "zero_adv_share")}, "rates"))
    charts = [c for c in charts if c]
    out.append(f"<p>{len(train)} train steps and {len(valid)} validations in metrics.jsonl.</p>")
    out.append(f"<div class=charts>{''.join(charts)}</div>" if charts else "<p>no curves: no train rows.</p>")
    summary = read_json(run / "summary.json", problems)
    if isinstance(summary, dict):
        out += ["<h3>summary.json</h3>", table(["key", "value"], [[k, v] for k, v in summary.items()])]
    for name, title in (("validity.json", "held-out tool calls, before / after training"),
                        ("eval.json", "held-out coding tasks, before / after GRPO")):
        data = read_json(run / name, problems)
        if isinstance(data, dict):
            out.append(before_after(data, f"{name}: {title}"))
    stats = read_json(run / "data_stats.json", problems)
    if isinstance(stats, dict):
        srows = [[split, s.get("path"), s.get("records"), s.get("kept"), s.get("tokens"), s.get("supervised_tokens"),
                  s.get("skipped_too_long"), s.get("bad_records")] for split, s in stats.items() if isinstance(s, dict)]
        out += ["<h3>data_stats.json</h3>", table(["split", "path", "records", "kept", "tokens", "supervised",
                                                   "too long", "malformed"], srows)]
    traj = sorted((run / "trajectories").glob("*.jsonl")) if grpo else []
    if traj:
        out.append(f"<p>{len(traj)} trajectory files in <code>{esc(run / 'trajectories')}</code>: "
                   f"<code>python -m eval.html trajectories {esc(run / 'trajectories')}</code></p>")
    if (run / "config.yaml").is_file():
        out.append("<details><summary>config.yaml</summary><pre>"
                   f"{esc((run / 'config.yaml').read_text(encoding='utf-8', errors='replace'))}</pre></details>")
    out += [f"<p class=bad>{esc(p)}</p>" for p in problems]
    return out


def _kind(item: dict, coding: bool) -> str:
    if coding:
        return "ok" if item.get("success") else str(item.get("exit_status") or "failed")
    return str(item.get("kind") or "unknown")


def _mark(flag) -> Raw:
    return Raw("" if flag is None else "<span class=good>yes</span>" if flag else "<span class=bad>no</span>")


def eval_section(folder: Path, heading: str) -> tuple[list[str], bool]:
    """Eval result files (eval/results.py): per-run tables and the filterable per-item table; (html, has items)."""
    runs, skipped = load_runs(folder)
    out = [f"<h2>{esc(heading)}: eval results in <code>{esc(folder)}</code></h2>"]
    if skipped:
        out.append("<p class=missing>files that are not eval results: " + ", ".join(map(esc, skipped)) + "</p>")
    if not runs:
        return out + ["<p class=missing>no eval result files here.</p>"], False
    runs = latest(runs)
    tool = [r for r in runs if r.get("kind") == "toolcall"]
    if tool:
        names = suite_names(tool)
        out += ["<h3>tool-calling accuracy per suite (%, 95% interval, items)</h3>",
                table(["run", "backend"] + names, [[r.get("label"), r.get("model", {}).get("backend")]
                      + [_cell(r["suites"].get(s, {}).get("metrics")) for s in names] for r in tool])]
    items, attrs, keys = [], [], []
    for r in runs:
        coding = r.get("kind") == "coding"
        out.append(f"<h3>{esc(r.get('label'))} ({esc(r.get('kind'))}, {esc(r.get('created'))})</h3>"
                   f"<p class=meta>model <code>{esc(r.get('model', {}).get('spec'))}</code>, "
                   f"{esc(r.get('model', {}).get('backend'))}; files {esc(', '.join(r.get('_files', [])))}"
                   + (" <b class=bad>incomplete: cut off before its last suite</b>" if r.get("complete") is False
                      else "") + "</p>")
        rows = []
        for name, s in r["suites"].items():
            m = s.get("metrics") or {}
            if coding:
                ci = m.get("resolved_ci95")
                rows.append([name, m.get("tasks"), m.get("runs"), f"{_pct(m.get('resolved_rate'))}"
                             + (f" ({_pct(ci[0])}-{_pct(ci[1])})" if ci else ""),
                             ", ".join(f"@{k} {_pct(v)}" for k, v in (m.get("pass_at_k") or {}).items()),
                             m.get("mean_turns"),
                             ", ".join(f"{k} {v}" for k, v in sorted((m.get("exit_statuses") or {}).items()))])
            else:
                ci = m.get("accuracy_ci95")
                fails = sorted(((v, k) for k, v in (m.get("kinds") or {}).items() if k != "ok"), reverse=True)
                rows.append([name, m.get("n"), f"{_pct(m.get('accuracy'))}" + (f" ({_pct(ci[0])}-{_pct(ci[1])})"
                             if ci else ""), _pct(m.get("valid_rate")), _pct(m.get("call_rate")),
                             ", ".join(f"{k} {v}" for v, k in fails[:3])])
            for it in s.get("items") or []:
                if not isinstance(it, dict):
                    continue
                kind = _kind(it, coding)
                item_id = f"{it.get('task')}#{it.get('sample', 0)}" if coding else it.get("id")
                detail = (it.get("exit_message") or it.get("error") if coding
                          else it.get("reply") or it.get("message"))
                items.append([r.get("label"), name, item_id, kind,
                              _mark(it.get("patch_applied") if coding else it.get("valid")),
                              _mark(it.get("success") if coding else it.get("correct")),
                              Raw(f"<pre>{esc(str(detail or '')[:400])}</pre>")])
                attrs.append(f'data-suite="{esc(name)}" data-kind="{esc(kind)}"')
                keys.append((name, kind))
        head = (["suite", "tasks", "runs", "resolved %", "pass@k", "mean turns", "exits"] if coding else
                ["suite", "items", "accuracy %", "valid %", "call %", "top failures"])
        out.append(table(head, rows))
    if items:
        suites = "".join(f"<option>{esc(s)}</option>" for s in sorted({s for s, _ in keys}))
        kinds = "".join(f"<option>{esc(k)}</option>" for k in sorted({k for _, k in keys}))
        out += ["<h2>per-item outcomes</h2><p>suite <select id=f-suite><option value=''>all</option>"
                f"{suites}</select> outcome <select id=f-kind><option value=''>all</option>"
                f"<option value='!ok'>any failure</option>{kinds}</select> <span id=f-count>"
                f"{len(items)} items</span></p>",
                table(["run", "suite", "item", "outcome", "valid", "correct", "reply / message"], items, attrs,
                      tid="items")]
    return out, bool(items)


def build_report(folder: Path) -> tuple[str, list[str]]:
    """(the page, notes for the terminal) for a pipeline, train run or eval results folder."""
    body, notes, script = [], [], False
    done = folder / "done"
    pipeline = done.is_dir() or any((folder / s).is_dir() for s in ("sft", "grpo", "agent"))
    train = any((folder / f).is_file() for f in ("metrics.jsonl", "config.yaml", "summary.json"))
    present = sorted(p.name + ("/" if p.is_dir() else "") for p in folder.iterdir())
    if pipeline:
        kind = "pipeline output"
        problems: list[str] = []
        markers = {s: read_json(done / f"{s}.json", problems) for s in PIPELINE_STAGES}
        rows = [[s, (m or {}).get("status", "not run"), (m or {}).get("seconds"), (m or {}).get("note"),
                 (m or {}).get("result") or ""] for s, m in markers.items()]
        body += ["<h2>stages</h2>", table(["stage", "status", "seconds", "note", "result"], rows),
                 missing_note([f"done/{s}.json" for s, m in markers.items() if m is None], folder)]
        body += [f"<p class=bad>{esc(p)}</p>" for p in problems]
        for sub in ("sft", "grpo"):
            if (folder / sub).is_dir():
                body += train_section(folder / sub, sub)
        if (folder / "eval").is_dir():
            html, script = eval_section(folder / "eval", "eval")
            body += html
        agent = read_json(folder / "agent" / "trajectory.json", [])
        if isinstance(agent, dict):
            body.append(f"<h2>agent</h2><p>exit status <b>{esc(agent.get('exit_status'))}</b> after "
                        f"{len(agent.get('steps') or [])} steps: {esc(agent.get('exit_message'))}. View it: "
                        f"<code>python -m eval.html trajectories {esc(folder / 'agent' / 'trajectory.json')}"
                        "</code></p>")
    elif train:
        kind = "train run"
        body += train_section(folder, "run")
    else:
        runs, _ = load_runs(folder)
        kind = "eval results" if runs else "nothing recognised"
        if runs:
            html, script = eval_section(folder, "eval")
            body += html
        else:
            notes.append(f"{folder}: no pipeline markers (done/), train run files (metrics.jsonl, config.yaml, "
                         "summary.json) or eval result files")
            body.append(f"<p class=missing>{esc(notes[-1])}.</p>")
    summary = (f"<h2>summary</h2><p><b>{esc(kind)}</b> in <code>{esc(folder.resolve())}</code>; it holds: "
               + ", ".join(f"<code>{esc(p)}</code>" for p in present) + "</p>")
    missing = sum(b.count("class=missing") for b in body)
    if missing:
        notes.append(f"the page names {missing} missing or unreadable file set{'s' if missing > 1 else ''}")
    return page(f"nanoagent report: {folder.name}", [summary] + body, FILTER_JS if script else ""), notes


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m eval.html", description=__doc__.splitlines()[0],
                                formatter_class=HelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    what = "a pipeline, train run or eval results folder -> one HTML page"
    r = sub.add_parser("report", help=what, description=what, formatter_class=HelpFormatter)
    r.add_argument("folder", help="a pipeline output folder, a train.dft or train.grpo run folder, or a folder of "
                                  "eval result files")
    r.add_argument("--out", default="report.html", help="the HTML file to write")
    what = "a trajectory JSON, a folder of them or a JSONL -> one HTML viewer"
    t = sub.add_parser("trajectories", help=what, description=what, formatter_class=HelpFormatter)
    t.add_argument("path", help="a trajectory JSON file, a folder of them or a JSONL of trajectories")
    t.add_argument("--out", default="viewer.html", help="the HTML file to write")
    args = p.parse_args(argv)
    src = Path(args.folder if args.command == "report" else args.path)
    if not src.exists():
        print(f"error: {src} does not exist", file=sys.stderr)
        return 2
    if args.command == "report":
        if not src.is_dir():
            print(f"error: {src} is not a folder (report takes a run, pipeline or eval results folder)",
                  file=sys.stderr)
            return 2
        text, notes = build_report(src)
    else:
        from eval.html_trajectories import build_viewer

        try:
            text, notes = build_viewer(src)
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
    for n in notes:
        print(f"note: {n}", file=sys.stderr)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_text(out, text)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
