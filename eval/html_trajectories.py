"""The trajectory viewer of `python -m eval.html trajectories PATH [--out viewer.html]`: one self-contained page.

    python -m eval.html trajectories runs/agent/20260101-1200-42/trajectory.json     # one agent run
    python -m eval.html trajectories runs/grpo-1/trajectories --out grpo.html        # a folder of .json / .jsonl
    python -m eval.html trajectories runs/grpo-1/trajectories/step_0000001.jsonl     # one GRPO step's rollouts

PATH is a trajectory JSON (nanoagent/agent/trajectory.py `Trajectory.save`), a JSONL with one per line (as
train.grpo writes: {"task", "rollout", "reward", "advantage", "parts", "error", "outcome", "trajectory"}, the
trajectory without token ids) or a folder searched recursively for both. Each trajectory shows its task, exit
status, token counts, rewards and test outcome when there are any, every turn as a chat (the system prompt folded,
tool calls as JSON, long tool outputs cut with the rest behind <details>), and the final diff; a list of anchors at
the top leads to each. Lines or files that are not trajectories are counted on the page and skipped.

Trajectories are read as plain dicts (the same check as `Trajectory.from_dict`: an object with `messages`), so a
GRPO record whose rollout crashed (no trajectory) still shows its reward and error.
Left out: the token ids and log-probs a trajectory may hold, side-by-side comparison of two trajectories.
"""

from __future__ import annotations

import json
from pathlib import Path

from eval.html import esc, page, table
from nanoagent.metrics import read_jsonl

TOOL_CHARS = 600      # characters of a tool output shown before the rest is folded behind <details>


def _entry(data, source: str) -> dict | None:
    """A viewer entry from a trajectory dict or a GRPO rollout record; None when it is neither."""
    if not isinstance(data, dict):
        return None
    if "messages" in data:
        return {"source": source, "traj": data}
    if "trajectory" in data or {"reward", "rollout"} <= data.keys():
        traj = data.get("trajectory")
        return {"source": source, "traj": traj if isinstance(traj, dict) and "messages" in traj else None,
                **{k: data.get(k) for k in ("task", "rollout", "reward", "advantage", "parts", "error", "outcome")}}
    return None


def load_entries(path: Path) -> tuple[list[dict], list[str]]:
    """(entries, "WHERE (why)" for every file or line that is not a trajectory)."""
    files = sorted(p for p in path.rglob("*") if p.suffix in (".json", ".jsonl") and not p.name.startswith("."))\
        if path.is_dir() else [path]
    entries, skipped = [], []
    for f in files:
        if f.suffix == ".jsonl":
            rows, broken = read_jsonl(f)
            skipped += [f"{f}:{n} (not JSON)" for n in broken]
            for n, row in rows:
                e = _entry(row, f"{f}:{n}")
                entries.append(e) if e else skipped.append(f"{f}:{n} (not a trajectory)")
            continue
        try:
            data = json.loads(f.read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            skipped.append(f"{f} (not JSON: {err})")
            continue
        for i, d in enumerate(data if isinstance(data, list) else [data]):
            e = _entry(d, f"{f}" + (f"[{i}]" if isinstance(data, list) else ""))
            entries.append(e) if e else skipped.append(f"{f} (not a trajectory: no 'messages')")
    return entries, skipped


def _text(s, cut: int = TOOL_CHARS) -> str:
    s = "" if s is None else s if isinstance(s, str) else json.dumps(s, ensure_ascii=False, indent=1)
    if len(s) <= cut:
        return f"<pre>{esc(s)}</pre>"
    return (f"<pre>{esc(s[:cut])}</pre><details><summary>all {len(s)} characters</summary>"
            f"<pre>{esc(s)}</pre></details>")


def _calls(calls) -> str:
    out = []
    for c in calls or []:
        fn = c.get("function", c) if isinstance(c, dict) else {}
        args = fn.get("arguments")
        out.append(f"<div>call <code>{esc(fn.get('name'))}</code><pre>"
                   f"{esc(args if isinstance(args, str) else json.dumps(args, ensure_ascii=False, indent=1))}"
                   "</pre></div>")
    return "".join(out)


def _diff(diff: str) -> str:
    cls = {"+": "add", "-": "del", "@": "hunk"}
    lines = [f"<span class={cls[ln[0]]}>{esc(ln)}</span>" if ln[:1] in cls and not ln.startswith(("+++", "---"))
             else esc(ln) for ln in diff.splitlines()]
    return "<pre>" + "\n".join(lines) + "</pre>"


def turns(traj: dict) -> list[str]:
    """One <div class="turn ROLE"> per message; assistant turns carry their step's tokens, tool turns their result."""
    steps = [s for s in traj.get("steps") or [] if isinstance(s, dict)]
    out, si, results = [], -1, []
    for m in traj.get("messages") or []:
        if not isinstance(m, dict):
            continue
        role = str(m.get("role", "?"))
        head, body = esc(role), ""
        if role == "system":
            content = str(m.get("content") or "")
            body = f"<details><summary>system prompt ({len(content)} characters)</summary>{_text(content, 10**9)}" \
                   "</details>"
        elif role == "assistant":
            si += 1
            step = steps[si] if si < len(steps) else {}
            results = list(step.get("results") or [])
            if step:
                secs = (step.get("timings") or {}).get("model_s")
                head += (f" <span class=meta>step {esc(step.get('index', si))}: {esc(step.get('prompt_tokens'))} "
                         f"prompt + {esc(step.get('completion_tokens'))} completion tokens"
                         + (f", finish {esc(step['finish_reason'])}" if step.get("finish_reason") else "")
                         + (f", model {esc(secs)} s" if secs is not None else "") + "</span>")
            body = _text(m.get("content"), 10**9) if m.get("content") else ""
            body += _calls(m.get("tool_calls"))
            if step.get("error"):
                body += f"<p class=bad>malformed tool call: {esc(step['error'])}</p>"
        elif role == "tool":
            res = results.pop(0) if results else {}
            if m.get("name"):
                head += f" <code>{esc(m['name'])}</code>"
            if res:
                ok = res.get("ok")
                head += (f" <span class={'good' if ok else 'bad'}>{'ok' if ok else 'error'}</span>"
                         f" <span class=meta>{esc(res.get('seconds'))} s</span>")
            body = _text(m.get("content"))
        else:
            body = _text(m.get("content"), 10**9)
        out.append(f'<div class="turn {esc(role)}"><div class=role>{head}</div>{body}</div>')
    return out


def entry_html(i: int, e: dict) -> str:
    t = e["traj"] or {}
    tok = t.get("tokens") or {}
    meta = t.get("meta") or {}
    out = [f"<h2 id=t{i}>{i + 1}. {esc(str(t.get('task') or e.get('task') or '')[:160])}</h2>",
           f"<p class=meta>{esc(e['source'])}</p>"]
    if t:
        facts = [f"{len(t.get('steps') or [])} steps", "tokens: " + ", ".join(
            f"{esc(tok.get(k))} {k}" for k in ("prompt", "completion", "context") if tok.get(k) is not None)]
        facts += [f"{esc(t['seconds'])} s"] if t.get("seconds") else []
        facts += [f"{k} <code>{esc(meta[k])}</code>" for k in ("backend", "model") if meta.get(k)]
        out.append(f"<p>exit status <b>{esc(t.get('exit_status'))}</b>: {esc(t.get('exit_message'))}; "
                   + "; ".join(facts) + "</p>")
    if e.get("reward") is not None or e.get("parts"):
        parts = e.get("parts") or {}
        out.append(table(["reward", "advantage"] + list(parts), [[e.get("reward"), e.get("advantage")]
                                                                  + list(parts.values())]))
    if e.get("error"):
        out.append(f"<p class=bad>error: {esc(e['error'])}</p>")
    oc = e.get("outcome")
    if isinstance(oc, dict):
        out.append(f"<p>tests: <b class={'good' if oc.get('success') else 'bad'}>"
                   f"{'passed' if oc.get('success') else 'failed'}</b>, exit code {esc(oc.get('exit_code'))}, "
                   f"patch applied {esc(oc.get('patch_applied'))} {esc(oc.get('error'))}</p>"
                   f"<details><summary>test output</summary>{_text(oc.get('output'), 10**9)}</details>")
    if not e["traj"]:
        return "\n".join(out + ["<p class=missing>no trajectory in this record (the rollout crashed)</p>"])
    out += turns(t)
    stats = t.get("diff_stats") or {}
    out.append(f"<h3>final diff</h3><p class=meta>{esc(json.dumps(stats))}</p>" +
               (_diff(t["diff"]) if t.get("diff") else "<p>empty diff: the run changed no file</p>"))
    return "\n".join(out)


def build_viewer(path: Path) -> tuple[str, list[str]]:
    """(the page, notes for the terminal) for a trajectory file, JSONL or folder; ValueError when it holds none."""
    entries, skipped = load_entries(path)
    notes = [f"{len(skipped)} lines or files are not trajectories (listed on the page)"] if skipped else []
    nav = []
    for i, e in enumerate(entries):
        t = e["traj"] or {}
        reward = f", reward {e['reward']:.3g}" if isinstance(e.get("reward"), (int, float)) else ""
        nav.append(f"<li><a href='#t{i}'>{i + 1}. {esc(str(t.get('task') or e.get('task') or '')[:90])}</a> "
                   f"<span class=meta>{esc(t.get('exit_status', 'no trajectory'))}, "
                   f"{len(t.get('steps') or [])} steps{esc(reward)}</span></li>")
    body = [f"<p>{len(entries)} trajectories from <code>{esc(path)}</code>"
            + (f"; <b class=bad>{len(skipped)} skipped</b> (not trajectories or broken lines)" if skipped else "")
            + "</p>"]
    if skipped:
        body.append("<details class=missing><summary>skipped</summary><ul>"
                    + "".join(f"<li>{esc(s)}</li>" for s in skipped[:200]) + "</ul></details>")
    if not entries:
        first = f" (first: {skipped[0]})" if skipped else ""
        raise ValueError(f"no trajectories in {path}: {len(skipped)} lines or files read, none a trajectory{first}. "
                         "Give a trajectory .json, a folder of them, or a GRPO trajectories .jsonl")
    body += [f"<nav><ol style='list-style:none;padding:0'>{''.join(nav)}</ol></nav>"] if nav else []
    body += [f"<section class=trajectory>{entry_html(i, e)}</section>" for i, e in enumerate(entries)]
    return page(f"nanoagent trajectories: {path.name}", body), notes
