"""The main job, end to end on the embedded defaults: the README's first command runs this. It sits on top of the
stages (outside the library): it runs each stage as its own command and reads only the files they write.

    python -m pipeline                          # every stage, small settings (about 12 min on 2 cores)
    python -m pipeline --stages smoke           # the smoke run only (seconds)
    python -m pipeline --out runs/pipeline --sft-steps 90 --grpo-steps 10 --eval-limit 50
    python -m pipeline --force                  # run every stage again

It carries the embedded SmolLM2-135M-Instruct through the five stages, each run as its own command (printed before
it starts, so any stage can be re-run or tuned by hand), every output under `--out`:

    smoke   load the model, render a tool-calling conversation, generate, parse the call (in this process)
    data    python -m data_recipes.build            -> OUT/data (default recipe; fixtures when the Hub is unreachable)
    sft     python -m train.dft                     -> OUT/sft/model (SFT, full fine-tuning, packed 2x1024, lr 1e-4,
                                                       compact prompt format, unlikelihood 1: train.dft's defaults)
    grpo    python -m train.grpo                    -> OUT/grpo/model (tool-call tasks from OUT/data's validation
                                                       split and coding tasks with the agent in the loop, from SFT)
    export  python -m export.gguf                   -> OUT/model-q8_0.gguf (+ parity report against MLX)
    eval    python -m eval.toolcall, base and trained MLX models on BFCL simple_python -> OUT/eval
    agent   nanoagent run on examples/sample_repo with the GGUF through llama.cpp -> OUT/agent

and ends with a summary table and one HTML page of everything (python -m eval.html report OUT -> OUT/report.html).

The short run is SFT, train.dft's default loss: measured here over 12 LoRA steps from the embedded model, SFT took
the validation cross-entropy from 1.08 to 0.47 and held-out valid tool calls from 0/8 to 3/8 (prose perplexity
65 -> 86), while DFT raised the cross-entropy to 1.89, left valid calls at 0/8 and the prose perplexity at 292.

Resumable: a finished stage leaves OUT/done/<stage>.json (its commands, exit codes, seconds) and a re-run skips
it, unless its commands changed (other settings) or an earlier stage ran again, which re-run it. A failing stage
stops the pipeline with its name, command and exit code; what finished before stays. A stage that runs
again first moves its earlier outputs to NAME.previous. Two outcomes are reported
without stopping: an export whose parity check failed (the GGUF is written; exit code 3) and an agent that ended
without answering (its exit status is in the summary). A summary table of every stage ends the run.

Left out: resuming a stage killed half-way (it starts again; `train.dft` and `train.grpo` run by hand resume
with --resume), and uploading the release (python -m export.hub --model OUT/grpo --repo-id USER/NAME).
"""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import nanoagent  # noqa: F401  (OpenBLAS before mlx)
from nanoagent.atomic import write_json
from nanoagent.config import HelpFormatter
from nanoagent.metrics import read_metrics
from nanoagent.models import EMBEDDED, ModelLoadError, load
from nanoagent.record import DEMO_RECORD, Record
from nanoagent.prompt_format import stored_format
from nanoagent.render import render_prompt
from nanoagent.toolcall import ToolCallError, parse

def run_demo(model_spec: str = EMBEDDED, max_tokens: int = 96) -> dict:
    from mlx_lm import stream_generate
    from mlx_lm.sample_utils import make_sampler

    start = time.perf_counter()
    model, tokenizer = load(model_spec)
    load_s = time.perf_counter() - start
    record = Record.from_dict(DEMO_RECORD)
    prompt = render_prompt(record.messages, record.tools, tokenizer, stored_format(model_spec))
    print(f"model: {model_spec} (loaded in {load_s:.1f} s)")
    print(f"user: {record.messages[-1]['content']}")
    print(f"tools offered: {', '.join(sorted(record.tool_names()))}  (prompt: {len(prompt)} tokens)")
    text, last = "", None
    for last in stream_generate(model, tokenizer, prompt, max_tokens=max_tokens, sampler=make_sampler(temp=0.0)):
        text += last.text
    print(f"\nreply:\n{text.strip()}\n")
    result = {"reply": text, "generation_tps": last.generation_tps, "prompt_tps": last.prompt_tps,
              "tokens": last.generation_tokens, "tool_calls": [], "error": None}
    try:
        reply = parse(text, record.tools)
        result["tool_calls"] = reply.tool_calls
        if reply.tool_calls:
            for call in reply.tool_calls:
                print(f"parsed tool call: {call['function']['name']}({call['function']['arguments']})")
        else:
            print("parsed tool call: none (the model answered in plain text)")
    except ToolCallError as e:
        result["error"] = f"{e.kind}: {e}"
        print(f"tool call parse error ({e.kind}): {e}")
    print(f"generation: {last.generation_tokens} tokens at {last.generation_tps:.1f} tokens/s "
          f"(prompt {last.prompt_tokens} tokens at {last.prompt_tps:.1f} tokens/s, "
          f"peak memory {last.peak_memory:.2f} GB)")
    return result


ROOT = Path(__file__).resolve().parent
GGUF_NAME = "model-q8_0.gguf"  # export writes its report beside it as model-q8_0.export.json
STAGES = ("smoke", "data", "sft", "grpo", "export", "eval", "agent")


@dataclass
class Stage:
    name: str
    commands: list[list[str]] = field(default_factory=list)  # argv lists; empty for the in-process smoke run
    ok: dict[int, str] = field(default_factory=lambda: {0: ""})  # accepted exit codes -> what they mean
    outputs: list[Path] = field(default_factory=list)  # moved to NAME.previous before the stage runs again
    settings: dict = field(default_factory=dict)  # in-process settings; with `commands`, what "changed" compares


def plan(args) -> list[Stage]:
    """The stages `args` ask for, with the exact commands they will run."""
    out, py = Path(args.out).resolve(), sys.executable  # absolute: the stages run from the repository root
    gguf = out / GGUF_NAME
    grpo_used = "grpo" in args.stages or (out / "grpo" / "model" / "config.json").is_file()
    trained = out / ("grpo" if grpo_used else "sft") / "model"
    stages = {
        "smoke": Stage("smoke", settings={"model": args.model, "max_tokens": args.max_tokens}),
        # the default recipe scaled down (6k of its 66k synthetic rows): the same kinds, tools and 1024-token cap
        "data": Stage("data", [[py, "-m", "data_recipes.build", "--out", str(out / "data"), "--seed", str(args.seed),
                                "--set", "sources.synthetic.rows=6000"]],
                      outputs=[out / "data"]),
        "sft": Stage("sft", [[py, "-m", "train.dft", "--data", str(out / "data"), "--run-dir", str(out / "sft"),
                              "--no-resume", "--loss", "sft", "--fine-tune", "full", "--max-length", "1024", "--pack",
                              "--learning-rate", "1e-4",  # the short run's measured rate (5e-5 is for 150 steps)
                              "--batch-size", "2", "--grad-accum", "1", "--steps", str(args.sft_steps),
                              "--warmup-steps", str(max(1, args.sft_steps // 10)),
                              "--val-every", str(args.sft_steps), "--val-batches", "4",
                              "--validity-n", str(args.validity_n), "--save-every", str(args.sft_steps),
                              "--seed", str(args.seed)]], outputs=[out / "sft"]),
        "grpo": Stage("grpo", [[py, "-m", "train.grpo", "--model", str(out / "sft" / "model"),
                                "--run-dir", str(out / "grpo"), "--no-resume", "--steps", str(args.grpo_steps),
                                "--tasks-per-step", "2", "--group-size", "4", "--max-turns", "2",
                                "--max-tokens-per-turn", "64", "--learning-rate", "5e-5", "--seed", str(args.seed),
                                "--toolcall-tasks", str(out / "data" / "valid.jsonl")]],  # this pipeline's own data
                      outputs=[out / "grpo"]),
        "export": Stage("export", [[py, "-m", "export.gguf", "--model", str(trained), "--out", str(gguf)]],
                        ok={0: "", 3: "GGUF written, parity check failed (see the report above)"},
                        outputs=[gguf, gguf.with_suffix(".export.json")]),
        "eval": Stage("eval", [[py, "-m", "eval.toolcall", "--model", model, "--suites", "simple_python",
                                "--limit", str(args.eval_limit), "--label", label, "--out-dir", str(out / "eval"),
                                "--name", label] for model, label in ((EMBEDDED, "base"), (str(trained), "trained"))],
                      outputs=[out / "eval"]),
        "agent": Stage("agent", [[py, "-m", "nanoagent.cli", "run", "--repo", str(ROOT / "examples" / "sample_repo"),
                                  "--model", str(gguf), "--out", str(out / "agent"), "make the tests pass"]],
                       ok={0: "", 1: "the agent stopped without a final answer (exit status in the summary)"},
                       outputs=[out / "agent"]),
    }
    return [stages[name] for name in STAGES if name in args.stages]


def _marker(out: Path, stage: str) -> Path:
    return out / "done" / f"{stage}.json"


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def result_line(stage: str, out: Path) -> str:
    """A one-line result of a finished stage, read from its own outputs ('' when they are missing)."""
    if stage == "smoke":
        r = _read_json(_marker(out, "smoke")).get("result", {})
        calls = [c["function"]["name"] for c in r.get("tool_calls", [])]
        return f"{r.get('tokens', '?')} tokens at {r.get('generation_tps', 0):.1f} tok/s; call: {calls or r.get('error') or 'none'}"
    if stage == "data":
        st = _read_json(out / "data" / "stats.json")
        o = st.get("outputs", {})
        return f"train {o.get('train', '?')} / valid {o.get('valid', '?')} records" if st else ""
    if stage == "sft":
        s = _read_json(out / "sft" / "summary.json")
        vals = read_metrics(out / "sft" / "metrics.jsonl", "valid")
        if not s or not vals:
            return ""
        nan = float("nan")
        # cross-entropy, not the DFT loss: p * CE also falls when unlikely tokens become even less likely
        return (f"val cross-entropy {vals[0].get('val_ce', nan):.3f} -> {vals[-1].get('val_ce', nan):.3f}; valid calls "
                f"{s.get('validity_before') or 0:.0%} -> {s.get('validity_after') or 0:.0%}; prose perplexity "
                f"{s.get('prose_ppl_before') or nan:.0f} -> {s.get('prose_ppl_after') or nan:.0f}")
    if stage == "grpo":
        rows = read_metrics(out / "grpo" / "metrics.jsonl", "train")
        if not rows:
            return ""
        skipped = sum(bool(r.get("skipped_update")) for r in rows)
        return (f"{len(rows)} steps, {skipped} without an update (equal rewards in every group); mean reward "
                f"{rows[0]['reward_mean']:.2f} -> {rows[-1]['reward_mean']:.2f}; valid calls "
                f"{rows[-1].get('valid_call_rate') or 0:.0%}")  # None: the last step had no coding group
    if stage == "export":
        e = _read_json((out / GGUF_NAME).with_suffix(".export.json"))
        nt = e.get("parity", {}).get("next_token", {})
        if not e:
            return ""
        return (f"{e.get('export', {}).get('bytes', 0) / 1e6:.0f} MB; next-token agreement with MLX "
                f"{nt.get('rate', float('nan')):.3f}" + ("; PARITY FAILED" if e.get("parity_failed") else ""))
    if stage == "eval":
        parts = []
        for label in ("base", "trained"):
            m = _read_json(out / "eval" / f"{label}.json").get("suites", {}).get("simple_python", {}).get("metrics")
            if m:
                parts.append(f"{label}: valid {m['valid_rate']:.0%}, correct {m['accuracy']:.0%} of {m['n']}")
        return "; ".join(parts)
    if stage == "agent":
        t = _read_json(out / "agent" / "trajectory.json")
        return f"exit status {t.get('exit_status')}, {len(t.get('steps', []))} steps" if t else ""
    return ""


def run_stage(stage: Stage) -> tuple[str, str, dict]:
    """Run one stage; (status, note, in-process result). Raises PipelineError when a command fails."""
    if stage.name == "smoke":
        result = run_demo(stage.settings["model"], stage.settings["max_tokens"])
        return "done", "", {k: result[k] for k in ("tokens", "generation_tps", "tool_calls", "error")}
    notes = []
    for cmd in stage.commands:
        print(f"\n$ {shlex.join(cmd)}", flush=True)
        code = subprocess.call(cmd, cwd=ROOT)
        if code not in stage.ok:
            raise PipelineError(f"stage {stage.name!r} failed: exit code {code} from\n  {shlex.join(cmd)}\n"
                                f"Fix what it printed above and run the pipeline again: finished stages are kept.")
        if stage.ok[code]:
            notes.append(stage.ok[code])
    return ("warning" if notes else "done"), "; ".join(notes), {}


class PipelineError(RuntimeError):
    pass


def set_aside(paths: list[Path]) -> None:
    """Move a stage's earlier outputs to NAME.previous (replacing an older one), so a re-run starts clean and the
    last results stay readable."""
    for path in paths:
        if path.exists():
            previous = path.with_name(path.name + ".previous")
            if previous.is_dir():
                shutil.rmtree(previous)
            elif previous.exists():
                previous.unlink()
            path.rename(previous)
            print(f"  earlier output moved to {previous}")


def run_stages(stages: list[Stage], out: Path, force: bool = False) -> tuple[list[tuple], Exception | None]:
    """Run `stages` in order under `out`, skipping each one whose marker (OUT/done/NAME.json) records the same
    commands and settings, unless `force` or an earlier stage ran again. Returns the rows (name, status, seconds,
    note; status "kept", "done", "warning" or "FAILED") and the error that stopped the run, if one did."""
    rows, rerun_rest = [], force
    for stage in stages:
        marker = _marker(out, stage.name)
        before = _read_json(marker)
        same = before.get("commands") == stage.commands and before.get("settings", {}) == stage.settings
        if before and same and not rerun_rest:
            print(f"[{stage.name}] already done ({before.get('seconds', 0):.0f} s); skipped (--force runs it again)")
            rows.append((stage.name, "kept", before.get("seconds", 0), before.get("note", "")))
            continue
        if before and not same:
            print(f"[{stage.name}] its settings changed since it last ran: running it again")
        rerun_rest = True  # what comes after consumes this stage's outputs
        marker.unlink(missing_ok=True)
        set_aside(stage.outputs)
        print(f"\n[{stage.name}] ...", flush=True)
        start = time.perf_counter()
        try:
            status, note, result = run_stage(stage)
        except (PipelineError, ModelLoadError) as e:
            rows.append((stage.name, "FAILED", time.perf_counter() - start, ""))
            return rows, e
        seconds = time.perf_counter() - start
        write_json(marker, {"stage": stage.name, "commands": stage.commands, "settings": stage.settings,
                            "seconds": round(seconds, 1), "status": status, "note": note, "result": result})
        rows.append((stage.name, status, seconds, note))
    return rows, None


def run_pipeline(args) -> int:
    from rich.console import Console
    from rich.table import Table

    out = Path(args.out).resolve()
    blocker = next((p for p in [out, *out.parents] if p.exists() and not p.is_dir()), None)
    if blocker is not None:
        print(f"error: --out {args.out}: {blocker} is a file; give a folder for the pipeline's outputs",
              file=sys.stderr)
        return 2
    (out / "done").mkdir(parents=True, exist_ok=True)
    rows, error = run_stages(plan(args), out, args.force)
    if error is not None:
        _summary(rows, out, Console, Table)
        print(f"\nerror: {error}", file=sys.stderr)
        return 1
    _summary(rows, out, Console, Table)
    write_report(out)
    return 0


def write_report(out: Path) -> Path | None:
    """The run's HTML report (python -m eval.html report OUT), its path printed; a failure is reported, not fatal."""
    page = out / "report.html"
    cmd = [sys.executable, "-m", "eval.html", "report", str(out), "--out", str(page)]
    print(f"\n[report] {shlex.join(cmd)}", flush=True)
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        print(f"warning: the HTML report was not written ({(done.stderr or done.stdout).strip()[-300:]})",
              file=sys.stderr)
        return None
    print(f"report: {page} (open it in a browser)")
    return page


def _summary(rows, out: Path, Console, Table) -> None:
    table = Table(title=f"nanoagent pipeline ({out})")
    for col in ("stage", "status", "seconds", "result"):
        table.add_column(col)
    for name, status, seconds, note in rows:
        line = result_line(name, out) if status != "FAILED" else ""
        table.add_row(name, status, f"{seconds:.0f}", "; ".join(x for x in (line, note) if x))
    Console().print(table)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipeline", description=__doc__.split("\n\n")[0],
                                     formatter_class=HelpFormatter)
    parser.add_argument("--stages", nargs="+", default=list(STAGES), choices=STAGES, metavar="STAGE",
                        help=f"stages to run, in pipeline order (default: all of {', '.join(STAGES)})")
    parser.add_argument("--out", default="runs/pipeline", help="folder for every stage's outputs")
    parser.add_argument("--force", action="store_true", help="run the stages again even when already done")
    parser.add_argument("--seed", type=int, default=0, help="seed of the data build, the SFT run and the GRPO run")
    parser.add_argument("--sft-steps", type=int, default=12, help="optimizer steps of the SFT run (packed 2x1024)")
    parser.add_argument("--validity-n", type=int, default=8, help="held-out tool-call prompts scored before/after SFT")
    parser.add_argument("--grpo-steps", type=int, default=2, help="GRPO steps (2 tasks x 4 rollouts each)")
    parser.add_argument("--eval-limit", type=int, default=10, help="BFCL simple_python items per model")
    parser.add_argument("--model", default=EMBEDDED, help="smoke stage: embedded (default), a model folder, a .gguf "
                                                          "or a Hub id")
    parser.add_argument("--max-tokens", type=int, default=96, help="smoke stage: reply length")
    args = parser.parse_args(argv)
    for flag in ("sft_steps", "validity_n", "grpo_steps", "eval_limit", "max_tokens"):
        if getattr(args, flag) < 1:
            parser.error(f"--{flag.replace('_', '-')} must be at least 1, got {getattr(args, flag)}")
    return run_pipeline(args)


if __name__ == "__main__":
    sys.exit(main())
