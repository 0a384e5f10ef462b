"""`nanoagent specialize`: your tools in, a model that calls them out, offline, each stage its own command.

    nanoagent specialize --tools TOOLS --out DIR [--examples EXAMPLES.jsonl] [--base MODEL] [--test REQUESTS.jsonl]
    python -m specialize ...                     # the same

TOOLS is an OpenAI tools list, an MCP tools/list result or an OpenAPI 3 document (JSON or YAML). The stages, each
printed before it runs and resumable (a finished stage leaves DIR/done/STAGE.json; a killed run started again with
the same settings skips what finished, and training continues from its last checkpoint):

    data    python -m data_recipes.specialize  -> DIR/data (generated rows, examples multiplied, held-out splits)
    train   python -m train.dft                -> DIR/train/model (SFT, full fine-tuning, the tool list run once per
                                                  batch: --share-prefix; the length sized to the tool list)
    export  python -m export.gguf              -> DIR/model-q8_0.gguf (+ parity report against MLX)
    eval    python -m eval.specialist          -> DIR/eval/*.json (the base and the specialist, Q8_0 through
                                                  llama.cpp, on the held-out rows, the held-out examples and --test)

and ends with DIR/report.html and the command that serves the model. `--out` must be a new folder, or one this
command made with the same settings (it then resumes); anything else is refused.

Left out: GRPO after SFT, and training on a machine with a GPU (the settings are sized for a laptop CPU).
"""

from __future__ import annotations

import argparse
import hashlib
import html
import json
import shlex
import sys
from pathlib import Path

import nanoagent  # noqa: F401  (OpenBLAS before mlx)
from nanoagent.atomic import write_json
from nanoagent.config import HelpFormatter
from nanoagent.models import EMBEDDED
from pipeline import Stage, run_stages

GGUF_NAME = "model-q8_0.gguf"
SETTINGS_FILE = "specialize.json"
STAGES = ("data", "train", "export", "eval")
REPLY_ROOM = 320       # tokens after the tool list: a request, a reply, a clarifying exchange
MAX_TOOL_TOKENS = 3500  # a tool list longer than this leaves a 135M model too little context to learn from


class SpecializeError(ValueError):
    pass


def digest(path: str | None) -> str | None:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16] if path else None


def tool_tokens(tools_path: str, model: str, system: str | None, prompt_format: str) -> int:
    """Tokens of the prompt every row shares: the system turn with the tool list, in the model's prompt format."""
    from nanoagent.models import load_tokenizer
    from nanoagent.render import FORMATS, render_prompt
    from nanoagent.toolsets import load_toolset

    tokenizer = load_tokenizer(model)
    msgs = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": ""}]
    return len(render_prompt(msgs, load_toolset(tools_path).tools, tokenizer, FORMATS[prompt_format]))


def plan(args, out: Path, max_length: int) -> list[Stage]:
    py = sys.executable
    gguf, data = out / GGUF_NAME, out / "data"
    data_cmd = [py, "-m", "data_recipes.specialize", "--tools", args.tools, "--out", str(data),
                "--rows", str(args.rows), "--seed", str(args.seed)]
    data_cmd += ["--examples", args.examples] if args.examples else []
    data_cmd += ["--system", args.system] if args.system else []
    train_cmd = [py, "-m", "train.dft", "--model", args.base, "--data", str(data), "--run-dir", str(out / "train"),
                 "--loss", "sft", "--fine-tune", "full", "--no-pack", "--share-prefix",
                 "--prompt-format", args.prompt_format,
                 "--max-length", str(max_length), "--batch-size", str(args.batch_size), "--grad-accum", "1",
                 "--steps", str(args.steps), "--learning-rate", str(args.learning_rate),
                 "--warmup-steps", str(max(1, args.steps // 10)), "--val-every", str(args.steps),
                 "--val-batches", "4", "--save-every", str(max(1, args.steps // 4)), "--validity-n", "0",
                 "--threshold-n", "0", "--prose-bound", "0", "--seed", str(args.seed)]
    train_cmd += [] if args.prefix_grad else ["--no-prefix-grad"]
    export_cmd = [py, "-m", "export.gguf", "--model", str(out / "train" / "model"), "--out", str(gguf)]
    base_gguf = out / "eval" / "base-q8_0.gguf"
    evals = [[py, "-m", "export.gguf", "--model", args.base, "--out", str(base_gguf), "--no-check"]]
    for label, model in (("base", base_gguf), ("specialist", gguf)):
        common = [py, "-m", "eval.specialist", "--model", str(model), "--tools", args.tools, "--label", label]
        common += ["--system", args.system] if args.system else []
        held = ["--examples", str(data / "heldout_examples.jsonl")] if args.examples else []
        evals.append(common + ["--requests", str(data / "heldout_requests.jsonl"), *held,
                               "--out", str(out / "eval" / f"{label}-heldout.json")])
        if args.test:
            evals.append(common + ["--requests", args.test, "--out", str(out / "eval" / f"{label}-test.json")])
    if args.test:  # the same test set with calls decoded under the tools' grammar, for comparison
        evals.append([py, "-m", "eval.specialist", "--model", str(gguf), "--tools", args.tools, "--label",
                      "specialist-constrained", "--constrain", "--requests", args.test,
                      "--out", str(out / "eval" / "specialist-constrained-test.json")]
                     + (["--system", args.system] if args.system else []))
    return [Stage("data", [data_cmd], outputs=[data]),
            Stage("train", [train_cmd]),  # resumes from its checkpoints: never set aside
            Stage("export", [export_cmd], ok={0: "", 3: "GGUF written, parity check failed (see above)"},
                  outputs=[gguf, gguf.with_suffix(".export.json")]),
            Stage("eval", evals, outputs=[out / "eval"])]


def check_out(out: Path, settings: dict, force: bool) -> None:
    """Refuse an --out that is a file, or a folder holding something other than this run."""
    blocker = next((p for p in [out, *out.parents] if p.exists() and not p.is_dir()), None)
    if blocker is not None:
        raise SpecializeError(f"--out {out}: {blocker} is a file; give a folder for the run")
    if not out.is_dir() or not any(out.iterdir()):
        return
    saved = out / SETTINGS_FILE
    if not saved.is_file():
        raise SpecializeError(f"--out {out} already holds files that no specialize run wrote; give a new folder")
    before = json.loads(saved.read_text())
    if before != settings and not force:
        changed = sorted(k for k in set(before) | set(settings) if before.get(k) != settings.get(k))
        raise SpecializeError(f"--out {out} holds another specialize run (its {', '.join(changed)} differ); give "
                              "a new folder, or --force to start this one over with the new settings")


def run(args) -> int:
    out = Path(args.out).resolve()
    from nanoagent.toolsets import ToolSetError, load_toolset

    try:
        toolset = load_toolset(args.tools)
    except ToolSetError as e:
        raise SpecializeError(str(e)) from None
    for path, flag in ((args.examples, "--examples"), (args.test, "--test")):
        if path and not Path(path).is_file():
            raise SpecializeError(f"{flag} {path}: no such file")
    settings = {"tools": str(Path(args.tools).resolve()), "tools_sha256": digest(args.tools),
                "examples": args.examples and str(Path(args.examples).resolve()),
                "examples_sha256": digest(args.examples),
                "base": args.base, "seed": args.seed, "rows": args.rows, "steps": args.steps,
                "batch_size": args.batch_size, "learning_rate": args.learning_rate, "system": args.system,
                "prefix_grad": args.prefix_grad, "prompt_format": args.prompt_format,
                "test": args.test and str(Path(args.test).resolve())}
    check_out(out, settings, args.force)
    shared = tool_tokens(args.tools, args.base, args.system, args.prompt_format)
    if shared > MAX_TOOL_TOKENS:
        raise SpecializeError(f"the tool list takes {shared} tokens in the prompt (the most this command trains on "
                              f"is {MAX_TOOL_TOKENS}); shorten the descriptions, or split the tools into sets of "
                              "fewer tools and specialize a model for each")
    max_length = (shared + REPLY_ROOM + 63) // 64 * 64
    print(f"tools: {len(toolset.tools)} from {args.tools} ({toolset.format}); the tool list takes {shared} tokens, "
          f"so rows are cut at {max_length}")
    out.mkdir(parents=True, exist_ok=True)
    write_json(out / SETTINGS_FILE, settings)
    (out / "done").mkdir(exist_ok=True)
    rows, error = run_stages(plan(args, out, max_length), out, args.force)
    if error is not None:
        print(f"\nerror: {error}", file=sys.stderr)
        return 1
    timings = {name: round(seconds, 1) for name, _, seconds, _ in rows}
    page = write_report(out, timings)
    total = sum(timings.values())
    print(f"\ndone in {total / 60:.1f} min ({', '.join(f'{k} {v / 60:.1f}' for k, v in timings.items())}); "
          f"report: {page}")
    headline(out)
    print(f"\nserve it:\n  nanoagent serve {shlex.quote(str(out / GGUF_NAME))} --tools {shlex.quote(args.tools)}")
    return 0


def _read(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def _pct(x) -> str:
    return "-" if x is None else f"{100 * x:.1f}"


def _ci(m: dict) -> str:
    ci = m.get("accuracy_ci95")
    return f"{_pct(m.get('accuracy'))} ({_pct(ci[0])}-{_pct(ci[1])})" if ci else _pct(m.get("accuracy"))


def results(out: Path) -> list[tuple[str, str, dict]]:
    """(model label, part name, part) for every eval part the run wrote."""
    rows = []
    for split in ("test", "heldout"):
        for label in ("base", "specialist", "specialist-constrained"):
            r = _read(out / "eval" / f"{label}-{split}.json")
            for part, body in (r.get("parts") or {}).items():
                if body and body.get("metrics", {}).get("n"):
                    name = {"test": "test set", "heldout": "held-out generated rows"}[split] if part == "requests" \
                        else "held-out examples"
                    rows.append((label, name, body))
    return rows


def headline(out: Path) -> None:
    for label, name, part in results(out):
        m = part["metrics"]
        print(f"  {label:<10} {name:<24} accuracy {_ci(m)}  no-call {_pct(m.get('no_call_accuracy'))}  "
              f"schema-valid {_pct(m.get('valid_rate'))}  (n={m['n']})")


def write_report(out: Path, timings: dict) -> Path:
    """DIR/report.html: the results first (base vs specialist, by kind and tool), then the data and the training."""
    import base64

    esc = html.escape
    parts = ["<!doctype html><meta charset='utf-8'><title>nanoagent specialist</title><style>body{font:14px "
             "system-ui,sans-serif;max-width:1000px;margin:2em auto;padding:0 1em}table{border-collapse:collapse;"
             "margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}td:first-child,"
             "th:first-child{text-align:left}</style>", f"<h1>Specialist: {esc(out.name)}</h1>"]
    rows = results(out)
    parts.append("<h2>Results (Q8_0 through llama.cpp, greedy; unconstrained unless named)</h2><table><tr>"
                 "<th>model</th><th>split</th><th>n</th><th>accuracy (95% CI)</th><th>no-call right</th>"
                 "<th>schema-valid</th></tr>")
    for label, name, part in rows:
        m = part["metrics"]
        parts.append(f"<tr><td>{esc(label)}</td><td>{esc(name)}</td><td>{m['n']}</td><td>{_ci(m)}</td>"
                     f"<td>{_pct(m.get('no_call_accuracy'))}</td><td>{_pct(m.get('valid_rate'))}</td></tr>")
    parts.append("</table>")
    for label, name, part in rows:
        if label != "specialist":
            continue
        parts.append(f"<h3>specialist, {esc(name)}: by kind and tool</h3><table><tr><th>kind / tool</th><th>n</th>"
                     "<th>accuracy</th></tr>")
        for k, v in (part.get("by_kind") or {}).items():
            parts.append(f"<tr><td>{esc(k)}</td><td>{v['n']}</td><td>{_pct(v['accuracy'])}</td></tr>")
        for k, v in (part.get("by_tool") or {}).items():
            parts.append(f"<tr><td>tool {esc(k)}</td><td>{v['n']}</td><td>{_pct(v['accuracy'])}</td></tr>")
        parts.append("</table>")
    data = _read(out / "data" / "stats.json")
    if data:
        shown = {k: data.get(k) for k in ("tools", "outputs", "sources", "examples", "kinds", "notes")}
        parts.append(f"<h2>Data</h2><pre>{esc(json.dumps(shown, indent=1))}</pre>")
    plot = next((out / "train").glob("*.png"), None) if (out / "train").is_dir() else None
    if plot:
        parts.append("<h2>Training</h2><img style='max-width:100%' src='data:image/png;base64,"
                     + base64.b64encode(plot.read_bytes()).decode() + "'>")
    summary = _read(out / "train" / "summary.json")
    if summary:
        keep = {k: v for k, v in summary.items() if not isinstance(v, (dict, list)) and v is not None}
        parts.append(f"<pre>{esc(json.dumps(keep, indent=1))}</pre>")
    parts.append("<h2>Time per stage (s)</h2><table>" + "".join(f"<tr><td>{esc(k)}</td><td>{v:.0f}</td></tr>"
                                                               for k, v in timings.items()) + "</table>")
    parts.append(f"<h2>Serve it</h2><pre>nanoagent serve {esc(str(out / GGUF_NAME))} --tools TOOLS</pre>")
    page = out / "report.html"
    page.write_text("\n".join(parts), encoding="utf-8")
    return page


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="nanoagent specialize", description=__doc__.splitlines()[0],
                                formatter_class=HelpFormatter)
    p.add_argument("--tools", required=True, help="OpenAI tools list, MCP tools/list result or OpenAPI 3 (JSON/YAML)")
    p.add_argument("--out", required=True, help="run folder (new, or this command's own to resume)")
    p.add_argument("--examples", help="JSONL of OpenAI chat examples for these tools; a quarter is held out for eval")
    p.add_argument("--base", default=EMBEDDED, help="model to start from (default: the embedded SmolLM2-135M)")
    p.add_argument("--test", help="your own test requests (eval.specialist's format), scored for base and specialist")
    p.add_argument("--system", help="the system prompt your app sends (default: none)")
    p.add_argument("--rows", type=int, default=3000, help="generated training rows (default 3000)")
    p.add_argument("--steps", type=int, default=60,
                   help="optimizer steps (default 60: about 9 minutes of training for 8 tools on a 2-core CPU; "
                        "23 minutes for the whole command with 12 examples and a --test set)")
    p.add_argument("--batch-size", type=int, default=8, help="rows per step, sharing one pass of the tool list "
                                                              "(default 8)")
    p.add_argument("--learning-rate", type=float, default=1e-4, help="peak learning rate (default 1e-4)")
    p.add_argument("--prefix-grad", action=argparse.BooleanOptionalAction, default=False,
                   help="let the gradient flow through the tool list's pass too (exact, slower); by default it runs "
                        "forward only, the rows still learn to read it")
    p.add_argument("--prompt-format", default="signatures", choices=["compact", "signatures"],
                   help="how the prompt lists the tools: `compact` (each spec as JSON) or `signatures` (one short "
                        "line per tool: name, arguments, enum values, description; about a third of the tokens); "
                        "stored with the model, so eval and serve use it (default signatures)")
    p.add_argument("--seed", type=int, default=0, help="seed of the generated data and of the training run")
    p.add_argument("--force", action="store_true", help="start the run in --out over with the settings given now")
    return p


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    for flag in ("rows", "steps", "batch_size"):
        if getattr(args, flag) < 1:
            print(f"nanoagent specialize: error: --{flag.replace('_', '-')} must be at least 1", file=sys.stderr)
            return 2
    try:
        return run(args)
    except SpecializeError as e:
        print(f"nanoagent specialize: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
