"""Build a training set from a recipe: load -> convert -> filter -> decontaminate -> dedup x2 -> mix -> write.

Run:
    python -m data_recipes.build                                   # data_recipes/recipes/default.yaml
    python -m data_recipes.build --config data_recipes/recipes/fixtures.yaml --out data/fx --seed 1
    python -m data_recipes.build --offline --set filters.max_tokens=1024 --set sources.xlam.rows=100

From Python (the trainer): `build(recipe=None, **overrides) -> Path` (overrides as in `--set`, dotted keys or
nested dicts, e.g. `build(out="data/x", seed=3, filters={"max_tokens": 1024})`; `tokenizer=` may also be a
tokenizer object, which tests use). The output folder holds `train.jsonl` and `valid.jsonl` (canonical records,
one JSON per line), `stats.json` (per source: rows read, drops by reason, filter drops, contaminated, exact and
near duplicates removed, valid/train rows, tokens) and `recipe.resolved.yaml`; a summary table is printed.

Order of the passes: per-row work (adapter, filters, eval decontamination, fingerprints) runs in `num_proc`
worker processes in order-preserving chunks; as each chunk comes back this process runs exact dedup, then
MinHash LSH near-dedup, in recipe order (first source first, overlapping the workers); then the seeded mix
holds out `valid.jsonl`, and training rows that overlap the validation prompts are removed last.

Left out: sharded output and streaming for corpora that don't fit in memory (millions of rows need both).
"""

from __future__ import annotations

import argparse
import gc
import json
import multiprocessing
import os
import sys
import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import nanoagent  # noqa: F401  (sets up BLAS before anything imports mlx)
from data_recipes.adapters import ADAPTERS
from data_recipes.convert import Drop
from data_recipes.decontam import EvalIndex, bfcl_function_names, bfcl_texts, file_texts, text_grams, user_text
from data_recipes.dedup import NearDedup, dedup_text, exact_key, fingerprint
from data_recipes.filters import apply_filters
from data_recipes.load import SourceFileError, SyntheticRows, hub_status, load_rows, rows_slice
from data_recipes.mix import mix
from data_recipes.recipe import FilterConfig, Recipe, RecipeError, load_recipe, parse_override
from data_recipes.report import print_summary, publish, write_outputs
from nanoagent.config import HelpFormatter
from nanoagent.provenance import code_digest
from nanoagent.record import Record, RecordError

# The code that shapes the rows, relative to the checkout: recorded with its digest in stats.json, where train.dft
# compares it with its own checkout's (nanoagent/provenance.py).
CHECKOUT = Path(__file__).resolve().parents[1]
ROW_CODE = ("data_recipes", "nanoagent/record.py", "nanoagent/render.py", "nanoagent/toolcall.py",
            "nanoagent/fastschema.py", "nanoagent/typenames.py")

CHUNK = 256
_NO_GRAMS = np.zeros(0, dtype=np.uint64)
POOL_MIN_ROWS = 2000  # below this, worker start-up costs more than it saves


@dataclass(frozen=True)
class Row:
    """A row that passed the per-row passes: what dedup keeps, the mix shuffles and the writer writes."""
    source: str
    line: str  # the canonical record as one JSON line
    tokens: int
    supervised: int  # tokens under the loss mask
    grams: np.ndarray  # the prompt's n-grams


@dataclass(frozen=True)
class Outcome:
    """One raw row after the workers: `stage` "ok" with its `row` and dedup fingerprint (exact `key`, `shingles`,
    LSH `bands`), or the pass that dropped it ("convert", "filter", "contaminated") with the `reason`."""
    stage: str
    reason: str = ""
    row: Row | None = None
    key: bytes = b""
    shingles: np.ndarray | None = None
    bands: np.ndarray | None = None
    shortened: bool = False


@dataclass(frozen=True)
class Worker:
    """What the per-row passes read: one per build, handed to each pool worker once by `_start_worker`."""
    tokenizer: object
    filters: dict  # source -> FilterConfig
    dedup: object  # DedupConfig
    index: EvalIndex | None
    data: dict  # source -> loaded rows

    def process(self, source: str, raw) -> Outcome:
        """One raw row through adapter, filters, eval decontamination and fingerprinting (picklable result)."""
        try:
            rec = _synthetic(raw) if source == "synthetic" else ADAPTERS[source](raw)
        except Drop as d:
            return Outcome("convert", d.reason)
        except Exception as e:  # a malformed row is counted, never fatal
            return Outcome("convert", f"error:{type(e).__name__}")
        try:
            rec, info = apply_filters(rec, self.filters[source], self.tokenizer)
        except Drop as d:
            return Outcome("filter", d.reason)
        except Exception as e:
            return Outcome("filter", f"error:{type(e).__name__}")
        index = self.index  # the prompt's n-grams go back with the row: the check against valid reuses them
        grams = text_grams(user_text(rec), index.cfg.ngram) if index is not None else _NO_GRAMS
        hit = (index.match_grams(grams) or index.name_hit(rec)) if index is not None else None
        if hit:
            return Outcome("contaminated", hit)
        sh, bands = fingerprint(dedup_text(rec), self.dedup)
        row = Row(source, json.dumps(rec, ensure_ascii=False), info["tokens"], info["supervised"], grams)
        return Outcome("ok", row=row, key=exact_key(rec), shingles=sh, bands=bands, shortened=info["shortened"])

    def chunk(self, task: tuple[str, int, int]) -> tuple[str, list[Outcome]]:
        source, start, end = task
        return source, [self.process(source, r) for r in rows_slice(self.data[source], start, end)]


_pool_worker: Worker | None = None  # set in each pool process by its initializer; never in the main process


def _start_worker(worker: Worker) -> None:
    global _pool_worker
    gc.enable()  # forked from inside `_gc_paused`: workers collect as usual
    _pool_worker = worker


def _pool_chunk(task):
    return _pool_worker.chunk(task)


def _synthetic(row) -> dict:
    try:
        rec = Record.from_dict(row).to_dict()
    except RecordError as e:
        raise Drop("invalid_record:" + e.field.split("[")[0], e.problem) from None
    rec["meta"].setdefault("source", "synthetic")
    return rec


def _filter_cfgs(recipe: Recipe) -> dict:
    base = recipe.filters.__dict__
    return {e.id: FilterConfig(**{**base, **e.filters}) for e in recipe.sources}


def _eval_index(recipe: Recipe, stats: dict):
    cfg = recipe.decontam
    if not cfg.enabled:
        return None
    index = EvalIndex(cfg)
    for name, texts in bfcl_texts(cfg.bfcl).items():
        index.add_texts(name, texts)
    if cfg.function_names:
        index.function_names = bfcl_function_names(cfg.bfcl)
    missing = {}
    for spec in cfg.coding_tasks:  # the coding eval's tasks, where that package and its data exist
        try:
            from nanoagent.tasks import load_tasks

            index.add_texts(f"coding:{spec}", [t.statement for t in load_tasks(spec)])
        except Exception as e:  # optional eval set: report why it was not used, never stop the build
            missing[f"coding:{spec}"] = f"{type(e).__name__}: {str(e)[:120]}"
    for path in cfg.files:
        index.add_texts(f"file:{Path(path).name}", file_texts(path))
    if missing:
        stats["eval_sets_unavailable"] = missing
    stats["eval_sets"] = dict(index.texts_per_set)
    stats["eval_texts_too_short"] = index.skipped_short
    return index


def _load_all(recipe: Recipe, stats: dict, say) -> list[tuple[str, list]]:
    needs_hub = [e.id for e in recipe.sources if e.id != "synthetic" and not e.path]
    hub_ok, why = False, "recipe says hub: offline"
    if needs_hub and recipe.hub == "auto":
        hub_ok, why = hub_status(recipe.hub_timeout)
    if needs_hub and not hub_ok:
        say(f"Hugging Face Hub not reachable ({why}): using the bundled fixtures for {', '.join(needs_hub)}")
    stats["hub"] = {"reachable": hub_ok, "note": "" if hub_ok else why}
    loaded = []
    for e in recipe.sources:
        s = stats["sources"].setdefault(e.id, {})
        if e.id == "synthetic":
            try:
                from data_recipes.synthetic import generate  # noqa: F401
            except ImportError as err:
                say(f"synthetic source unavailable ({err}); building without it")
                s.update(origin="unavailable", note=str(err), raw=0)
                loaded.append((e.id, []))
                continue
            rows = SyntheticRows(e.rows, recipe.seed, e.kinds, e.prose_schema, e.settings, e.settings_stated)
            s.update(origin="generated", note="", raw=len(rows))
        else:
            rows, origin, note = load_rows(e, hub_ok)
            s.update(origin=origin, note=note, raw=len(rows))
        loaded.append((e.id, rows))
    return loaded


def _run_rows(recipe: Recipe, loaded, tokenizer, index, quiet: bool, consume) -> None:
    """Per-row work in workers; `consume(source, outcomes)` gets each chunk in order as it arrives, so the
    sequential dedup in this process overlaps the workers instead of waiting for all of them."""
    from tqdm import tqdm

    # Workers get the loaded tables once (inherited on fork; datasets pickle as memory-mapped files otherwise)
    # and receive only index ranges, so Arrow -> Python conversion also runs in parallel.
    worker = Worker(tokenizer, _filter_cfgs(recipe), recipe.dedup, index, dict(loaded))
    tasks = [(name, i, min(i + CHUNK, len(rows))) for name, rows in loaded for i in range(0, len(rows), CHUNK)]
    total = sum(len(rows) for _, rows in loaded)
    bar = tqdm(total=total, desc="convert, filter, dedup", unit="row", disable=quiet, file=sys.stderr)
    if recipe.num_proc > 1 and total >= POOL_MIN_ROWS:
        saved = os.environ.get("TOKENIZERS_PARALLELISM")
        os.environ["TOKENIZERS_PARALLELISM"] = "false"  # workers encode one short piece at a time
        ctx = multiprocessing.get_context("fork" if sys.platform.startswith("linux") else "spawn")
        try:
            with ctx.Pool(recipe.num_proc, initializer=_start_worker, initargs=(worker,)) as pool:
                for source, outs in pool.imap(_pool_chunk, tasks):
                    consume(source, outs)
                    bar.update(len(outs))
        finally:
            if saved is None:
                os.environ.pop("TOKENIZERS_PARALLELISM", None)
            else:
                os.environ["TOKENIZERS_PARALLELISM"] = saved
    else:
        gc.enable()  # the per-row work runs here, as in a worker: it makes cyclic garbage, so collect as they do
        for task in tasks:
            source, outs = worker.chunk(task)
            consume(source, outs)
            bar.update(len(outs))
    bar.close()


@contextmanager
def _gc_paused():
    """The cyclic garbage collector off while rows stream in.

    The row tuples, shingle arrays and LSH buckets kept here are millions of small acyclic objects, freed by
    reference counting. The collector's full passes over them took 4 of 36 s in this process on a 100k-row build
    (bench/data_throughput.py, measured with datasketch's bucket sets) and could free nothing.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def build(recipe: str | Path | None = None, *, quiet: bool = False, **overrides) -> Path:
    """Build the data set described by `recipe` (+ overrides); returns the output folder."""
    t0 = time.perf_counter()
    say = (lambda msg: None) if quiet else (lambda msg: print(msg, file=sys.stderr))
    tok_obj = overrides.pop("tokenizer", None)
    if tok_obj is not None and isinstance(tok_obj, str):
        overrides["tokenizer"], tok_obj = tok_obj, None
    cfg = load_recipe(recipe, overrides)
    if Path(cfg.out).exists() and not Path(cfg.out).is_dir():
        raise RecipeError(f"out: {cfg.out} is a file; give a folder for the build's output (it is replaced "
                          "whole when the build finishes)")
    if tok_obj is None:
        from nanoagent.models import load_tokenizer

        tokenizer, tok_name = load_tokenizer(cfg.tokenizer), cfg.tokenizer
    else:
        tokenizer, tok_name = tok_obj, f"<object {type(tok_obj).__name__}>"
        cfg.tokenizer = tok_name
    stats: dict = {"recipe": cfg.name, "seed": cfg.seed, "tokenizer": tok_name, "sources": {}, "timings_s": {},
                   "code": {"paths": list(ROW_CODE), "digest": code_digest(CHECKOUT, ROW_CODE)}}  # train.dft checks
    index = _eval_index(cfg, stats)
    loaded = _load_all(cfg, stats, say)
    t_load = time.perf_counter()
    seen, near = set(), NearDedup(cfg.dedup)
    pools: dict[str, list[Row]] = {e.id: [] for e in cfg.sources}
    counters = {e.id: {k: Counter() for k in ("convert", "filter", "contaminated")} for e in cfg.sources}
    extra = {e.id: Counter() for e in cfg.sources}
    gid = 0

    def consume(source: str, outs: list[Outcome]) -> None:  # exact, then near dedup, in recipe order
        nonlocal gid
        for o in outs:
            if o.stage != "ok":
                counters[source][o.stage][o.reason] += 1
                continue
            extra[source]["shortened"] += int(o.shortened)
            if cfg.dedup.exact:
                if o.key in seen:
                    extra[source]["exact_dups"] += 1
                    continue
                seen.add(o.key)
            gid += 1
            if cfg.dedup.near and not near.add(gid, o.shingles, o.bands):
                extra[source]["near_dups"] += 1
                continue
            pools[source].append(o.row)

    with _gc_paused():
        _run_rows(cfg, loaded, tokenizer, index, quiet, consume)
    t_rows = time.perf_counter()
    if "synthetic" in pools:
        check_synthetic_capacity(entries_rows=stats["sources"]["synthetic"].get("raw", 0),
                                 dups=extra["synthetic"]["exact_dups"] + extra["synthetic"]["near_dups"],
                                 distinct=len(pools["synthetic"]))

    entries = {e.id: e for e in cfg.sources}
    train, valid, mixed = mix(pools, entries, cfg.seed, cfg.valid_fraction, cfg.valid_max_rows)
    valid_hits = Counter()
    if cfg.decontam.enabled and cfg.decontam.against_valid and valid:
        vindex = EvalIndex(cfg.decontam)
        vindex.add_grams("valid", (v.grams for v in valid))
        kept = []
        for row, hit in zip(train, vindex.match_many([t.grams for t in train])):
            if hit:
                valid_hits[row.source] += 1
            else:
                kept.append(row)
        train = kept
    t_mix = time.perf_counter()

    for e in cfg.sources:
        s, c = stats["sources"][e.id], counters[e.id]
        s.update(
            dropped=dict(sorted(c["convert"].items())), filtered=dict(sorted(c["filter"].items())),
            contaminated=dict(sorted(c["contaminated"].items())), shortened=extra[e.id]["shortened"],
            exact_dups=extra[e.id]["exact_dups"], near_dups=extra[e.id]["near_dups"],
            available=len(pools[e.id]), valid=mixed[e.id]["valid"], train=mixed[e.id]["train"])
    for src, n in valid_hits.items():
        stats["sources"][src]["train_overlapping_valid"] = n
        stats["sources"][src]["train"] -= n
    for e in cfg.sources:
        stats["sources"][e.id]["train_tokens"] = sum(t.tokens for t in train if t.source == e.id)
        stats["sources"][e.id]["train_supervised_tokens"] = sum(t.supervised for t in train if t.source == e.id)
    stats["near_dedup_candidates_checked"] = near.candidates
    if not train:
        kept = ", ".join(f"{e.id}: {len(pools[e.id])} kept, weight {e.weight}" for e in cfg.sources)
        raise RecipeError(f"the recipe made no training rows ({kept}); give a source a weight above 0, or see "
                          "why its rows were dropped with a build of that source alone; nothing was written")
    staged = write_outputs(cfg, train, valid, stats)
    t_end = time.perf_counter()
    stats["timings_s"] = {"load": round(t_load - t0, 3), "rows_and_dedup": round(t_rows - t_load, 3),
                          "mix": round(t_mix - t_rows, 3),
                          "write": round(t_end - t_mix, 3), "total": round(t_end - t0, 3)}
    raw = sum(s["raw"] for s in stats["sources"].values())
    stats["rows_per_s"] = round(raw / max(t_end - t0, 1e-9), 1)
    (staged / "stats.json").write_text(json.dumps(stats, indent=2, ensure_ascii=False) + "\n")
    out = publish(staged, Path(cfg.out))  # stats.json last, then one rename: the folder is whole or absent
    if not quiet:
        print_summary(stats, out)
    return out


MAX_SYNTHETIC_DUPS = 0.25  # more repeats than this among the synthetic rows means the recipe asked for too many


def check_synthetic_capacity(entries_rows: int, dups: int, distinct: int) -> None:
    """RecipeError when over MAX_SYNTHETIC_DUPS of the synthetic rows that passed the filters repeat an earlier
    row (exact or near duplicates): the recipe asks for more distinct rows than the generator's tools and
    templates can make for its kinds. The message says how many it made."""
    reached = dups + distinct
    if reached and dups / reached > MAX_SYNTHETIC_DUPS:
        raise RecipeError(
            f"sources.synthetic.rows asks for {entries_rows:,} rows, but with its kinds the generator can make only "
            f"about {distinct:,} distinct ones: {dups:,} of the {reached:,} rows that passed the filters "
            f"({dups / reached:.0%}) repeat an earlier row. Ask for at most {distinct:,} rows, or give the kinds "
            f"that repeat (no_tool, coding) less weight; nothing was written.")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m data_recipes.build", description=__doc__.split("\n\n")[0],
                                 formatter_class=HelpFormatter)
    ap.add_argument("--config", "--recipe", dest="recipe",
                    help="recipe YAML (default: data_recipes/recipes/default.yaml); --recipe is the same flag")
    ap.add_argument("--out", help="output folder (recipe: out)")
    ap.add_argument("--seed", type=int, help="mixing and generation seed (recipe: seed)")
    ap.add_argument("--offline", action="store_true", help="never touch the Hub: use the fixtures (recipe: hub)")
    ap.add_argument("--num-proc", type=int, help="worker processes (recipe: num_proc)")
    ap.add_argument("--tokenizer", help="tokenizer spec for token caps (recipe: tokenizer)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="any recipe field, dotted: filters.max_tokens=1024, sources.xlam.rows=100")
    ap.add_argument("--quiet", action="store_true", help="no progress bars or summary")
    args = ap.parse_args(argv)
    try:
        overrides = dict(parse_override(s) for s in args.set)
        for key, value in (("out", args.out), ("seed", args.seed), ("num_proc", args.num_proc),
                           ("tokenizer", args.tokenizer), ("hub", "offline" if args.offline else None)):
            if value is not None:
                overrides[key] = value
        out = build(args.recipe, quiet=args.quiet, **overrides)
    except RecipeError as e:
        print(f"recipe error: {e}", file=sys.stderr)
        return 2
    except SourceFileError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.quiet:
        print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
