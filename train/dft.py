"""`python -m train.dft`: fine-tune a chat model on canonical records with DFT or SFT, LoRA or full, in MLX.

    python -m train.dft                                   # embedded SmolLM2-135M, default recipe data, full SFT
    python -m train.dft --steps 20 --data data/default --run-dir runs/try1
    python -m train.dft --config my.yaml --loss sft --fine-tune full --no-fuse
    python -m train.dft --run-dir runs/try1               # again after a kill: resumes from the last checkpoint,
                                                          # with the run's own settings (config.yaml)
    mlx.launch --backend ring -n 2 -m train.dft ...       # data parallel (the global batch is split over ranks)

Order of work, so bad input fails in seconds, not hours: config (unknown keys, bad values) -> data folder (built
from the default recipe if missing) -> tokenizer -> every record rendered and checked (malformed, too long, empty:
errors or counted skips, reported in `data_stats.json`) -> model -> held-out tool-call validity of the base model
-> the micro-batch fitted to memory (one probe row; train/memory_fit.py) -> training (progress bar,
metrics.jsonl, checkpoints, best weights by validation cross-entropy) -> final model (the best weights, with
`keep_best`), loss.png -> validity after -> the call threshold, chosen on the validation
split and saved with the model (`threshold_n`; nanoagent/call_threshold.py) -> summary.json.
Validity is scored by the eval stage (`nanoagent.scoring.evaluate_model`, the runner eval.toolcall uses; greedy, batched): the share of replies on held-out
prompts that need a call which parse into schema-valid calls, with the BFCL-style accuracy beside it.

The run folder: config.yaml (resolved), data_stats.json, metrics.jsonl, checkpoints/, validity.json, loss.png,
summary.json, model/ (loadable by `mlx_lm.load` and `nanoagent.models.load`; call_threshold.json and prompt_format.json
beside it).
Left out: evaluation beyond validity (eval stage), GGUF export (export stage).
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import time
from pathlib import Path

import nanoagent  # noqa: F401  (OpenBLAS before mlx)

from nanoagent import config as layered
from nanoagent.atomic import write_json
from nanoagent.metrics import read_metrics
from nanoagent.provenance import code_digest
from train.config import ConfigError, DFTConfig, load_config, resume_settings
from train.data import DataError, argument_ends, load_dataset, read_records, token_pieces, unfinished

DEFAULT_DATA = Path("data/default")


def resolve_data(cfg: DFTConfig, rank: int = 0, barrier=lambda: None) -> tuple[Path, Path | None]:
    """(train.jsonl, valid.jsonl or None). With no --data: data/default (or data/<recipe name> with --recipe), built
    first by `python -m data_recipes.build` when it does not exist."""
    if cfg.data:
        p = Path(cfg.data)
        if p.is_dir():
            train, valid = p / "train.jsonl", p / "valid.jsonl"
        elif p.is_file():
            train, valid = p, p.with_name("valid.jsonl")
        else:
            raise DataError(f"--data {cfg.data}: no such file or folder (give a folder with train.jsonl and "
                            "valid.jsonl, or a train JSONL file)")
        if not train.is_file():
            raise DataError(f"--data {cfg.data}: {train} is missing")
        unfinished(train.parent)
        stale_build_warning(train.parent, rank=rank)
        return train, valid if valid.is_file() and valid != train else None
    folder = Path("data") / Path(cfg.recipe).stem if cfg.recipe else DEFAULT_DATA
    train, valid = folder / "train.jsonl", folder / "valid.jsonl"
    if not train.is_file():
        if rank == 0:  # the data stage runs as its own command: stages share files, not imports
            cmd = [sys.executable, "-m", "data_recipes.build", "--out", str(folder)]
            cmd += ["--recipe", cfg.recipe] if cfg.recipe else []
            print(f"building the training data ({cfg.recipe or 'default recipe'}): {shlex.join(cmd)}", flush=True)
            if subprocess.call(cmd) != 0:
                raise DataError(f"the data build failed (see above): fix it, or run `{shlex.join(cmd)}` by hand, "
                                "or pass --data FOLDER with train.jsonl/valid.jsonl")
        barrier()  # other ranks wait for rank 0's build
        if not train.is_file():
            raise DataError(f"rank {rank}: {train} is missing after the build (with several processes, build it "
                            "first and pass --data)")
    unfinished(train.parent)
    stale_build_warning(train.parent, rank=rank)
    return train, valid if valid.is_file() else None


CHECKOUT = Path(__file__).resolve().parents[1]  # the data build's code is read here, never imported


def stale_build_warning(folder: Path, checkout: Path = CHECKOUT, rank: int = 0) -> str | None:
    """Print (rank 0) and return a warning when the data build in `folder` was made by other code than this
    checkout's (the paths and digest its stats.json recorded): its rows may predate a generator or filter change.
    Nothing for a folder that is not a build, or a checkout without those paths."""
    try:
        stats = json.loads((folder / "stats.json").read_text(encoding="utf-8"))
        code = stats.get("code") if isinstance(stats, dict) else None
    except (OSError, ValueError):
        return None
    if not isinstance(stats, dict):
        return None
    built = code.get("digest") if isinstance(code, dict) else None
    paths = code.get("paths") if isinstance(code, dict) else None
    if isinstance(built, str) and isinstance(paths, list) and all(isinstance(p, str) for p in paths):
        now = code_digest(checkout, paths)
        if now is None or now == built:
            return None
        how = f"code {built[:12]}, this checkout {now[:12]}"
    else:
        how = "before builds recorded their code"
    msg = (f"warning: {folder} was built by other data-recipe code ({how}); its rows may predate changes to the "
           f"recipe or generators. Rebuild: python -m data_recipes.build --out {folder} (add --offline without the "
           "Hub)")
    if rank == 0:
        print(msg, flush=True)
    return msg


def default_run_dir() -> Path:
    return Path("runs") / time.strftime("dft-%Y%m%d-%H%M%S")


def calling_records(records: list, n: int) -> list:
    """The first `n` held-out records whose first assistant turn calls a tool: the prompts the validity check
    scores (eval.toolcall builds each prompt from everything before that turn)."""
    out = []
    for rec in records:
        if len(out) >= n:
            break
        first = next((m for m in rec.messages if m["role"] == "assistant"), None)
        if rec.tools and first is not None and first.get("tool_calls"):
            out.append(rec)
    return out


def run(cfg: DFTConfig) -> dict:
    import mlx.core as mx

    from nanoagent.heldout import prose_perplexity
    from nanoagent.models import load, resolve_model_path
    from train.losses import LOSSES, with_unlikelihood
    from train.checkpoint import load_best, usable_checkpoint
    from train.memory_fit import fit_memory
    from train.report import RunReporter, plot_losses
    from train.trainer import build_optimizer, train
    from train.tuning import prepare, save_final
    from nanoagent.progress import progress_bar
    from nanoagent.scoring import evaluate_model

    group = mx.distributed.init()
    rank, world = group.rank(), group.size()
    if cfg.batch_size % world:
        raise ConfigError(f"batch_size {cfg.batch_size} must be divisible by the number of processes ({world})")
    run_dir = Path(cfg.run_dir) if cfg.run_dir else default_run_dir()
    cfg.run_dir = str(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    say = print if rank == 0 else (lambda *a, **k: None)

    # Data first: every record is rendered and checked before the model loads.
    train_path, valid_path = resolve_data(cfg, rank, barrier=lambda: mx.eval(mx.distributed.all_sum(mx.array(1.0))))
    from nanoagent.models import load_tokenizer
    from nanoagent.prompt_format import format_for

    tokenizer = load_tokenizer(cfg.model)
    fmt = format_for(cfg.prompt_format, cfg.model)  # asked, else the base model's own (nanoagent/prompt_format.py)
    cfg.prompt_format = fmt.name  # resolved into config.yaml
    kw = dict(max_length=cfg.max_length, on_too_long=cfg.on_too_long, on_bad_record=cfg.on_bad_record, fmt=fmt)
    say(f"prompt format: {fmt.name} (saved with the model)")
    train_ds = load_dataset(train_path, tokenizer, decision_weight=cfg.decision_weight, count_weight=cfg.count_weight,
                            arg_end_weight=cfg.arg_end_weight, **kw)
    valid_ds = load_dataset(valid_path, tokenizer, **kw) if valid_path else None
    stats = {"train": {"path": str(train_path), **train_ds.stats},
             "valid": {"path": str(valid_path), **valid_ds.stats} if valid_ds else None}
    for name, s in stats.items():
        if s:
            say(f"{name}: {s['kept']}/{s['records']} records kept, {s['tokens']} tokens "
                f"({s['supervised_tokens']} supervised); skipped: {s['skipped_too_long']} too long, "
                f"{s['skipped_unsupervised']} without assistant tokens, {s['bad_records']} malformed; "
                f"{s['truncated']} truncated")
    for key, stat, what in (("count_weight", "count_weighted_tokens", "tokens after a </tool_call>"),
                            ("arg_end_weight", "arg_end_weighted_tokens", "tokens ending a call's argument")):
        if getattr(cfg, key) != 1.0:  # the marked tokens are found in the rendered calls: say if none matched
            n = train_ds.stats[stat]
            say(f"{key} {getattr(cfg, key)}: {n} {what} weighted"
                + ("; none found, so the weight changes nothing (does the data have calls?)" if not n else ""))
    if valid_ds is None:
        say("no valid.jsonl beside the training data: validation loss is skipped")
    heldout_src = cfg.heldout or valid_path
    prompts = calling_records(read_records(heldout_src, "skip")[0], cfg.validity_n) if heldout_src else []

    def measure_validity(model, when: str) -> None:
        """Held-out tool-call validity and prose perplexity (what the fine-tune costs in plain English), saved."""
        say(f"tool-call validity {'of the base model' if when == 'before' else 'after training'} on {len(prompts)} "
            "held-out prompts ...", flush=True)
        with progress_bar(len(prompts), f"validity {when}", unit="prompt", disable=not cfg.progress) as bar:
            result = evaluate_model(model, tokenizer, prompts, limit=None, max_tokens=cfg.validity_max_tokens,
                                    prompt_format=fmt, progress=bar.update)
        examples = [{k: it.get(k) for k in ("id", "kind", "reply")} for it in result["items"][:3]]
        v = validity[when] = {"validity": result["metrics"]["valid_rate"], **result["metrics"],
                              "prose_ppl": prose_perplexity(model, tokenizer), "examples": examples}
        write_json(validity_path, validity)
        say(f"  {when}: valid {v['validity']:.3f}, accuracy {v['accuracy']:.3f} {v['kinds']}; held-out prose "
            f"perplexity {v['prose_ppl']:.1f}")

    model, _ = load(cfg.model)
    base_folder = resolve_model_path(cfg.model)
    validity_path = run_dir / "validity.json"
    validity = json.loads(validity_path.read_text()) if validity_path.exists() else {}
    if rank == 0 and prompts and cfg.validity_n and "before" not in validity:
        measure_validity(model, "before")

    base_prose = validity.get("before", {}).get("prose_ppl")
    if rank == 0 and cfg.prose_bound and base_prose is None:  # only rank 0 writes the final model
        base_prose = prose_perplexity(model, tokenizer)
    pieces = token_pieces(tokenizer) if cfg.unlikelihood and not cfg.unlikelihood_arg_ends else None
    loss = with_unlikelihood(LOSSES[cfg.loss], cfg.unlikelihood, pieces)  # validation reads the plain loss
    if cfg.unlikelihood:
        say(f"unlikelihood {cfg.unlikelihood:g}: at each supervised token, the tokens its turn already wrote (other "
            "than the target) are pushed down")
    if pieces:
        sample = range(min(200, len(train_ds)))
        n = sum(len(argument_ends(train_ds.ids[i], train_ds.masks[i], pieces)) for i in sample)
        say(f"  except at the tokens that end a call's argument: {n} in the first {len(sample)} training records"
            + ("; none found, so sparing them changes nothing (does the data have calls?)" if not n else ""))
    mx.random.seed(cfg.seed)  # LoRA's random init: the same on every rank and in every run with this seed
    n_trainable = prepare(model, cfg)
    if cfg.resume and usable_checkpoint(run_dir, say=lambda msg: None):
        say("memory: the resumed run keeps its batch settings")
    else:  # may shrink the micro-batch (raising grad_accum) before the config is saved
        own = None
        if cfg.share_prefix:  # the longest part of a record after its first turn (the turn is shared)
            from train.data import first_turn_length

            own = max(len(ids) - first_turn_length(train_ds, i, train_ds.turn_end)
                      for i, ids in enumerate(train_ds.ids))
        say(fit_memory(model, cfg, loss, world, own_tokens=own))
    optimizer = build_optimizer(cfg)
    if rank == 0:
        write_json(run_dir / "data_stats.json", stats)
        cfg.extra = {**cfg.extra, "world_size": world, "trainable_parameters": n_trainable,
                     "base_model_folder": str(base_folder)}
        layered.save_resolved(cfg, run_dir / "config.yaml")
    say(f"{cfg.loss.upper()} + {cfg.fine_tune}: {n_trainable:,} trainable parameters; run folder {run_dir}")
    reporter = RunReporter(run_dir, cfg.steps, show=cfg.progress, rank=rank)
    state = train(model, optimizer, train_ds, valid_ds, cfg, loss=loss, callback=reporter, group=group,
                  eval_loss=LOSSES[cfg.loss])

    summary = {"steps": state.step, "supervised_tokens": state.supervised_tokens,
               "input_tokens": state.input_tokens, "train_seconds": round(state.train_seconds, 2),
               "tokens_per_s": state.input_tokens / max(state.train_seconds, 1e-9),
               "resumed_from": state.resumed_from, "world_size": world}
    if rank == 0:
        best = load_best(run_dir, model) if cfg.keep_best else None
        if best:
            summary.update(best_step=best["step"], best_val_ce=best["val_ce"])
            last = "the last step" if best["step"] == state.step else f"not those of the last, step {state.step}"
            say(f"final model: the weights of step {best['step']} (lowest validation cross-entropy, "
                f"{best['val_ce']:.4f}; {last})")
        if cfg.prose_bound:  # WiSE-FT back toward the base when the fine-tune cost too much English
            from train.interpolate import fit_prose_bound

            summary.update(fit_prose_bound(model, tokenizer, cfg.model, base_prose, cfg.prose_bound, say=say))
        final = save_final(model, tokenizer, base_folder, run_dir / "model", cfg, fmt)  # first: nothing after loses it
        if cfg.plot:
            plot_losses(run_dir / "metrics.jsonl", run_dir / "loss.png")
        if prompts and cfg.validity_n:
            measure_validity(model, "after")
        if valid_path and cfg.threshold_n:
            summary.update(choose_call_threshold(model, tokenizer, valid_path, cfg.threshold_n, cfg.seed, final, say,
                                                 cfg.threshold_min_calls_kept, fmt, cfg.progress))
        vals = read_metrics(run_dir / "metrics.jsonl", "valid")
        summary.update(model=str(final), val_loss_first=vals[0]["val_loss"] if vals else None,
                       val_loss_last=vals[-1]["val_loss"] if vals else None,
                       validity_before=validity.get("before", {}).get("validity"),
                       validity_after=validity.get("after", {}).get("validity"),
                       accuracy_before=validity.get("before", {}).get("accuracy"),
                       accuracy_after=validity.get("after", {}).get("accuracy"),
                       prose_ppl_before=validity.get("before", {}).get("prose_ppl"),
                       prose_ppl_after=validity.get("after", {}).get("prose_ppl"))
        write_json(run_dir / "summary.json", summary)
        say(json.dumps(summary, indent=2))
    return summary


def choose_call_threshold(model, tokenizer, valid_path, n: int, seed: int, model_dir, say,
                          min_calls_kept: float, fmt=None, progress: bool = True) -> dict:
    """Choose the call threshold on a seeded sample of the validation split and save it with the final model
    (eval.decision does the same by hand); the summary's fields, or a note when the sample lacks a kind.
    `progress`: a bar over the sample's forward passes."""
    from nanoagent.call_threshold import ThresholdError, call_probabilities, choose_threshold, save_threshold
    from nanoagent.progress import progress_bar
    from nanoagent.suites import load_suite

    items, _ = load_suite(f"valid:{valid_path}", limit=n, seed=seed)
    say(f"call threshold: P(call) on {len(items)} validation prompts ...", flush=True)
    model.eval()  # no dropout in the probe
    with progress_bar(len(items), "call threshold", unit="prompt", disable=not progress) as bar:
        rows = call_probabilities(model, tokenizer, items, fmt, progress=bar.update)
    info = choose_threshold(rows, min_calls_kept)
    if info is None:
        say("  no threshold: the validation sample needs prompts that need a call and prompts that need none")
        return {"call_threshold": None}
    try:
        save_threshold(model_dir, {**info, "chosen_on": "valid", "n": len(items), "seed": seed})
    except ThresholdError as e:  # the model is saved already; the run still ends with its summary
        say(f"  no threshold saved: {e}")
        return {"call_threshold": None}
    say(f"  {info['call_threshold']:.3f} (balanced accuracy {info['balanced_accuracy']:.3f}: keeps "
        f"{info['calls_kept']:.0%} of calls, declines {info['no_calls_declined']:.0%} of no-call prompts); saved "
        f"with the model, so `nanoagent serve` and the GGUF export use it")
    return {"call_threshold": info["call_threshold"], "call_threshold_balanced_accuracy": info["balanced_accuracy"]}


def main(argv: list[str] | None = None) -> int:
    try:
        cfg = resume_settings(load_config(argv), argv)
        run(cfg)
    except (ConfigError, DataError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except Exception as e:
        from nanoagent.models import ModelLoadError
        from train.checkpoint import CheckpointError

        if isinstance(e, (ModelLoadError, CheckpointError)):
            print(f"error: {e}", file=sys.stderr)
            return 2
        raise
    return 0


if __name__ == "__main__":
    sys.exit(main())
