"""The config of the GRPO stage: one dataclass, defaults < YAML (`--config`) < command-line flags.

    cfg = load_grpo_config(["--config", "grpo.yaml", "--steps", "5", "--rewards", "tests=1,valid_calls=0.5"])
    cfg = load_grpo_config(["--task-mix", "toolcall=1,coding=0", "--toolcall-tasks", "data/mine/valid.jsonl"])

Two task families share the run: `toolcall` (single-turn tool-call tasks from our own data, train/grpo_toolcall.py)
and `coding` (the agent in the loop on repo-local coding tasks); `task_mix` weighs them, `toolcall_rewards` and
`rewards` weigh each family's reward parts. Every setting is checked before any model loads: unknown keys (with the
closest valid one), values of the wrong type, a group size below 2, weights that are not numbers, an unknown family
or reward part, all-zero weights, an empty task set. The resolved config is written to the run folder as
`config.yaml`; resuming a run keeps it (RESUME_SAFE lists what a command line may still change). The fields
shared with train.dft are declared once in train/run_config.py. Defaults are sized for a 2-core CPU and the
135M model: 2 groups x 4 rollouts per step, a coding rollout 3 turns of at most 128 tokens, a tool-call reply at
most 256 tokens. The layering is nanoagent/config.py;
this module adds the fields, the weight parser and the checks. Left out: nested or dotted keys (the config is flat
on purpose).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from functools import partial

from nanoagent import config as layered
from nanoagent.config import option
from train import run_config
from train.config import ConfigError
from train.run_config import FINE_TUNES, TrainingConfig, check_training

CHOICES = {"loss": ("grpo", "dr_grpo"), "fine_tune": FINE_TUNES, "rollout_engine": ("auto", "mlx", "llamacpp"),
           "engine_gguf_type": ("f16", "f32", "q8_0"), "engine_lora_sync": ("in_place", "adapter")}
FAMILIES = ("toolcall", "coding")  # task families a step's groups are drawn from (task_mix)


@dataclass
class GRPOConfig(TrainingConfig):
    # the shared fields (model, run_dir, LoRA, optimizer, checkpoints, resume, output): train/run_config.py; GRPO
    # changes only their defaults: the newest SFT model, rank 8, a constant 1e-5, 20 steps, a checkpoint every 5
    model: str | None = option(None, "model to start from: a run or model folder, embedded or a Hub id (default: "
                                     "the newest train.dft run's runs/*/model, else embedded)")
    lora_rank: int = 8
    learning_rate: float = 1e-5
    min_lr_ratio: float = 1.0         # constant learning rate by default
    warmup_steps: int = 0
    save_every: int = 5
    # task families: each of a step's `tasks_per_step` groups is one family's task, the family drawn by these weights
    # (0 leaves a family out, its tasks are not even loaded). Tool-call tasks give a 135M model graded signal where
    # coding tasks almost never pass (their groups are mostly all-zero), so they get most of the groups.
    task_mix: dict = option({"toolcall": 0.7, "coding": 0.3}, "weight of each task family (toolcall, coding) a "
                                                              "group's task is drawn from; 0 leaves it out")
    # the share of tool-call groups whose task expects no call; None: as the pool has them (about 1 in 5 in the
    # default data). Groups of call tasks outnumbering them pushed the first real runs to call on everything
    no_call_share: float | None = option(None, "share of tool-call groups whose task expects no call, in [0, 1] "
                                               "(default: as the task pool has them)")
    tasks: str = option("train", "coding tasks for rollouts: train, held-out, coding, humaneval[:N] or a folder")
    toolcall_tasks: str = option("valid", "tool-call tasks: valid (data/default/valid.jsonl, built if missing) or "
                                          "JSONL files of records, comma-separated")
    eval_tasks: str = option("held-out", "coding tasks for the before/after evaluation (as --tasks takes them)")
    eval_n: int = option(0, "coding tasks from --eval-tasks evaluated greedily before and after; 0: off")
    # validation: val_n tool-call tasks (a seeded sample) taken out of the tool-call pool and answered greedily
    # before the first step, every val_every steps and after the last; with keep_best the final model is the
    # validated policy with the best balanced accuracy (train/grpo_toolcall.validate), the start model included.
    # 0: off. Rewards rise on the tasks a run samples while the model gets worse elsewhere (the first real run did)
    val_n: int = option(0, "tool-call tasks held out of the pool and answered greedily at each validation; 0: off")
    val_every: int = option(10, "validate every N steps (and before the first and after the last)")
    # rollouts
    steps: int = option(20, "rollout batches, each followed by --inner-steps optimizer steps")
    tasks_per_step: int = option(2, "groups per step, one task each")
    group_size: int = option(4, "rollouts per task (G), compared within the group; at least 2")
    max_turns: int = option(3, "model calls per coding rollout")
    max_tokens_per_turn: int = option(128, "new tokens per model call of a coding rollout")
    context_limit: int = option(2048, "a coding rollout stops when prompt + reply reach this many tokens")
    temperature: float = option(1.0, "sampling temperature of the rollouts")
    top_p: float = option(1.0, "nucleus sampling of the rollouts; 1: off")
    rollout_wall_time: float = option(300.0, "seconds per coding group")
    command_timeout: float = option(10.0, "seconds per shell command in a coding rollout")
    # parallel calls need room: about 50-70 tokens per call
    toolcall_max_tokens: int = option(256, "new tokens per tool-call reply")
    # who generates: mlx (the trained model itself; the path on Metal) or llamacpp (the policy synced into llama.cpp
    # before every step; a group in one multi-sequence batch; MLX recomputes the log-probs on the sampled ids;
    # train/grpo_engine.py). auto: llamacpp where MLX runs on the CPU and llama-cpp-python is installed, else mlx.
    # bench/grpo_rollouts.py measures both.
    rollout_engine: str = option("auto", "who generates rollouts: mlx, llamacpp (the policy synced into llama.cpp "
                                         "each step) or auto (llamacpp on CPU when installed)")
    engine_gguf_type: str = option("f16", "weight type of the policy synced into llama.cpp")
    engine_lora_sync: str = option("in_place", "how a LoRA policy reaches llama.cpp: in_place (fused weights over "
                                               "the loaded file) or adapter")
    # coding rewards: name -> weight (nanoagent.tasks.rewards.REWARDS); every one is logged
    rewards: dict = option({"tests": 1.0, "valid_calls": 0.2, "call_format": 0.1, "patch_similarity": 0.0},
                           "coding reward parts as name=weight, comma-separated (every part is logged)")
    # tool-call rewards: part -> weight (nanoagent.tasks.toolcall_rewards.PARTS); every part is logged. Values weigh
    # most: they are where the model fails eval (unnormalised numbers, invented optional arguments) and they carry
    # the names with them. Names next, then the structure-level parts; format stays small because it saturates
    # early and would otherwise pay for a well-formed wrong call almost as much as for a right one (ToolRL's
    # finding). `correct` (eval's exact verdict, Tool-N1's binary reward) is 0 by default: the parts already sum to
    # the same ranking with a graded signal, and a 135M model is rarely exactly right early on.
    toolcall_rewards: dict = option({"format": 0.2, "tool_name": 0.3, "arg_names": 0.2, "arg_values": 0.5,
                                     "call_count": 0.2, "correct": 0.0},
                                    "tool-call reward parts as name=weight, comma-separated (every part is logged)")
    # objective
    loss: str = option("grpo", "grpo: advantage (r - mean) / std, token mean per sequence; dr_grpo: r - mean, "
                               "token sum")
    clip_eps: float = option(0.2, "PPO-style clipping of the probability ratio to 1 +- this")
    beta: float = option(0.0, "KL penalty to the starting model; 0: no reference model loaded")
    mask_truncated: bool = option(False, "leave rollouts with a reply cut at its token cap out of the loss")
    inner_steps: int = option(2, "optimizer steps on each rollout batch")
    micro_batch: int = option(4, "sequences per forward/backward pass")
    save_trajectories: bool = option(True, "save every rollout's trajectory under the run folder's trajectories/")


GROUPS = run_config.groups(
    data=("task_mix", "no_call_share", "tasks", "toolcall_tasks"),
    model=("rollout_engine", "engine_gguf_type", "engine_lora_sync"),
    optimisation=("loss", "clip_eps", "beta", "mask_truncated", "inner_steps", "micro_batch", "rewards",
                  "toolcall_rewards"),
    rollouts=("tasks_per_step", "group_size", "max_turns", "max_tokens_per_turn", "context_limit", "temperature",
              "top_p", "rollout_wall_time", "command_timeout", "toolcall_max_tokens"),
    eval=("eval_tasks", "eval_n", "val_n", "val_every"),
    output=("save_trajectories",))


# read instead of the plain type coercion (a flag gives name=weight,...)
PARSERS = {key: partial(layered.parse_weights, key=key) for key in ("rewards", "task_mix", "toolcall_rewards")}


def check(cfg: GRPOConfig) -> GRPOConfig:
    from nanoagent.tasks import toolcall_rewards
    from nanoagent.tasks.rewards import check_weights

    check_training(cfg)
    for key, allowed in CHOICES.items():
        if getattr(cfg, key) not in allowed:
            raise ConfigError(f"config key {key!r}: {getattr(cfg, key)!r} is not one of {', '.join(allowed)}")
    for key in ("tasks_per_step", "max_turns", "max_tokens_per_turn", "context_limit", "inner_steps",
                "micro_batch", "toolcall_max_tokens"):
        if getattr(cfg, key) <= 0:
            raise ConfigError(f"config key {key!r} must be positive, got {getattr(cfg, key)}")
    if cfg.group_size < 2:
        raise ConfigError(f"config key 'group_size' is {cfg.group_size}: GRPO compares rollouts within a group, "
                          "so it needs at least 2 (use 4-8)")
    if cfg.clip_eps <= 0 or cfg.beta < 0 or cfg.temperature < 0 or cfg.eval_n < 0 or cfg.val_n < 0:
        raise ConfigError("clip_eps must be positive; beta, temperature, eval_n and val_n at least 0")
    if cfg.no_call_share is not None and not 0 <= cfg.no_call_share <= 1:
        raise ConfigError(f"config key 'no_call_share' must be between 0 and 1 (or left out), got {cfg.no_call_share}")
    if cfg.val_every <= 0:
        raise ConfigError(f"config key 'val_every' must be positive, got {cfg.val_every}")
    checks = {"rewards": check_weights, "toolcall_rewards": toolcall_rewards.check_weights,
              "task_mix": lambda w: check_weights(w, FAMILIES, "task family", negative=False)}
    for key, check_one in checks.items():
        try:
            setattr(cfg, key, check_one(getattr(cfg, key)))
        except ValueError as e:
            raise ConfigError(f"config key {key!r}: {e}") from None
    if cfg.val_n and not cfg.task_mix.get("toolcall"):
        raise ConfigError(f"config key 'val_n' is {cfg.val_n}, but the task mix has no tool-call family to hold "
                          "validation tasks out of: give task_mix toolcall a weight, or val_n 0")
    return cfg


def from_dict(values: dict, base: GRPOConfig | None = None, source: str = "config") -> GRPOConfig:
    return check(layered.from_dict(GRPOConfig, values, base, source, PARSERS))


def build_parser() -> argparse.ArgumentParser:
    return layered.build_parser(GRPOConfig, "GRPO with the agent in the loop (MLX).", prog="python -m train.grpo",
                                choices=CHOICES, skip=("extra",), groups=GROUPS)


def load_grpo_config(argv: list[str] | None = None) -> GRPOConfig:
    return check(layered.load(GRPOConfig, argv, build_parser(), PARSERS))


# What may change when a run resumes: how long it runs and how it reports, not what or how it trains.
RESUME_SAFE = {"native_ops", "steps", "save_every", "keep_checkpoints", "eval_n", "val_every", "keep_best", "progress",
               "plot",
               "save_trajectories", "resume", "force_config", "run_dir", "fuse", "rollout_engine", "engine_gguf_type",
               "engine_lora_sync"}


# What a run saved before a setting existed did: runs older than the task families trained on coding tasks only.
LEGACY = {"task_mix": {"coding": 1.0}}


def resume_settings(cfg: GRPOConfig, argv: list[str] | None) -> GRPOConfig:
    """The run folder's own settings when `cfg` resumes a run (train/run_config.py), else `cfg`."""
    return run_config.resume_settings(cfg, argv, build_parser(), RESUME_SAFE, from_dict, LEGACY)
