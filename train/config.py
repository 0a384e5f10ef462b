"""The one config of the SFT/DFT stage: a dataclass with defaults, overridden by a YAML file, overridden by flags.

    cfg = load_config(["--config", "my.yaml", "--steps", "50", "--no-fuse"])

Precedence is defaults < YAML < command-line flags, and "not given" is not "false": a flag left off the command
line never overrides the YAML. An unknown YAML key or a bad value is an error that names it (with the closest
valid key) before any model is loaded. The fields both trainers share, saving the resolved config and what a
resumed run keeps are in train/run_config.py; the layering itself is nanoagent/config.py. This module adds the
SFT/DFT fields, CHOICES, the range checks and RESUME_SAFE.

The defaults are the best recipe measured for the 135M model (train/README.md says why): the quality run
(train/configs/quality-cpu-full.yaml) with SFT and full fine-tuning, 2 x 2 packed rows of 1,024 tokens, lr 5e-5,
the first reply token's loss weighted 3x, token-level unlikelihood at weight 1, tools listed in the compact prompt
format, 150 steps, a validation every 25 steps on 8 batches (train/results/quality-cpu-settings-seed3/ compares it
with the recipe before, at two seeds). Full fine-tuning peaked at 7.2 GB here (LoRA: 6.0 GB); on an 8 GB M1 the
memory fit halves the micro-batch (train/memory_fit.py).
Left out: dotted nested keys (the config is flat on purpose).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from nanoagent import config as layered
from nanoagent.call_threshold import MIN_CALLS_KEPT
from nanoagent.config import ConfigError, option  # ConfigError: the error train.dft and train.grpo catch
from nanoagent.render import FORMATS
from train import run_config
from train.run_config import TrainingConfig, check_training

CHOICES = {
    "loss": ("dft", "sft"),
    "fine_tune": run_config.FINE_TUNES,
    "on_too_long": ("skip", "truncate", "error"),
    "on_bad_record": ("error", "skip"),
}


@dataclass
class DFTConfig(TrainingConfig):
    # the shared fields (model, run_dir, LoRA, optimizer, checkpoints, resume, output): train/run_config.py
    data: str | None = option(None, "folder with train.jsonl and valid.jsonl, or a train JSONL file (default: "
                                    "data/default, built by data_recipes.build if missing)")
    recipe: str | None = option(None, "with no --data: a data recipe; trains on data/<recipe name>, built from it "
                                      "if missing")
    heldout: str | None = option(None, "JSONL of tool-calling records for the validity check (default: the "
                                       "validation file)")
    # the quality recipe (shared fields, new defaults): full fine-tuning, 150 steps of lr 5e-5 after 5 of warmup.
    # Over 150 steps full fine-tuning matched LoRA r16 at 3e-4 on BFCL's calling suites, declined 62.5% of
    # irrelevance items against 0%, and kept prose perplexity at 101 against 183 (train/results/quality-cpu-full/).
    # lr 5e-5 beat 1e-4 on the same data (simple_python +4.5, irrelevance +4.6, live_simple +4.7, paired CIs above
    # zero; prose perplexity 79 with no blend against 97 blended; train/results/quality-cpu-lr5e-5/); 3e-4 lost
    # everywhere (train/results/lr-gpu/)
    fine_tune: str = "full"
    steps: int = 150
    learning_rate: float = 5e-5
    warmup_steps: int = 5
    save_every: int = 25
    # DFT from the base model raised cross-entropy 1.08 -> 1.89 in 12 steps (train/README.md)
    loss: str = option("sft", "sft (cross-entropy) or dft (each token's loss weighted by its detached probability)")
    # batches
    # 2 x 2 accumulated: an effective batch of 4 at about half the peak memory of 4 x 1 (LoRA: 10.9 GB measured at
    # 4 x 1024 on the 135M model; full fine-tuning: 7.2 GB peak at 2 x 1024 in the quality run)
    batch_size: int = option(2, "rows per micro-step, split across data-parallel ranks")
    grad_accum: int = option(2, "micro-steps whose gradients add up to one optimizer step")
    max_length: int = option(1024, "tokens per row")
    pack: bool = option(True, "several records per row, each attending only to itself (no padding); --no-pack pads")
    on_too_long: str = option("skip", "records longer than --max-length: skip (counted), truncate or error")
    # padded batches of records that open with the same first turn (a specialist's tool list: every row carries the
    # same ~1,000 tokens of tools) run that turn once per batch, each row attending to one copy; needs --no-pack
    share_prefix: bool = option(False, "run a first turn that a padded batch's records share once per batch (a "
                                       "specialist's tool list); needs --no-pack")
    # with share_prefix: the gradient also flows through the shared turn's pass (exact); False runs that pass forward
    # only, its keys and values held constant (an approximation: 1.5x faster steps and 4 GB less under an 8-tool list)
    prefix_grad: bool = option(True, "with --share-prefix: the gradient flows through the shared turn too (exact); "
                                     "off: forward only, faster, an approximation")
    on_bad_record: str = option("error", "malformed records: error (names file:line) or skip (counted)")
    # loss weight of the first token of every assistant reply, where the model decides between a <tool_call> and
    # plain text; 1 is plain SFT. Validation cross-entropy is always unweighted, so keep_best, which picks by it,
    # may prefer an earlier step than the weighting aims for: judge such runs by eval.decision and eval.toolcall.
    decision_weight: float = option(3.0, "loss weight of each reply's first token (a <tool_call> or text); "
                                         "1: plain SFT")
    # loss weight of the token after each </tool_call> of a reply: another call, or the reply's end (how many calls
    # to make; 1 is plain SFT). Off: from the base, 3 doubled the extra calls on BFCL parallel (train/README.md).
    count_weight: float = option(1.0, "loss weight of the token after each </tool_call> (another call or the "
                                      "reply's end); 1: plain SFT")
    # loss weight of the token after each top-level argument of a call (its ',' or closing '}'): another argument,
    # or the call's end (which optional arguments the request states; 1 is plain SFT). Off: at 3 it gave more of the
    # stated arguments and invented others, losing on five of six BFCL suites (results/quality-cpu-argend3-seed3/).
    arg_end_weight: float = option(1.0, "loss weight of the token after each top-level argument of a call (',' or "
                                        "'}'); 1: plain SFT")
    # token-level unlikelihood (train/losses.py with_unlikelihood): this many times -log(1 - p) of each token the
    # assistant turn already wrote that is not the target, added at every supervised token. 0: plain SFT/DFT. Aimed
    # at replies that repeat their last call or loop inside a value, which grew with training in every arm that
    # read more assistant tokens (train/README.md). 1 by default: with the compact format below it beat plain SFT in
    # the standard format on BFCL at two seeds (train/results/quality-cpu-settings-seed3/); 0 turns it off
    unlikelihood: float = option(1.0, "weight of the unlikelihood term that pushes down tokens the reply already "
                                      "wrote (against repeats); 0: off")
    # the term also at the tokens that end a call's argument (its ',' or closing '}'), where the turn's earlier ','
    # or '}' is the other choice rather than a repeat, so the term pushes toward closing the call early (stated
    # optional arguments given on simple_python: 31.7-34.7% by today's recipe, 43-54% by the recipe before it, which
    # had no term); False spares those tokens (no run yet)
    unlikelihood_arg_ends: bool = option(True, "the unlikelihood term also at the tokens that end a call's "
                                               "argument; off spares them")
    # how the system turn lists the tools (nanoagent/render.py FORMATS: standard | compact), saved with the model so
    # eval, the agent and the GGUF prompt it the same way; None: the base model's own (standard for SmolLM2).
    # compact by default: 17% fewer prompt tokens, so more rows in the same budget, and measured with the term above
    prompt_format: str | None = option("compact", "how the system turn lists the tools: standard or compact, saved "
                                                  "with the model; none: the base model's own")
    # (native_ops, the compiled kernels, is on by default: train/run_config.py); numpy_ops, when on, takes precedence
    numpy_ops: bool = option(False, "CPU: softmax, SwiGLU and logsumexp in numpy: faster, far more memory; "
                                    "overrides --native-ops")
    # before the first step, measure one worst-case row and shrink the micro-batch (raising grad_accum) if
    # batch_size rows would pass memory_budget of the machine's memory (train/memory_fit.py); off: only warn
    memory_fit: bool = option(True, "before the first step, shrink the micro-batch (raising --grad-accum) if it "
                                    "would pass --memory-budget; off: only warn")
    memory_budget: float = option(0.75, "share of the machine's memory the memory fit keeps within, in (0, 1]")
    # evaluation
    val_every: int = option(25, "validation cross-entropy at step 0, every N steps and at the end; 0: none")
    val_batches: int = option(8, "batches per validation; 0: the whole validation set")
    validity_n: int = option(16, "held-out tool-calling prompts scored before and after training; 0: off")
    validity_max_tokens: int = option(96, "new tokens per reply in the validity check")
    # validation records (a seeded sample, both kinds) on which the call threshold is chosen after training and
    # saved with the model (nanoagent/call_threshold.py; serve and the GGUF export use it); 0 disables
    # 400: on quality-cpu-wise 150 prompts (about 30 without a call) put it at 0.230, which declined almost nothing
    # on BFCL; 400 (100 without) put it at 0.539: irrelevance 64.6 -> 77.5 for simple_python -0.3 (about 11 minutes
    # of MLX forward passes on a 2-core CPU; train/results/quality-cpu-wise/README.md)
    threshold_n: int = option(400, "validation prompts (a seeded sample) on which the call threshold is chosen "
                                   "after training, saved with the model; 0: off")
    threshold_min_calls_kept: float = option(MIN_CALLS_KEPT, "the chosen call threshold keeps at least this share of "
                                                             "the sample's calls; 0: no floor")
    # after training, when the held-out prose perplexity is over this many times the base model's, blend the weights
    # back toward the base by the largest alpha that brings it within (train/interpolate.py, WiSE-FT); 0 disables
    prose_bound: float = option(1.5, "blend back toward the base when held-out prose perplexity ends above this "
                                     "many times the base's; 0: off")


GROUPS = run_config.groups(
    data=("data", "recipe", "heldout", "prompt_format", "batch_size", "grad_accum", "max_length", "pack",
          "on_too_long", "share_prefix", "prefix_grad", "on_bad_record"),
    model=("numpy_ops", "memory_fit", "memory_budget"),
    optimisation=("loss", "decision_weight", "count_weight", "arg_end_weight", "unlikelihood",
                  "unlikelihood_arg_ends"),
    eval=("val_every", "val_batches", "validity_n", "validity_max_tokens", "threshold_n", "threshold_min_calls_kept",
          "prose_bound"))


def _check(cfg: DFTConfig) -> DFTConfig:
    check_training(cfg)
    if not isinstance(cfg.model, str) or not cfg.model.strip():
        raise ConfigError(f"config key 'model' is {cfg.model!r}: give `embedded`, a model or run folder, a .gguf "
                          "or a Hub id")
    if not 0.0 <= cfg.threshold_min_calls_kept <= 1.0:
        raise ConfigError(f"config key 'threshold_min_calls_kept' is {cfg.threshold_min_calls_kept!r}: give a share "
                          "between 0 and 1 (0.9 keeps nine calls in ten; 0 lets balanced accuracy alone decide)")
    if cfg.prose_bound and cfg.prose_bound < 1.0:
        raise ConfigError(f"config key 'prose_bound' is {cfg.prose_bound!r}: give a ratio of at least 1 (1.5 keeps "
                          "prose perplexity within 1.5x the base model's) or 0 to keep the tuned weights as they are")
    for key, allowed in CHOICES.items():
        if getattr(cfg, key) not in allowed:
            raise ConfigError(f"config key {key!r}: {getattr(cfg, key)!r} is not one of {', '.join(allowed)}")
    for key in ("batch_size", "grad_accum", "max_length"):
        if getattr(cfg, key) <= 0:
            raise ConfigError(f"config key {key!r} must be positive, got {getattr(cfg, key)}")
    if not 0 < cfg.memory_budget <= 1:
        raise ConfigError(f"config key 'memory_budget' is a share of the machine's memory in (0, 1], got "
                          f"{cfg.memory_budget}")
    for key in ("decision_weight", "count_weight", "arg_end_weight"):
        if getattr(cfg, key) <= 0:
            raise ConfigError(f"config key {key!r} must be positive, got {getattr(cfg, key)}")
    if cfg.unlikelihood < 0:
        raise ConfigError(f"config key 'unlikelihood' is {cfg.unlikelihood!r}: give a weight of 0 (off) or more "
                          "(0.5-1 in the unlikelihood paper's token-level runs)")
    if cfg.share_prefix and cfg.pack:
        raise ConfigError("config key 'share_prefix' runs a shared first turn once per padded batch; packed rows "
                          "cannot share it: add --no-pack (or drop --share-prefix)")
    if cfg.share_prefix and cfg.grad_checkpoint:
        raise ConfigError("config key 'share_prefix' keeps the shared turn's keys and values across the layers, "
                          "which gradient checkpointing would lose: drop --grad-checkpoint or --share-prefix")
    if cfg.prompt_format is not None and cfg.prompt_format not in FORMATS:
        raise ConfigError(f"config key 'prompt_format' is {cfg.prompt_format!r}: use one of {', '.join(FORMATS)} "
                          "(or leave it out for the base model's own)")
    return cfg


def from_dict(values: dict, base: DFTConfig | None = None, source: str = "config") -> DFTConfig:
    """Apply `values` over `base` (or the defaults); unknown keys and bad values raise ConfigError."""
    return _check(layered.from_dict(DFTConfig, values, base, source))


def build_parser() -> argparse.ArgumentParser:
    return layered.build_parser(DFTConfig, "Fine-tune a chat model with SFT or DFT (LoRA or full) in MLX.",
                               prog="python -m train.dft", choices=CHOICES, skip=("extra",), groups=GROUPS)


def load_config(argv: list[str] | None = None) -> DFTConfig:
    return _check(layered.load(DFTConfig, argv, build_parser()))


# What may change when a run resumes: how long it runs and how it reports, not what it trains.
RESUME_SAFE = {"memory_fit", "memory_budget", "native_ops", "steps", "val_every", "val_batches", "save_every",
               "keep_checkpoints", "validity_n", "threshold_n", "threshold_min_calls_kept", "prose_bound",
               "validity_max_tokens", "progress", "plot", "resume", "force_config", "run_dir", "keep_best", "fuse"}


def asked_settings(saved: dict) -> dict:
    """A saved run config's batch settings as they were asked for, when train.dft's memory fit changed them
    (train/memory_fit.py keeps them in extra.memory_fit): the same command then resumes the run."""
    fit = (saved.get("extra") or {}).get("memory_fit") or {}
    names = {"asked_batch_size": "batch_size", "asked_grad_accum": "grad_accum",
             "asked_grad_checkpoint": "grad_checkpoint"}
    return {setting: fit[key] for key, setting in names.items() if key in fit}


# What a run saved before a setting existed did then, where that is not today's default: runs older than
# decision_weight trained every token with weight 1; runs older than count_weight weighted no count token; runs older
# than prose_bound kept their tuned weights unblended; runs older than prompt_format used the standard format; runs
# older than unlikelihood trained without it; runs older than arg_end_weight weighted no argument's end.
LEGACY = {"decision_weight": 1.0, "count_weight": 1.0, "prose_bound": 0.0, "prompt_format": "standard",
          "unlikelihood": 0.0, "arg_end_weight": 1.0}


def resume_settings(cfg: DFTConfig, argv: list[str] | None) -> DFTConfig:
    """The run folder's own settings when `cfg` resumes a run (train/run_config.py), else `cfg`."""
    return run_config.resume_settings(cfg, argv, build_parser(), RESUME_SAFE, from_dict, LEGACY,
                                      aliases_of=asked_settings)
