"""Training speed of train.dft against mlx-lm's trainer (`mlx_lm.lora`'s loop) in the same run, MFU, DFT vs SFT.

Run by hand (minutes; CPU-heavy, so nothing else heavy at the same time):
    .venv/bin/python -m bench.train_speed                       # all parts, embedded SmolLM2-135M
    .venv/bin/python -m bench.train_speed --parts mfu --steps 2 --seq 256 1024

Parts (each writes into bench/results/train_speed.json with the machine's details):
  peer  tokens/s of train.dft vs mlx_lm.tuner.trainer.train (what `mlx_lm.lora` runs) on the same model, token
        sequences, batch, length and LoRA settings; LoRA, full with the embedding frozen as mlx-lm does it, and
        our full (embedding trained too). Ratio = ours / theirs. Rounds alternate the two to share machine noise.
  mfu   full fine-tuning tokens/s at each --seq (batch 4 x 256, batch 1 x 1024: same tokens per step), as
        6 x parameters x tokens/s over the float32 matmul rate of MLX measured here on the model's own shapes.
  dft   DFT vs SFT step time and peak memory (LoRA and full), same batches.
  unlikelihood  SFT against SFT with `--unlikelihood 1` (train/losses.py with_unlikelihood) on `real`'s batches
        (packed 4 x 1024 default-recipe records, the compiled kernels where built): the term's cost per step and
        in peak memory; rounds alternate the two.
        .venv/bin/python -m bench.train_speed --parts unlikelihood --real-fine-tunes full --steps 4 --rounds 2 \
            --out train_speed_unlikelihood
  real  the shape train.dft trains: default-recipe records (a seeded sample), packed 4 x 1024, SFT, LoRA and full.
        Each run is its own process: `today` is the path before packed attention and the malloc setting (a dense
        block-diagonal mask, glibc's defaults), `malloc` and `spans` add one each, `new` both (train.dft before the compiled kernels), and
        `native` is `new` with nanoagent.native's compiled softmax, SwiGLU and logsumexp (train.dft's default where
        they are built: python -m nanoagent.native.build), the attention weights and the MLP's SwiGLU output
        computed again in the backward pass (nanoagent/packed_attention.py), `native_keep` the same keeping both,
        `native_attn` recomputing the attention weights only (the default before 2026-11-26), `native_ckptN` is
        `native` recomputing every Nth block's activations too (--grad-checkpoint --checkpoint-every N), and
        `mlx_lm` is mlx_lm.lora's loop on the same packed rows (plain causal, glibc's defaults). tokens/s counts
        real input tokens; peak memory is MLX's and the process's resident maximum.
        .venv/bin/python -m bench.train_speed --parts real --steps 2 --out train_speed_real

The token sequences are chunks of the default recipe's rendered records (or of a fixed random stream when the
data is missing), every target supervised, so both trainers do identical work (on chat data ours also skips the
output projection at unsupervised positions, which this comparison deliberately leaves out).
Left out: Metal timings (run it on a Mac for those).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import nanoagent  # noqa: F401  (OpenBLAS before mlx)

import mlx.core as mx
import mlx.optimizers as optim
import numpy as np

from bench.machine import write_result
from nanoagent import native
from nanoagent.blas import state as blas_state
from train.config import DFTConfig
from train.data import TokenDataset
from train.losses import dft_loss, sft_loss
from train.trainer import Callback, train
from train.tuning import count_trainable, prepare


def token_stream(tokenizer, n_tokens: int) -> np.ndarray:
    path = Path("data/default/train.jsonl")
    if path.is_file():
        from nanoagent.render import render

        ids = []
        with path.open() as f:
            for line in f:
                ids.extend(render(json.loads(line), tokenizer)[0])
                if len(ids) >= n_tokens:
                    break
        return np.asarray(ids[:n_tokens], np.int32)
    return np.random.default_rng(0).integers(3, 49000, n_tokens, dtype=np.int32)


def chunks(stream: np.ndarray, n: int, length: int) -> list[np.ndarray]:
    return [stream[i * (length + 1):(i + 1) * (length + 1)] for i in range(n)]


def our_dataset(seqs) -> TokenDataset:
    return TokenDataset([s.copy() for s in seqs], [np.ones(len(s), np.float32) for s in seqs])


class Times(Callback):
    def __init__(self):
        self.rows = []

    def on_step(self, info):
        self.rows.append((info["step_seconds"], info["input_tokens"], info["peak_mem_gb"]))


def fresh_model(spec):
    from nanoagent.models import load

    model, _ = load(spec)
    return model


NUMPY_OPS = [False]  # --numpy-ops: train.dft's `numpy_ops` setting for every run of ours


def run_ours(spec, seqs, batch, length, fine_tune, steps, loss=dft_loss, freeze_embedding=False, rank=16):
    model = fresh_model(spec)
    cfg = DFTConfig(fine_tune=fine_tune, lora_rank=rank, batch_size=batch, max_length=length + 1, steps=steps + 1,
                    val_every=0, save_every=0, resume=False, warmup_steps=0, learning_rate=1e-5, grad_clip=0.0,
                    numpy_ops=NUMPY_OPS[0])
    mx.random.seed(0)
    prepare(model, cfg)
    if freeze_embedding:
        model.model.embed_tokens.freeze()
    opt = optim.AdamW(learning_rate=1e-5)
    cb = Times()
    mx.reset_peak_memory()
    train(model, opt, our_dataset(seqs), None, cfg, loss=loss, callback=cb)
    rows = cb.rows[1:]  # the first step pays one-time costs
    secs, toks = sum(r[0] for r in rows), sum(r[1] for r in rows)
    return {"tokens_per_s": toks / secs, "step_seconds": [round(r[0], 3) for r in rows],
            "peak_mem_gb": max(r[2] for r in cb.rows), "trainable": count_trainable(model)}


def run_mlx_lm(spec, seqs, batch, length, fine_tune, steps, rank=16):
    """mlx-lm's own loop (compiled step, its batching and loss) as `mlx_lm.lora` sets it up."""
    from mlx_lm.tuner.trainer import TrainingArgs, TrainingCallback
    from mlx_lm.tuner.trainer import train as mlx_train
    from mlx_lm.tuner.utils import linear_to_lora_layers

    model = fresh_model(spec)
    model.freeze()
    if fine_tune == "lora":
        mx.random.seed(0)
        linear_to_lora_layers(model, len(model.layers), {"rank": rank, "scale": 20.0, "dropout": 0.0})
    else:  # what mlx_lm.lora --fine-tune-type full does: unfreeze the blocks (the embedding stays frozen)
        for layer in model.layers:
            layer.unfreeze()
    reports = []

    class CB(TrainingCallback):
        def on_train_loss_report(self, info):
            reports.append(info)

    dataset = [(s.tolist(), 0) for s in seqs]
    args = TrainingArgs(batch_size=batch, iters=steps + 1, val_batches=0, steps_per_report=1,
                        steps_per_eval=10**9, steps_per_save=10**9, max_seq_length=length + 1,
                        adapter_file="/tmp/nanoagent_bench_adapters.safetensors")
    mx.reset_peak_memory()
    mlx_train(model, optim.AdamW(learning_rate=1e-5), dataset, None, args=args, training_callback=CB())
    rows = reports[1:]
    toks = [r["tokens_per_second"] for r in rows]
    per_step_tokens = reports[0]["trained_tokens"]
    step_seconds = [per_step_tokens / t for t in toks]
    return {"tokens_per_s": per_step_tokens * len(rows) / sum(step_seconds),
            "step_seconds": [round(s, 3) for s in step_seconds], "peak_mem_gb": max(r["peak_memory"] for r in reports)}


REAL_VARIANTS = {"today": ("dense", "default"), "malloc": ("dense", "on"), "spans": ("spans", "default"),
                 "new": ("spans", "on"), "native_keep": ("spans", "on"), "native_attn": ("spans", "on"),
                 "native": ("spans", "on"),
                 "native_ckpt1": ("spans", "on"), "native_ckpt2": ("spans", "on"), "native_ckpt3": ("spans", "on"),
                 "mlx_lm": ("peer", "default")}
# with nanoagent.native's exp-family kernels (train.dft's default where built); _keep: the attention weights and the
# SwiGLU output kept for the backward pass (packed_attention.RECOMPUTE_WEIGHTS and RECOMPUTE_SWIGLU off), _attn: only
# the SwiGLU output kept; _ckptN: gradient checkpointing of every Nth block too (--grad-checkpoint --checkpoint-every N)
NATIVE_VARIANTS = {"native_keep", "native_attn", "native", "native_ckpt1", "native_ckpt2", "native_ckpt3"}
REAL_CASES = {"lora": ["today", "malloc", "spans", "new", "native_keep", "native_attn", "native", "native_ckpt1",
                       "native_ckpt2", "native_ckpt3", "mlx_lm"],
              "full": ["today", "new", "native_keep", "native_attn", "native", "native_ckpt1", "native_ckpt2",
                       "native_ckpt3", "mlx_lm"]}


def real_batches(tokenizer, n_records: int = 600, seed: int = 0, batch: int = 4, length: int = 1024):
    """A seeded random sample of the default recipe's records, tokenized as train.dft does, and its packed plan."""
    from train.data import epoch_plan, read_records, tokenize

    path = Path("data/default/train.jsonl")
    if not path.is_file():
        raise SystemExit(f"{path} is missing: build the default recipe first (python -m data_recipes.build)")
    lines = path.read_text().splitlines()
    pick = sorted(np.random.default_rng(seed).choice(len(lines), min(n_records, len(lines)), replace=False))
    sample = Path("/tmp/nanoagent_bench_real.jsonl")
    sample.write_text("".join(lines[i] + "\n" for i in pick))
    ds = tokenize(read_records(sample)[0], tokenizer, max_length=length)
    return ds, epoch_plan(ds, batch, seed, 0, pack=True, max_length=length)


def dense_hidden_states(model, inputs, spans=None):
    """train.losses.hidden_states as it was before nanoagent/packed_attention.py: one dense block-diagonal mask."""
    from nanoagent.packed_attention import RecordSpans

    inner = model.model
    h = inner.embed_tokens(inputs)
    mask = "causal" if spans is None else mx.array(RecordSpans(spans).dense(inputs.shape[1]))[:, None]
    for layer in inner.layers:
        h = layer(h, mask, None)
    return inner.norm(h)


def run_real(spec, variant: str, fine_tune: str, steps: int) -> dict:
    """One `real` run in this process (the parent sets NANOAGENT_MALLOC before it starts)."""
    import resource

    from nanoagent.cpu_memory import state as malloc_state
    from nanoagent.models import load_tokenizer
    from train import losses
    from train.data import make_batch

    from nanoagent import packed_attention

    attention, _ = REAL_VARIANTS[variant]
    packed_attention.RECOMPUTE_WEIGHTS = variant in NATIVE_VARIANTS and variant != "native_keep"
    packed_attention.RECOMPUTE_SWIGLU = variant in NATIVE_VARIANTS and variant not in ("native_keep", "native_attn")
    ds, plan = real_batches(load_tokenizer(spec))
    if attention == "peer":
        rows = []
        for idx in plan[:steps + 1]:
            b = make_batch(ds, idx, 4, True, 1024)
            rows += [np.append(b.inputs[r, :n], b.targets[r, n - 1]) for r, n in enumerate(b.lengths) if n]
        out = run_mlx_lm(spec, rows, 4, 1024, fine_tune, steps)
    else:
        if attention == "dense":
            losses.hidden_states = dense_hidden_states
        out = run_real_loss(spec, ds, fine_tune, steps, sft_loss, native_ops=variant in NATIVE_VARIANTS,
                            grad_checkpoint="_ckpt" in variant,
                            checkpoint_every=int(variant.split("_ckpt")[1]) if "_ckpt" in variant else 1)
    out.update(variant=variant, fine_tune=fine_tune, malloc=malloc_state["status"],
               native_ops=variant in NATIVE_VARIANTS and native.usable(),
               max_rss_gb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6)
    return out


def part_real(spec, args) -> dict:
    import os
    import subprocess
    import sys

    out = {"shape": "packed 4 x 1024, default-recipe records (seeded 600), SFT, LoRA rank 16", "timed_steps":
           args.steps, "variants": {k: {"attention": a, "malloc": m} for k, (a, m) in REAL_VARIANTS.items()}}
    if "native" in args.real_variants and not native.usable():
        raise SystemExit(f"the `native` variant needs the compiled ops: run `{native.BUILD_COMMAND}`")
    for ft in args.real_fine_tunes:
        runs = {}
        for variant in [v for v in REAL_CASES[ft] if v in args.real_variants]:
            env = dict(os.environ)
            if REAL_VARIANTS[variant][1] == "default":
                env["NANOAGENT_MALLOC"] = "default"
            else:
                env.pop("NANOAGENT_MALLOC", None)
            cmd = [sys.executable, "-m", "bench.train_speed", "--model", spec, "--real-run", variant,
                   "--real-fine-tunes", ft, "--steps", str(args.steps)]
            proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
            if proc.returncode:
                raise SystemExit(f"{variant} {ft} run failed:\n{proc.stderr[-3000:]}")
            runs[variant] = json.loads(proc.stdout.strip().splitlines()[-1])
            print(ft, variant, {k: v for k, v in runs[variant].items() if k in ("tokens_per_s", "peak_mem_gb",
                                                                               "max_rss_gb")}, flush=True)
        speed = {k: r["tokens_per_s"] for k, r in runs.items()}
        out[ft] = {"runs": runs, **{f"{a}_over_{b}": speed[a] / speed[b] for a, b in
                                    [("new", "today"), ("new", "mlx_lm"), ("today", "mlx_lm"), ("native", "today"),
                                     ("native", "mlx_lm"), ("native", "new"), ("native", "native_keep"),
                                     ("native", "native_attn"),
                                     ("native_keep", "today"), ("native_ckpt1", "today"),
                                     ("native_ckpt2", "today"), ("native_ckpt3", "today"), ("native_ckpt3", "mlx_lm")]
                                    if a in speed and b in speed}}
        print(ft, {k: round(v, 3) for k, v in out[ft].items() if k != "runs"}, flush=True)
    return out


def run_real_loss(spec, ds, fine_tune: str, steps: int, loss, **settings) -> dict:
    """`steps` timed train.dft steps (after one untimed) of `loss` on real_batches' packed rows, in this process;
    `settings`: DFTConfig fields over these (native_ops defaults to whether the compiled kernels are built)."""
    model = fresh_model(spec)
    cfg = DFTConfig(**{"loss": "sft", "fine_tune": fine_tune, "lora_rank": 16, "batch_size": 4, "max_length": 1024,
                       "pack": True, "steps": steps + 1, "val_every": 0, "save_every": 0, "resume": False,
                       "warmup_steps": 0, "learning_rate": 1e-5, "grad_clip": 0.0, "native_ops": native.usable(),
                       **settings})
    mx.random.seed(0)
    prepare(model, cfg)
    cb = Times()
    mx.reset_peak_memory()
    train(model, optim.AdamW(learning_rate=1e-5), ds, None, cfg, loss=loss, callback=cb)
    rows = cb.rows[1:]
    return {"tokens_per_s": sum(r[1] for r in rows) / sum(r[0] for r in rows),
            "step_seconds": [round(r[0], 3) for r in rows], "input_tokens": [r[1] for r in rows],
            "peak_mem_gb": max(r[2] for r in cb.rows)}


def part_unlikelihood(spec, args) -> dict:
    from nanoagent.models import load_tokenizer
    from train.losses import with_unlikelihood

    ds, _ = real_batches(load_tokenizer(spec))
    losses = {"sft": sft_loss, "sft_unlikelihood1": with_unlikelihood(sft_loss, 1.0)}
    out = {"shape": "packed 4 x 1024, default-recipe records (seeded 600); LoRA rank 16 or full", "timed_steps":
           args.steps, "rounds": args.rounds, "native_ops": native.usable()}
    for ft in args.real_fine_tunes:
        runs = {k: [] for k in losses}
        for _ in range(args.rounds):
            for name, fn in losses.items():
                runs[name].append(run_real_loss(spec, ds, ft, args.steps, fn))
        # the same batches in every run, so step times compare step by step; the median over steps and rounds
        med = {k: statistics.median(t for r in v for t in r["step_seconds"]) for k, v in runs.items()}
        out[ft] = {"runs": runs, "median_step_seconds": med,
                   "unlikelihood_cost_over_sft": med["sft_unlikelihood1"] / med["sft"] - 1,
                   "peak_mem_gb": {k: max(r["peak_mem_gb"] for r in v) for k, v in runs.items()}}
        print(ft, {k: v for k, v in out[ft].items() if k != "runs"}, flush=True)
    return out


def matmul_rate(shapes, repeats: int = 5) -> dict:
    out = {}
    for m, k, n in shapes:
        a = mx.random.normal((m, k))
        b = mx.random.normal((k, n))
        mx.eval(a, b, a @ b)
        best = float("inf")
        for _ in range(repeats):
            tic = time.perf_counter()
            mx.eval(a @ b)
            best = min(best, time.perf_counter() - tic)
        out[f"{m}x{k}x{n}"] = 2 * m * k * n / best / 1e9
    return out


def part_peer(spec, stream, args) -> dict:
    seqs = chunks(stream, args.batch * (args.steps + 1), args.peer_seq)
    result = {"batch": args.batch, "seq": args.peer_seq, "timed_steps": args.steps, "rounds": args.rounds}
    cases = [("lora_r16_all_linear", "lora", False), ("full_blocks_only", "full", True),
             ("full_ours_with_embedding", "full", False)]
    for name, ft, freeze in [c for c in cases if c[0] in args.peer_cases]:
        ours, theirs = [], []
        for _ in range(args.rounds):
            theirs.append(run_mlx_lm(spec, seqs, args.batch, args.peer_seq, ft, args.steps) if name !=
                          "full_ours_with_embedding" else None)
            ours.append(run_ours(spec, seqs, args.batch, args.peer_seq, ft, args.steps, freeze_embedding=freeze))
        entry = {"ours": ours}
        o = statistics.median(r["tokens_per_s"] for r in ours)
        entry["ours_tokens_per_s"] = o
        if theirs[0] is not None:
            t = statistics.median(r["tokens_per_s"] for r in theirs)
            entry.update(mlx_lm=theirs, mlx_lm_tokens_per_s=t, ratio_ours_over_mlx_lm=o / t)
        result[name] = entry
        print(name, {k: v for k, v in entry.items() if not isinstance(v, list)}, flush=True)
    return result


def part_mfu(spec, stream, args, n_params) -> dict:
    rates = matmul_rate([(1024, 576, 1536), (1024, 1536, 576), (1024, 576, 49152), (1024, 576, 576)])
    peak = max(rates.values())
    out = {"matmul_gflops": rates, "peak_gflops": peak, "parameters": n_params, "runs": {}}
    for seq in args.seq:
        batch = max(1, args.batch * 256 // seq)
        seqs = chunks(stream, batch * (args.steps + 1), seq)
        r = run_ours(spec, seqs, batch, seq, "full", args.steps, loss=sft_loss)
        achieved = 6 * n_params * r["tokens_per_s"] / 1e9
        r.update(batch=batch, seq=seq, model_gflops=achieved, mfu=achieved / peak)
        out["runs"][f"{batch}x{seq}"] = r
        print(f"mfu {batch}x{seq}: {r['tokens_per_s']:.1f} tok/s, {achieved:.1f} GFLOP/s of {peak:.1f} "
              f"-> {100 * r['mfu']:.1f}%", flush=True)
    return out


def part_dft(spec, stream, args) -> dict:
    seqs = chunks(stream, args.batch * (args.steps + 1), args.peer_seq)
    out = {}
    for ft in args.dft_methods:
        runs = {"sft": [], "dft": []}
        for _ in range(args.rounds):
            for name, fn in (("sft", sft_loss), ("dft", dft_loss)):
                runs[name].append(run_ours(spec, seqs, args.batch, args.peer_seq, ft, args.steps, loss=fn))
        med = {k: statistics.median(sum(r["step_seconds"]) / len(r["step_seconds"]) for r in v)
               for k, v in runs.items()}
        out[ft] = {"runs": runs, "sft_step_seconds": med["sft"], "dft_step_seconds": med["dft"],
                   "dft_cost_over_sft": med["dft"] / med["sft"] - 1,
                   "peak_mem_gb": {k: max(r["peak_mem_gb"] for r in v) for k, v in runs.items()}}
        print(ft, {k: v for k, v in out[ft].items() if k != "runs"}, flush=True)
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="embedded")
    p.add_argument("--parts", nargs="+", default=["peer", "mfu", "dft"], choices=["peer", "mfu", "dft", "real",
                                                                                  "unlikelihood"])
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--peer-seq", type=int, default=256)
    p.add_argument("--seq", type=int, nargs="+", default=[256, 1024])
    p.add_argument("--steps", type=int, default=3, help="timed steps per run (after one untimed)")
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--peer-cases", nargs="+", default=["lora_r16_all_linear", "full_blocks_only",
                                                       "full_ours_with_embedding"])
    p.add_argument("--dft-methods", nargs="+", default=["lora", "full"], choices=["lora", "full"])
    p.add_argument("--numpy-ops", action="store_true", help="our runs with train.dft --numpy-ops (CPU)")
    p.add_argument("--real-fine-tunes", nargs="+", default=["lora", "full"], choices=["lora", "full"])
    p.add_argument("--real-variants", nargs="+", default=sorted(REAL_VARIANTS), choices=sorted(REAL_VARIANTS),
                   help="the `real` part's variants to run (default all)")
    p.add_argument("--real-run", choices=sorted(REAL_VARIANTS), help=argparse.SUPPRESS)  # one `real` child run
    p.add_argument("--out", default="train_speed")
    args = p.parse_args(argv)
    if args.real_run:
        print(json.dumps(run_real(args.model, args.real_run, args.real_fine_tunes[0], args.steps)))
        return
    NUMPY_OPS[0] = args.numpy_ops
    from nanoagent.models import load_tokenizer

    model = fresh_model(args.model)
    from mlx.utils import tree_flatten

    n_params = sum(v.size for _, v in tree_flatten(model.parameters()))
    stream = token_stream(load_tokenizer(args.model), 64 * 1100) % model.args.vocab_size
    del model
    import sys

    result = {"command": "python -m bench.train_speed " + " ".join(sys.argv[1:] if argv is None else argv), "model": args.model,
              "openblas": dict(blas_state), "settings": vars(args)}
    started = time.time()
    if "peer" in args.parts:
        result["peer"] = part_peer(args.model, stream, args)
    if "mfu" in args.parts:
        result["mfu"] = part_mfu(args.model, stream, args, n_params)
    if "dft" in args.parts:
        result["dft_vs_sft"] = part_dft(args.model, stream, args)
    if "real" in args.parts:
        result["real"] = part_real(args.model, args)
    if "unlikelihood" in args.parts:
        result["unlikelihood"] = part_unlikelihood(args.model, args)
    result["wall_seconds"] = round(time.time() - started, 1)
    print("wrote", write_result(args.out, result))


if __name__ == "__main__":
    main()
