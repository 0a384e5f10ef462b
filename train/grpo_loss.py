"""The GRPO objective: group-relative advantages, token samples from trajectories, and the clipped loss.

    adv, zero = group_advantages([0.0, 1.0, 1.0, 0.0], scale_std=True)     # GRPO; scale_std=False: Dr.GRPO
    samples = trajectory_samples(traj, advantage)                          # exact sampled ids + their log-probs
    sample = completion_sample(prompt_ids, completion_ids, logprobs, adv)  # one prompt + one reply (tool-call task)
    batches = make_batches(samples, micro_batch=4, norm="sequence")        # a group's shared prompt run once
    loss = grpo_loss(model, batch, clip_eps=0.2, beta=0.0)                 # differentiable, sums over batches

Per sampled token t of a rollout with advantage A: ratio = exp(logp_t - logp_old_t), where logp_old is the log-prob
recorded by the MLX backend when the token was sampled (the policy that generated the rollout, not the reference
and not a re-tokenisation of decoded text); loss_t = -min(ratio A, clip(ratio, 1-eps, 1+eps) A) + beta KL_t, with
KL_t = exp(ref_t - logp_t) - (ref_t - logp_t) - 1 against the reference model (k3 estimator). Only tokens the
policy sampled are in the loss: prompts and tool outputs have mask 0.
Normalisation: "sequence" (GRPO) averages over each rollout's tokens, then over rollouts; "constant" (Dr.GRPO)
sums every token and divides by rollouts x a fixed token budget. The per-token weights already hold these global
constants, so the gradients of micro-batches simply add up to the gradient of the whole batch.

A group's rollouts share their prompt (a tool-call task's tools and request, a coding task's system prompt and
statement), so a micro-batch holds one group's samples and runs that prompt once (`Batch.prefix`, the model's
layers continuing it through a KV cache in train.losses.hidden_states): the update then costs about the prompt
plus the replies instead of group-size prompts. The log-probs are the full rows' to float rounding
(tests/test_grpo_loss.py).

Left out: token-level advantages (process rewards), asymmetric clipping, entropy bonuses.
"""

from __future__ import annotations

from dataclasses import dataclass

import mlx.core as mx
import numpy as np

from train.losses import _inner, cross_entropy, hidden_states, output_logits, prefixed_rows

EQUAL_TOL = 1e-9   # rewards closer than this are equal: the group has no signal


def group_advantages(rewards: list[float], scale_std: bool = True, eps: float = 1e-4) -> tuple[list[float], bool]:
    """Advantages of one group (reward - group mean, / std with GRPO) and whether the group had no signal."""
    r = np.asarray(rewards, dtype=np.float64)
    if r.size == 0 or r.max() - r.min() <= EQUAL_TOL:
        return [0.0] * r.size, True
    a = r - r.mean()
    if scale_std:
        a = a / (r.std() + eps)
    return a.tolist(), False


@dataclass
class Sample:
    ids: list[int]                 # the whole sequence as the model saw and sampled it
    mask: list[int]                # 1 on tokens the policy sampled
    old_logprobs: list[float]      # log-prob at sampling time per position (0 where mask is 0)
    advantage: float
    truncated: bool = False        # a reply was cut at max_tokens
    rollout: int = -1              # index of the rollout it came from


def completion_sample(prompt_ids: list[int], completion_ids: list[int], logprobs: list[float], advantage: float,
                      truncated: bool = False, rollout: int = -1) -> Sample:
    """One prompt and one sampled reply (a tool-call task's rollout): the reply's tokens carry the loss."""
    if len(logprobs) != len(completion_ids):
        raise ValueError(f"{len(completion_ids)} sampled ids but {len(logprobs)} log-probs: GRPO needs one per id")
    return Sample(list(prompt_ids) + list(completion_ids), [0] * len(prompt_ids) + [1] * len(completion_ids),
                  [0.0] * len(prompt_ids) + [float(x) for x in logprobs], advantage, truncated, rollout)


def _pieces(traj) -> list[tuple[list[int], list[int], list[float]]]:
    """(ids, mask, logprobs) of the whole conversation when the turns chain, else one per assistant turn."""
    for step in traj.steps:
        if step.prompt_ids is None or step.completion_ids is None or step.logprobs is None:
            raise ValueError(f"step {step.index} of a rollout has no token ids or log-probs: GRPO needs a backend "
                             "that returns them (the MLX backend)")
    try:
        ids, mask, lps = traj.token_sequence()
        return [(ids, mask, [x if x is not None else 0.0 for x in lps])]
    except ValueError:
        return [(s.prompt_ids + s.completion_ids, [0] * len(s.prompt_ids) + [1] * len(s.completion_ids),
                 [0.0] * len(s.prompt_ids) + list(s.logprobs)) for s in traj.steps]


def trajectory_samples(traj, advantage: float, rollout: int = -1) -> list[Sample]:
    truncated = any(s.finish_reason == "length" for s in traj.steps)
    return [Sample(ids, mask, lps, advantage, truncated, rollout) for ids, mask, lps in _pieces(traj)
            if any(mask)]


@dataclass
class Batch:
    inputs: np.ndarray             # (B, L) ids[:-1] after the shared prefix, padded
    positions: np.ndarray          # (N,) flat indices into (B, L) of sampled target tokens
    targets: np.ndarray            # (N,)
    old_logprobs: np.ndarray       # (N,)
    advantages: np.ndarray         # (N,)
    weights: np.ndarray            # (N,) normalisation per token (global constants included)
    ref_logprobs: np.ndarray | None = None
    n_tokens: int = 0
    prefix: np.ndarray | None = None   # (P,) ids every row starts with (a group's prompt), run once; None: none


MIN_PREFIX = 32  # shorter common prompts are not worth a pass of their own


def _first_target(s: Sample) -> int:
    """The first input position whose next token the policy sampled."""
    return next((t for t in range(len(s.ids) - 1) if s.mask[t + 1]), len(s.ids) - 1)


def shared_prefix(chunk: list[Sample]) -> int:
    """How many leading ids every sample of `chunk` shares, up to the first position that predicts a sampled token
    (the prefix's own outputs are never computed); 0 under MIN_PREFIX or for a single sample."""
    if len(chunk) < 2:
        return 0
    n = min(_first_target(s) for s in chunk)
    first = chunk[0].ids
    for s in chunk[1:]:
        n = next((i for i in range(n) if s.ids[i] != first[i]), n)
    return n if n >= MIN_PREFIX else 0


def _chunks(samples: list[Sample], micro_batch: int) -> list[list[int]]:
    """Sample indices in micro-batches of at most `micro_batch`: runs of consecutive samples that share a prompt
    (a group's rollouts) are cut into micro-batches of their own; the other samples fill micro-batches in order. A
    run ends where the shared part gets shorter (the next group's prompt: the same system text, other tools)."""
    runs: list[tuple[list[int], int]] = []  # (indices, the length its first two samples share)
    for i, s in enumerate(samples):
        if runs:
            run, shared = runs[-1]
            n = shared_prefix([samples[run[0]], s])
            if n and (len(run) == 1 or n >= shared):
                run.append(i)
                runs[-1] = (run, shared if len(run) > 2 else n)
                continue
        runs.append(([i], 0))
    chunks: list[list[int]] = []
    loose: list[int] = []
    for run, _ in runs + [([], 0)]:  # the empty run flushes the last loose samples
        if len(run) == 1:
            loose += run
            continue
        chunks += [loose[k:k + micro_batch] for k in range(0, len(loose), micro_batch)]
        loose = []
        chunks += [run[k:k + micro_batch] for k in range(0, len(run), micro_batch)]
    return chunks


def make_batches(samples: list[Sample], micro_batch: int, norm: str = "sequence",
                 token_budget: int = 1, share_prompts: bool = True) -> list[Batch]:
    """Pad samples into micro-batches, each one group's prompt run once when its samples share one
    (shared_prefix; share_prompts=False: consecutive samples, every row whole, the path before).
    norm "sequence": each rollout weighs 1/n_rollouts spread over its tokens; "constant": every token weighs
    1/(n_rollouts * token_budget). A rollout split into several per-turn samples counts once."""
    key_of = [s.rollout if s.rollout >= 0 else -1 - i for i, s in enumerate(samples)]
    n_roll = max(len(set(key_of)), 1)
    tokens_of: dict[int, int] = {}
    for key, s in zip(key_of, samples):
        tokens_of[key] = tokens_of.get(key, 0) + sum(s.mask[1:])
    batches = []
    chunks = (_chunks(samples, micro_batch) if share_prompts else
              [list(range(k, min(k + micro_batch, len(samples)))) for k in range(0, len(samples), micro_batch)])
    for chunk in chunks:
        group = [samples[i] for i in chunk]
        p = shared_prefix(group) if share_prompts else 0
        L = max(len(s.ids) for s in group) - 1 - p
        inputs = np.zeros((len(group), L), dtype=np.int32)
        pos, tgt, old, adv, w = [], [], [], [], []
        for b, (i, s) in enumerate(zip(chunk, group)):
            n = len(s.ids) - 1
            inputs[b, :n - p] = s.ids[p:-1]
            for t in range(p, n):
                if s.mask[t + 1]:
                    pos.append(b * L + t - p)
                    tgt.append(s.ids[t + 1])
                    old.append(s.old_logprobs[t + 1])
                    adv.append(s.advantage)
                    w.append(1.0 / (n_roll * tokens_of[key_of[i]]) if norm == "sequence"
                             else 1.0 / (n_roll * token_budget))
        batches.append(Batch(inputs, np.asarray(pos, np.int64), np.asarray(tgt, np.int32),
                             np.asarray(old, np.float32), np.asarray(adv, np.float32), np.asarray(w, np.float32),
                             n_tokens=len(pos), prefix=np.asarray(group[0].ids[:p], np.int32) if p else None))
    return batches


def token_logprobs(model, batch: Batch) -> mx.array:
    """log p(target) of every sampled token under `model`, (N,), in float32."""
    inputs, flat = batch.inputs, batch.positions
    if _inner(model) is None:
        if batch.prefix is not None:  # no layers to run the prefix through once: each row gets it back
            inputs, flat = prefixed_rows(inputs, flat, batch.prefix)
        logits = model(mx.array(inputs))
        logits = logits.reshape(-1, logits.shape[-1])[mx.array(flat)]
    else:
        prefix = mx.array(batch.prefix)[None] if batch.prefix is not None else None
        h = hidden_states(model, mx.array(inputs), prefix=prefix)
        logits = output_logits(model, h.reshape(-1, h.shape[-1])[mx.array(flat)])
    return -cross_entropy(logits, mx.array(batch.targets))


def token_loss(logprobs: mx.array, batch: Batch, clip_eps: float, beta: float = 0.0) -> mx.array:
    """The weighted sum of per-token clipped policy-gradient losses (+ beta * KL to the reference)."""
    old = mx.array(batch.old_logprobs)
    adv = mx.array(batch.advantages)
    ratio = mx.exp(logprobs - old)
    pg = -mx.minimum(ratio * adv, mx.clip(ratio, 1.0 - clip_eps, 1.0 + clip_eps) * adv)
    if beta and batch.ref_logprobs is not None:
        d = mx.array(batch.ref_logprobs) - logprobs
        pg = pg + beta * (mx.exp(d) - d - 1.0)
    return (pg * mx.array(batch.weights)).sum()


def grpo_loss(model, batch: Batch, clip_eps: float = 0.2, beta: float = 0.0) -> mx.array:
    return token_loss(token_logprobs(model, batch), batch, clip_eps, beta)


def clip_fraction(logprobs: mx.array, batch: Batch, clip_eps: float) -> float:
    ratio = np.exp(np.asarray(logprobs) - batch.old_logprobs)
    return float(np.mean(np.abs(ratio - 1.0) > clip_eps)) if ratio.size else 0.0
