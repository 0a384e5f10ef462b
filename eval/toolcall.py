"""Tool-calling eval: BFCL categories read offline and our validation split, on any model backend.

Run:
    python -m eval.toolcall --model embedded-gguf --suites core --limit 20      # a seeded random 20 per suite
    python -m eval.toolcall --model embedded-gguf --suites core --limit 20 --sample first
    python -m eval.toolcall --model x.gguf --suites quality     # issue 15's figures: whole suites, live_irrelevance@250
    python -m eval.toolcall --model runs/dft-1 --suites simple_python,irrelevance,valid --max-tokens 96
    python -m eval.toolcall --model http://127.0.0.1:8080/v1 --suites all --label grpo-server
    python -m eval.toolcall --config my_eval.yaml --limit 5

`--model` is anything nanoagent.agent.backends.load_backend takes: `embedded` (MLX), `embedded-gguf` (llama.cpp),
an MLX folder or run, a .gguf file, an OpenAI-compatible URL. `--suites` takes suite names or groups (see
nanoagent/suites.py: all, bfcl, core, live, quality, valid, valid:PATH; `NAME@N` samples N items of that suite). The backend renders each prompt with the shared renderer,
so eval sees exactly what training saw. Per suite: the share of replies with a tool call, the share that are
schema-valid, accuracy with a 95% bootstrap interval, failure kinds, items per second; per item: the reply and its
outcome. One versioned JSON file per run lands in eval/results/ (see eval/results.py), with the resolved settings
and the machine; it is rewritten after every suite ("complete": false until the last one), so a cut-off run keeps
what it finished, and `--resume --name NAME` continues it: the suites already there are kept (same model and
settings, checked) and only the rest run. `python -m eval.report` compares runs.

From Python (e.g. the trainer's held-out check; the suite runner lives in the library, nanoagent/scoring.py):
    from nanoagent.scoring import evaluate_model
    summary = evaluate_model(model, tokenizer, "valid:data/default/valid.jsonl", limit=16, max_tokens=96)
    summary["metrics"]["accuracy"], summary["metrics"]["valid_rate"]

Errors before any work starts: unknown suite, missing bfcl-eval (with the install command), malformed data file,
a model that can't be loaded. A reply the parser rejects is scored invalid; a backend failure on one item is
recorded as kind "backend_error" on that item and counted.

A model that carries a call threshold (nanoagent/call_threshold.py) and is run without one (the default), one reply
at a time (a GGUF always; MLX with `--batch-size 1`), also gets per suite `at_threshold`: the figures its stored
threshold would have given, derived exactly from each item's `p_call` (nanoagent.scoring.at_threshold), so one run
shows the model's own decisions and the thresholded ones. `--call-threshold model` applies it while decoding.

`--constrain` decodes under the offered tools' grammar (nanoagent.constrain; in-process backends only): calls always
name an offered tool and fit its schema, text stays free. Off by default, so the figures are the model's own
ability; the result records the mode (`settings.constrain`) and the default label gains `-constrained`, so the
report shows both modes side by side.

`--stop-repeats` stops each reply at its first call that repeats an earlier call of the same reply, the copy cut
off (nanoagent/agent/backends/repeat_stop.py; in-process backends only): a decoding rule, off by default like the
two above; the label gains `-stoprepeats` and each item's `finish_reason` says "repeat" where it cut.

Left out: multi-turn BFCL categories.
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import asdict, dataclass, field

import nanoagent  # noqa: F401  (OpenBLAS before mlx)
from eval.config import ConfigError, EvalConfig, load_eval_backend, prompt_format_used
from eval.results import label_for, new_run, save_run
from nanoagent import config as layered
from nanoagent.scoring import at_threshold, run_suite, summarize
from nanoagent.suites import SuiteError, expand_suites, load_suite, split_limit

@dataclass
class ToolcallConfig(EvalConfig):
    suites: list[str] = field(default_factory=lambda: ["all"], metadata={"help": "suites or groups, comma-separated"})
    max_tokens: int = field(default=128, metadata={"help": "new tokens per reply"})
    batch_size: int = field(default=8, metadata={"help": "replies generated together (MLX backend only: a GGUF's "
                                                         "replies come one at a time, as every committed GGUF "
                                                         "figure did; llama.cpp's batched kernels round "
                                                         "differently)"})
    resume: bool = field(default=False, metadata={"help": "with --name: keep the suites already in that result file "
                                                          "(same model and settings) and run only the rest"})


def _set_throughput(run: dict) -> None:
    items = sum(s["metrics"]["n"] for s in run["suites"].values())
    secs = sum(s["metrics"]["seconds"] for s in run["suites"].values())
    run["throughput"] = {"items": items, "seconds": round(secs, 3),
                         "items_per_s": round(items / secs, 4) if secs else None}


def _print_table(run: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{run['label']} ({run['model']['backend']})")
    for col in ("suite", "n", "call", "valid", "accuracy", "95% CI", "items/s", "top failure"):
        table.add_column(col)
    for name, s in run["suites"].items():
        m = s["metrics"]
        fails = Counter({k: v for k, v in m["kinds"].items() if k != "ok"}).most_common(1)
        ci = m["accuracy_ci95"]
        table.add_row(name, str(m["n"]), f"{m['call_rate']:.2f}", f"{m['valid_rate']:.2f}", f"{m['accuracy']:.3f}",
                      f"{ci[0]:.2f}-{ci[1]:.2f}" if ci else "-", str(m["items_per_s"]),
                      f"{fails[0][0]} ({fails[0][1]})" if fails else "-")
        view = (s.get("at_threshold") or {}).get("metrics")
        if view:
            table.add_row(f"  at threshold {s['at_threshold']['threshold']:.3g}", str(view["n"]),
                          f"{view['call_rate']:.2f}", f"{view['valid_rate']:.2f}", f"{view['accuracy']:.3f}",
                          "-", "-", f"declined {len(s['at_threshold']['declined'])}")
    Console(stderr=True).print(table)


def _stored_threshold(cfg) -> float | None:
    """The threshold stored with the model, when eval runs it without one (None otherwise, or when unreadable)."""
    if cfg.call_threshold is not None:
        return None
    from nanoagent.call_threshold import ThresholdError, stored_threshold

    try:
        return stored_threshold(cfg.model)
    except ThresholdError as e:
        print(f"warning: {e}; no figures at the stored threshold", file=sys.stderr)
        return None


def _threshold_view(items, result: dict, threshold: float, samples: int, seed: int) -> dict:
    """A suite's metrics at the stored threshold, and which items it declines (eval/README.md)."""
    outcomes = at_threshold(items, result["items"], threshold)
    if outcomes is None:
        return {"threshold": threshold, "metrics": None,
                "note": "some items have no p_call (backend errors, or a backend that does not report it)"}
    metrics = summarize(outcomes, 0.0, samples, seed) | {"seconds": None}  # derived, not timed
    return {"threshold": threshold, "metrics": metrics, "declined": [o["id"] for o in outcomes if o.get("declined")]}


class ResumeError(ValueError):
    """The result file --resume names can't be continued; the message says why and what to do."""


_NOT_COMPARED = {"suites", "resume", "label", "out_dir"}  # may change between a run and its continuation


def resumed_run(cfg, suites: dict[str, list[str]]) -> dict | None:
    """The unfinished run to continue (--resume), or None when there is none yet. Its finished suites are kept;
    `suites` maps the ones this run asks for to their item ids: a kept suite must be one of them, scored on the same
    items (not another sample size, seed or rebuilt file)."""
    if not cfg.resume:
        return None
    if not cfg.name:
        raise ResumeError("--resume needs --name: the result file to continue (eval/results/NAME.json)")
    import json
    from pathlib import Path

    from eval.results import DEFAULT_DIR

    path = Path(cfg.out_dir or DEFAULT_DIR) / f"{cfg.name}.json"
    if not path.exists():
        return None
    try:
        run = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise ResumeError(f"{path} can't be read ({e}); move it away or run without --resume") from None
    if not isinstance(run, dict) or run.get("kind") != "toolcall" or not isinstance(run.get("suites"), dict):
        raise ResumeError(f"{path} is not a tool-call result; choose another --name or run without --resume")
    if run.get("model", {}).get("spec") != cfg.model:
        raise ResumeError(f"{path} is of model {run.get('model', {}).get('spec')!r}, not {cfg.model!r}; "
                          "choose another --name or run without --resume")
    from nanoagent.weights_digest import weights_digest

    saved_weights = run["model"].get("weights_sha256")
    if saved_weights and saved_weights != weights_digest(cfg.model):
        raise ResumeError(f"{path} is of other weights than {cfg.model} holds now (it was retrained or replaced); "
                          "choose another --name or run without --resume")
    from nanoagent.call_threshold import ThresholdError, resolve_threshold
    from nanoagent.render import PromptFormatError

    now = asdict(cfg)
    try:  # a run records the number its --call-threshold resolved to ("model" -> the stored one), and the format
        now["call_threshold"] = resolve_threshold(cfg.call_threshold, cfg.model)
        now["prompt_format"] = prompt_format_used(cfg)
    except (ThresholdError, PromptFormatError) as e:
        raise ResumeError(str(e)) from None
    saved = run.setdefault("settings", {})
    if "prompt_format" not in saved and now["prompt_format"] == "standard":
        saved["prompt_format"] = "standard"  # results from before formats were recorded: all standard
    differ = sorted(k for k in set(now) | set(run.get("settings", {})) - _NOT_COMPARED
                    if k not in _NOT_COMPARED and run.get("settings", {}).get(k) != now.get(k))
    if differ:
        pairs = ", ".join(f"{k}: {run.get('settings', {}).get(k)!r} there, {now.get(k)!r} here" for k in differ)
        raise ResumeError(f"{path} was made with other settings ({pairs}); rerun with those or drop --resume")
    extra = [name for name in run["suites"] if name not in suites]
    if extra:
        raise ResumeError(f"{path} holds suites this run does not ask for ({', '.join(extra)}); "
                          "add them to --suites or drop --resume")
    for name, ids in suites.items():
        kept = [item.get("id") for item in run["suites"].get(name, {}).get("items", [])]
        if name in run["suites"] and kept != ids:
            raise ResumeError(f"{path} scored other items of {name} ({len(kept)} there, {len(ids)} asked for here: "
                              "another sample size, seed or data file); ask for the same or drop --resume")
    return run


def main(argv=None) -> int:
    try:
        cfg = layered.load(ToolcallConfig, argv,
                           description="Tool-calling eval (BFCL offline + validation split)")
        suites = expand_suites(cfg.suites)
        loaded = {}
        for spec in suites:  # every data file is read (and checked) before the model loads
            name, limit = split_limit(spec, cfg.limit)  # "live_irrelevance@250": that suite's own sample size
            items, dropped = load_suite(name, limit=limit, sample=cfg.sample, seed=cfg.sample_seed)
            if not items:
                raise SuiteError(f"suite {name!r} has no items (dropped: {dict(dropped) or 'none'})")
            loaded[name] = (items, dropped)
        previous = resumed_run(cfg, {name: [item.id for item in items] for name, (items, _) in loaded.items()})
        backend = load_eval_backend(cfg)
    except (ConfigError, SuiteError, ResumeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    desc = backend.describe() if hasattr(backend, "describe") else type(backend).__name__
    label = cfg.label or (label_for(cfg.model) + ("-constrained" if cfg.constrain else "")
                          + (f"-threshold{cfg.call_threshold:g}" if cfg.call_threshold is not None else "")
                          + ("-stoprepeats" if cfg.stop_repeats else ""))
    run = new_run("toolcall", cfg.model, desc, asdict(cfg) | {"suites": suites}, label)
    if previous is not None:  # continue it: its finished suites stay, in the order asked for
        kept = {name: previous["suites"][name] for name in loaded if name in previous["suites"]}
        run.update(created=previous["created"], suites=kept)
        print(f"resuming {cfg.name}: {len(kept)} of {len(loaded)} suites already done "
              f"({', '.join(kept) or 'none'})", file=sys.stderr)
    run["complete"] = False
    from tqdm import tqdm

    from nanoagent.agent.backends import backend_kind

    batch_size = 1 if backend_kind(cfg.model) == "llamacpp" else cfg.batch_size
    stored = _stored_threshold(cfg)
    if stored is not None and batch_size > 1:
        print(f"note: the model's stored call threshold ({stored:g}) is not applied, and its figures are not derived "
              "from batched replies (rows share one random stream): use --batch-size 1 for them", file=sys.stderr)
        stored = None

    todo = {name: v for name, v in loaded.items() if name not in run["suites"]}
    total = sum(len(items) for items, _ in todo.values())
    with tqdm(total=total, desc="tool-call eval", unit="item", file=sys.stderr) as bar:
        for name, (items, dropped) in todo.items():
            bar.set_postfix_str(name)
            result = run_suite(backend, items, max_tokens=cfg.max_tokens, temperature=cfg.temperature, seed=cfg.seed,
                               batch_size=batch_size, samples=cfg.bootstrap_samples, progress=bar.update)
            run["suites"][name] = {"dropped": dict(dropped), **result}
            if stored is not None:
                run["suites"][name]["at_threshold"] = _threshold_view(items, result, stored, cfg.bootstrap_samples,
                                                                      cfg.seed)
            _set_throughput(run)
            save_run(run, cfg.out_dir, cfg.name)  # after every suite: a cut-off run keeps what it finished
    run["suites"] = {name: run["suites"][name] for name in loaded}  # the order asked for, resumed or not
    run["complete"] = True
    path = save_run(run, cfg.out_dir, cfg.name)
    _print_table(run)
    for name, (_, dropped) in loaded.items():
        if dropped:
            print(f"{name}: dropped {sum(dropped.values())} items: {dict(dropped)}", file=sys.stderr)
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
