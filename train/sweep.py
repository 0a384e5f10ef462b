"""`python -m train.sweep SWEEP.yaml`: train several recipe variants, export each to Q8_0, score each on the same
seeded BFCL sample, and write one comparison table. This is how train.dft's defaults are chosen (issue 15).

    python -m train.sweep train/sweeps/method-lr.yaml              # every variant: train -> export -> eval
    python -m train.sweep train/sweeps/method-lr.yaml --only lora-3e-4,full-1e-4
    python -m train.sweep train/sweeps/method-lr.yaml --dry-run    # print the commands, run nothing

A sweep file:

    name: method-lr                      # results go to train/results/<name>/
    base: train/configs/quality-cpu.yaml # train.dft config every variant starts from
    set: {steps: 25, val_every: 25}      # train.dft settings for every variant
    eval: {suites: "core,live_simple,valid", limit: 40, sample_seed: 0}
    variants:
      lora-3e-4: {}
      full-1e-4: {fine_tune: full, learning_rate: 1.0e-4}
      sft-then-dft: {from: lora-3e-4, loss: dft, steps: 10}   # starts from another variant's model

Each variant is three plain commands (printed before they run): `train.dft` into runs/sweep/<name>/<variant>,
`export.gguf` to its Q8_0, and `eval.toolcall` on that GGUF through llama.cpp, writing
train/results/<name>/<variant>.json (per-item outcomes); the variant's resolved config, summary, metrics and checks
are copied to train/results/<name>/<variant>/ (weights stay in runs/). A finished step is skipped on a re-run and a killed
training resumes from its checkpoint, so a sweep cut off by the end of a session continues where it stopped.
`train/results/<name>/summary.json` and `summary.md` hold, per variant: its settings, best validation
cross-entropy and step, prose perplexity before and after (measured with the trainer's quick check: keep
`validity_n` above 0), training seconds and tokens/s, and per-suite accuracy and schema-valid rate; a variant that
saved a call threshold (`threshold_n`) gets a second table at that threshold (eval/toolcall.py derives it). Run it on one machine at a time: the timings in the table are that machine's.
Left out: running variants in parallel (one CPU-heavy job at a time), and choosing a winner (read the table).
"""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from dataclasses import dataclass

from nanoagent.atomic import write_json, write_text
from nanoagent.config import HelpFormatter, from_dict, read_yaml_mapping
from train.config import ConfigError, DFTConfig

RESULTS = Path("train/results")
RUNS = Path("runs/sweep")


class SweepError(ConfigError):
    """A bad sweep file; the message names the key and what to do."""


@dataclass
class SweepFile:
    """The keys a sweep file may have, with their types (nanoagent.config checks both, closest key included)."""
    name: str = ""
    base: str | None = None
    set: dict | None = None
    eval: dict | None = None
    variants: dict | None = None


@dataclass
class SweepEval:
    suites: str = "core"
    limit: int | None = None
    sample_seed: int = 0
    max_tokens: int | None = None


def load_sweep(path: str | Path) -> dict:
    """The sweep file as a dict (name, base, set, eval, variants), every key and value checked before any run."""
    path = Path(path)
    try:
        typed = from_dict(SweepFile, read_yaml_mapping(path), source=f"sweep file {path}")
        spec = {"name": typed.name, "base": typed.base, "set": typed.set or {}, "eval": typed.eval or {},
                "variants": {v: values or {} for v, values in (typed.variants or {}).items()}}
        for v, values in spec["variants"].items():
            if not isinstance(values, dict):
                raise SweepError(f"{path}: variants.{v}: give a mapping of train.dft settings, e.g. "
                                 "{learning_rate: 1.0e-4}")
        if not spec["name"] or not spec["variants"]:
            raise SweepError(f"{path}: give a name and at least one variant")
        if spec["base"] and not Path(spec["base"]).is_file():
            raise SweepError(f"{path}: base config {spec['base']} does not exist")
        for key, values in [("set", spec["set"])] + [(f"variants.{v}", x) for v, x in spec["variants"].items()]:
            from_dict(DFTConfig, {k: x for k, x in values.items() if k not in ("from", "extra")},
                      source=f"{path}: {key} (train.dft settings; a variant may add from: VARIANT)", prefix=key)
            src = values.get("from")
            if src is not None and src not in spec["variants"]:
                raise SweepError(f"{path}: {key}: from {src!r} is not a variant of this sweep")
        from_dict(SweepEval, spec["eval"], source=f"{path}: eval", prefix="eval")
    except SweepError:
        raise
    except ConfigError as e:
        text = str(e).replace("config file", "sweep file", 1)
        raise SweepError(text if str(path) in text else f"sweep file {path}: {text}") from None
    return spec


def flags(settings: dict) -> list[str]:
    """train.dft flags for a settings dict: `--learning-rate 0.0001`, `--pack` / `--no-pack`."""
    out = []
    for key, value in settings.items():
        flag = "--" + key.replace("_", "-")
        if isinstance(value, bool):
            out.append(flag if value else "--no-" + key.replace("_", "-"))
        else:
            out += [flag, str(value)]
    return out


def commands(spec: dict, variant: str, python: str = sys.executable) -> dict[str, list[str]]:
    """The three commands of one variant: train, export, eval."""
    values = dict(spec["variants"][variant] or {})
    src = values.pop("from", None)
    run = RUNS / spec["name"] / variant
    settings = {**(spec.get("set") or {}), **values}
    if src:
        settings["model"] = str(RUNS / spec["name"] / src / "model")
    train = [python, "-m", "train.dft", *(["--config", spec["base"]] if spec.get("base") else []),
             *flags(settings), "--run-dir", str(run), "--no-progress"]
    gguf = run / "model-q8_0.gguf"
    export = [python, "-m", "export.gguf", "--model", str(run / "model"), "--out", str(gguf)]
    ev = spec.get("eval") or {}
    evaluate = [python, "-m", "eval.toolcall", "--model", str(gguf), "--suites", str(ev.get("suites", "core")),
                "--sample-seed", str(ev.get("sample_seed", 0)), "--label", f"{spec['name']}-{variant}",
                "--out-dir", str(RESULTS / spec["name"]), "--name", variant]
    if ev.get("limit"):
        evaluate += ["--limit", str(ev["limit"])]
    if ev.get("max_tokens"):
        evaluate += ["--max-tokens", str(ev["max_tokens"])]
    return {"train": train, "export": export, "eval": evaluate}


def done(spec: dict, variant: str, step: str) -> bool:
    run = RUNS / spec["name"] / variant
    if step == "train":
        return (run / "summary.json").is_file() and (run / "model").is_dir()
    if step == "export":
        return (run / "model-q8_0.gguf").is_file()
    result = RESULTS / spec["name"] / f"{variant}.json"
    return result.is_file() and json.loads(result.read_text()).get("complete", False)


def order(spec: dict, only: list[str] | None) -> list[str]:
    """Variants in file order, each after the variant it starts `from` (pulled in even if not in `only`)."""
    out: list[str] = []

    def add(v: str, chain: tuple = ()):
        if v in chain:
            raise SweepError(f"variants {' -> '.join(chain + (v,))} start from each other")
        src = (spec["variants"][v] or {}).get("from")
        if src:
            add(src, chain + (v,))
        if v not in out:
            out.append(v)

    for v in only or list(spec["variants"]):
        if v not in spec["variants"]:
            raise SweepError(f"--only: {v!r} is not a variant; variants: {', '.join(spec['variants'])}")
        add(v)
    return out


def summarize(spec: dict) -> dict:
    """One row per variant with everything that finished: settings, training summary, eval metrics per suite."""
    rows = {}
    for variant, values in spec["variants"].items():
        run = RUNS / spec["name"] / variant
        row: dict = {"settings": values or {}}
        if (run / "summary.json").is_file():
            s = json.loads((run / "summary.json").read_text())
            row["train"] = {k: s.get(k) for k in ("steps", "best_step", "best_val_ce", "val_loss_first",
                                                  "val_loss_last", "prose_ppl_before", "prose_ppl_after",
                                                  "train_seconds", "tokens_per_s", "input_tokens")}
        result = RESULTS / spec["name"] / f"{variant}.json"
        if result.is_file():
            r = json.loads(result.read_text())
            row["eval"] = {name: {k: s["metrics"].get(k) for k in ("n", "accuracy", "accuracy_ci95", "valid_rate",
                                                                   "call_rate")}
                           for name, s in r["suites"].items()}
            row["eval_complete"] = r.get("complete", False)
            views = {name: s["at_threshold"] for name, s in r["suites"].items()
                     if (s.get("at_threshold") or {}).get("metrics")}
            if views:  # the figures at the variant's own saved call threshold (eval/toolcall.py)
                row["eval_at_threshold"] = {name: {"threshold": v["threshold"], **{
                    k: v["metrics"].get(k) for k in ("n", "accuracy", "accuracy_ci95", "valid_rate", "call_rate")}}
                    for name, v in views.items()}
        rows[variant] = row
    return {"sweep": spec["name"], "base": spec.get("base"), "set": spec.get("set") or {},
            "eval": spec.get("eval") or {}, "variants": rows}


def table(summary: dict, key: str = "eval") -> str:
    """One row per variant; `key` "eval" (the model's own decisions) or "eval_at_threshold" (at its threshold)."""
    suites = list(dict.fromkeys(s for row in summary["variants"].values() for s in row.get(key, {})))
    head = ["variant", "best val CE (step)", "prose ppl", "train min"] + [f"{s} acc / valid" for s in suites]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, row in summary["variants"].items():
        t = row.get("train", {})
        views = row.get(key, {})
        threshold = next(iter(views.values()))["threshold"] if key == "eval_at_threshold" and views else None
        cells = [name + (f" (threshold {threshold:.3g})" if threshold is not None else ""),
                 f"{t['best_val_ce']:.3f} ({t['best_step']})" if t.get("best_val_ce") is not None else "-",
                 f"{t['prose_ppl_before']:.0f} -> {t['prose_ppl_after']:.0f}" if t.get("prose_ppl_after") else "-",
                 f"{t['train_seconds'] / 60:.0f}" if t.get("train_seconds") else "-"]
        for s in suites:
            m = row.get(key, {}).get(s)
            cells.append(f"{100 * m['accuracy']:.1f} / {100 * m['valid_rate']:.0f}" if m else "-")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


PROVENANCE = ("config.yaml", "summary.json", "metrics.jsonl", "validity.json", "data_stats.json",
              "model/call_threshold.json", "model/prompt_format.json", "model-q8_0.export.json")


def keep_provenance(spec: dict) -> None:
    """Copy each variant's small run files (resolved config, summary, metrics, checks) beside its result, so the
    committed results say what produced them; weights stay in runs/."""
    for variant in spec["variants"]:
        run, out = RUNS / spec["name"] / variant, RESULTS / spec["name"] / variant
        for name in PROVENANCE:
            if (run / name).is_file():
                (out / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(run / name, out / name)


def write_summary(spec: dict) -> Path:
    folder = RESULTS / spec["name"]
    folder.mkdir(parents=True, exist_ok=True)
    keep_provenance(spec)
    summary = summarize(spec)
    write_json(folder / "summary.json", summary)
    text = f"# Sweep {spec['name']}\n\n{table(summary)}"
    if any(row.get("eval_at_threshold") for row in summary["variants"].values()):
        text += f"\nAt each variant's own call threshold (chosen on the validation split):\n\n" \
                f"{table(summary, 'eval_at_threshold')}"
    write_text(folder / "summary.md", text)
    return folder / "summary.md"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m train.sweep", description=__doc__.split("\n\n")[0],
                                formatter_class=HelpFormatter)
    p.add_argument("sweep", help="sweep YAML file")
    p.add_argument("--only", default=None, help="comma-separated variants (and those they start from)")
    p.add_argument("--dry-run", action="store_true", help="print the commands and run nothing")
    args = p.parse_args(argv)
    try:
        spec = load_sweep(args.sweep)
        variants = order(spec, args.only.split(",") if args.only else None)
    except (SweepError, ConfigError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    for variant in variants:
        for step, cmd in commands(spec, variant).items():
            if done(spec, variant, step):
                print(f"[{variant}] {step}: done, skipped", flush=True)
                continue
            print(f"[{variant}] {step}: {shlex.join(cmd)}", flush=True)
            if args.dry_run:
                continue
            code = subprocess.call(cmd)
            if code not in (0, 3):  # export's 3: written, parity check failed (reported in its log)
                print(f"error: variant {variant!r}, step {step} exited with {code}; fix it and run the sweep "
                      "again (finished steps are kept)", file=sys.stderr)
                write_summary(spec)
                return 1
        if not args.dry_run:
            write_summary(spec)
    if not args.dry_run:
        print(write_summary(spec).read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
