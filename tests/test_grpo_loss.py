"""The GRPO objective against a NumPy reference on a tiny llama: value, gradient, normalisation, zero groups.

Run: .venv/bin/python -m pytest -q tests/test_grpo_loss.py
"""

import nanoagent  # noqa: F401

import mlx.core as mx
import mlx.nn as nn
import numpy as np
import pytest
from mlx.utils import tree_flatten, tree_map

from nanoagent.agent.trajectory import Step, Trajectory
from nanoagent.testing import tiny_llama
from train.grpo_loss import (Sample, group_advantages, grpo_loss, make_batches, token_logprobs, token_loss,
                             trajectory_samples)
from train.losses import cross_entropy

V = 64


def log_softmax(x):
    x = x.astype(np.float64)
    m = x.max(-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(-1, keepdims=True))


def make_samples(rng, advantages, lengths=(9, 12, 7, 10)):
    samples = []
    for i, (a, n) in enumerate(zip(advantages, lengths)):
        ids = rng.integers(0, V, n).tolist()
        mask = [0] * 3 + [1] * (n - 3)
        samples.append(Sample(ids, mask, [0.0] * n, a, rollout=i))
    return samples


def numpy_reference(model, samples, clip_eps, norm, budget=1):
    """Per-sequence loop in float64 using the model's plain full-vocabulary forward pass."""
    total, grads_z = 0.0, []
    n_roll = len(samples)
    for s in samples:
        logits = np.array(model(mx.array([s.ids[:-1]]))[0].astype(mx.float32))
        lsm = log_softmax(logits)
        idx = [t for t in range(len(s.ids) - 1) if s.mask[t + 1]]
        n_tok = len(idx)
        for t in idx:
            y = s.ids[t + 1]
            lp = lsm[t, y]
            r = np.exp(lp - s.old_logprobs[t + 1])
            a = s.advantage
            w = 1.0 / (n_roll * n_tok) if norm == "sequence" else 1.0 / (n_roll * budget)
            unclipped, clipped = r * a, np.clip(r, 1 - clip_eps, 1 + clip_eps) * a
            total += w * -min(unclipped, clipped)
            g = -a * r if unclipped <= clipped else 0.0  # d loss_t / d logp_t
            onehot = np.zeros(V)
            onehot[y] = 1
            grads_z.append(w * g * (onehot - np.exp(lsm[t])))
    return total, np.stack(grads_z)


@pytest.mark.parametrize("norm", ["sequence", "constant"])
def test_loss_and_logit_gradient_match_numpy(norm):
    rng = np.random.default_rng(0)
    model = tiny_llama(V, seed=1)
    samples = make_samples(rng, [1.2, -0.7, 0.4, -1.1])
    # old log-probs = current ones shifted, so some ratios leave the clip range
    for s in samples:
        lsm = log_softmax(np.array(model(mx.array([s.ids[:-1]]))[0].astype(mx.float32)))
        s.old_logprobs = [0.0] + [float(lsm[t, s.ids[t + 1]] + rng.normal(0, 0.3)) for t in range(len(s.ids) - 1)]
    batches = make_batches(samples, micro_batch=3, norm=norm, token_budget=40)
    ref_value, ref_grad = numpy_reference(model, samples, 0.2, norm, budget=40)
    value = sum(grpo_loss(model, b, clip_eps=0.2).item() for b in batches)
    assert value == pytest.approx(ref_value, rel=1e-4, abs=1e-6)

    got = []
    for b in batches:  # gradient with respect to the logits at the sampled positions
        h_logits = mx.array(np.array(model(mx.array(b.inputs)).astype(mx.float32)).reshape(-1, V)[b.positions])

        def f(z, b=b):
            return token_loss(-cross_entropy(z, mx.array(b.targets)), b, 0.2)
        got.append(np.array(mx.grad(f)(h_logits)))
    np.testing.assert_allclose(np.concatenate(got), ref_grad, rtol=2e-3, atol=1e-6)


def test_parameter_gradient_matches_finite_difference():
    rng = np.random.default_rng(2)
    model = tiny_llama(V, seed=3)
    samples = make_samples(rng, [0.9, -0.9, 0.5, -0.5])
    for s in samples:
        s.old_logprobs = [-4.0] * len(s.ids)  # ratios below 1 - eps for A<0 clip, others active
    (batch,) = make_batches(samples, micro_batch=8)
    loss_and_grad = nn.value_and_grad(model, lambda m, b: grpo_loss(m, b, 0.2))
    _, grads = loss_and_grad(model, batch)
    params = model.trainable_parameters()
    direction = tree_map(lambda p: mx.array(rng.normal(size=p.shape).astype(np.float32)), params)
    analytic = sum(float((g * d).sum()) for (_, g), (_, d) in zip(tree_flatten(grads), tree_flatten(direction)))
    eps = 1e-3

    def at(sign):
        model.update(tree_map(lambda p, d: p + sign * eps * d, params, direction))
        v = grpo_loss(model, batch, 0.2).item()
        model.update(params)
        return v
    numeric = (at(1) - at(-1)) / (2 * eps)
    assert numeric == pytest.approx(analytic, rel=0.05, abs=1e-5)


def test_identical_rewards_give_zero_gradient():
    adv, zero = group_advantages([0.2, 0.2, 0.2, 0.2])
    assert zero and adv == [0.0] * 4
    model = tiny_llama(V, seed=4)
    samples = make_samples(np.random.default_rng(5), adv)
    (batch,) = make_batches(samples, micro_batch=8)
    _, grads = nn.value_and_grad(model, lambda m, b: grpo_loss(m, b, 0.2))(model, batch)
    assert all(float(mx.abs(g).max()) == 0.0 for _, g in tree_flatten(grads))


def test_group_advantages():
    a, zero = group_advantages([0.0, 1.0, 1.0, 0.0])
    assert not zero and a == pytest.approx([-1, 1, 1, -1], abs=1e-3)
    a, _ = group_advantages([0.0, 1.0, 1.0, 0.0], scale_std=False)  # Dr.GRPO
    assert a == pytest.approx([-0.5, 0.5, 0.5, -0.5])


def test_samples_keep_sampled_ids_and_mask_tool_output():
    prompt1, out1 = [1, 2, 3], [4, 5]
    prompt2 = prompt1 + out1 + [6, 7]  # [6, 7]: the tool result, rendered by the harness
    traj = Trajectory(task="t", messages=[], tools=[], steps=[
        Step(0, "a", prompt_ids=prompt1, completion_ids=out1, logprobs=[-0.1, -0.2]),
        Step(1, "b", prompt_ids=prompt2, completion_ids=[8], logprobs=[-0.3], finish_reason="length")])
    (s,) = trajectory_samples(traj, 0.5)
    assert s.ids == [1, 2, 3, 4, 5, 6, 7, 8] and s.mask == [0, 0, 0, 1, 1, 0, 0, 1]
    assert s.old_logprobs == [0, 0, 0, -0.1, -0.2, 0, 0, -0.3] and s.truncated
    traj.steps[1].prompt_ids = [9] + prompt2  # not a continuation: one sample per turn
    assert len(trajectory_samples(traj, 0.5)) == 2
    traj.steps[0].logprobs = None
    with pytest.raises(ValueError, match="log-probs"):
        trajectory_samples(traj, 0.5)


def test_token_logprobs_equal_full_forward():
    model = tiny_llama(V, seed=6)
    samples = make_samples(np.random.default_rng(7), [1.0, -1.0, 0.5, 0.1])
    (batch,) = make_batches(samples, micro_batch=8)
    lp = np.array(token_logprobs(model, batch))
    full = log_softmax(np.array(model(mx.array(batch.inputs)).astype(mx.float32))).reshape(-1, V)
    np.testing.assert_allclose(lp, full[batch.positions, batch.targets], rtol=1e-4, atol=1e-5)


def test_kl_penalty_matches_numpy():
    rng = np.random.default_rng(8)
    model = tiny_llama(V, seed=9)
    samples = make_samples(rng, [0.0, 0.0, 0.0, 0.0])  # no policy-gradient term: only the KL remains
    (batch,) = make_batches(samples, micro_batch=8)
    lp = np.array(token_logprobs(model, batch)).astype(np.float64)
    batch.ref_logprobs = (lp + rng.normal(0, 0.5, lp.shape)).astype(np.float32)
    d = batch.ref_logprobs.astype(np.float64) - lp
    expected = float((0.1 * (np.exp(d) - d - 1) * batch.weights).sum())
    assert grpo_loss(model, batch, 0.2, beta=0.1).item() == pytest.approx(expected, rel=1e-4)
    assert grpo_loss(model, batch, 0.2, beta=0.0).item() == 0.0


def group_samples(rng, prompt_len, reply_lens, first_rollout=0, prompt=None):
    prompt = prompt if prompt is not None else rng.integers(0, V, prompt_len).tolist()
    out = []
    for i, n in enumerate(reply_lens):
        reply = rng.integers(0, V, n).tolist()
        out.append(Sample(prompt + reply, [0] * len(prompt) + [1] * n, [-2.0] * (len(prompt) + n),
                          float(rng.normal()), rollout=first_rollout + i))
    return out


def reference_logprobs(model, samples):
    out = []
    for s in samples:
        lsm = log_softmax(np.array(model(mx.array([s.ids[:-1]]))[0].astype(mx.float32)))
        out += [lsm[t, s.ids[t + 1]] for t in range(len(s.ids) - 1) if s.mask[t + 1]]
    return np.array(out)


def test_a_groups_prompt_runs_once_with_the_same_logprobs_and_gradients():
    rng = np.random.default_rng(10)
    model = tiny_llama(V, seed=11)
    loose = Sample(rng.integers(0, V, 20).tolist(), [0] * 12 + [1] * 8, [-2.0] * 20, 0.3, rollout=7)
    samples = (group_samples(rng, 40, [5, 9, 3, 7, 6]) + [loose]
               + group_samples(rng, 36, [4, 8], first_rollout=5))
    shared = make_batches(samples, micro_batch=4)
    assert [(len(b.inputs), None if b.prefix is None else len(b.prefix)) for b in shared] == \
        [(4, 39), (1, None), (1, None), (2, 35)]  # the prompt but its last id (it predicts the first reply token);
    # the first group's fifth rollout and the loose sample ride alone
    lp = np.concatenate([np.array(token_logprobs(model, b)) for b in shared])
    np.testing.assert_allclose(lp, reference_logprobs(model, samples), rtol=1e-4, atol=1e-5)

    def grads_of(batches):
        f = nn.value_and_grad(model, lambda m, b: grpo_loss(m, b, 0.2))
        total, acc = 0.0, None
        for b in batches:
            v, g = f(model, b)
            total += v.item()
            acc = g if acc is None else tree_map(mx.add, acc, g)
        return total, dict(tree_flatten(acc))
    v_shared, g_shared = grads_of(shared)
    plain = make_batches(samples, micro_batch=4, share_prompts=False)  # the path before: whole rows, in order
    assert [len(b.inputs) for b in plain] == [4, 4] and all(b.prefix is None for b in plain)
    v_plain, g_plain = grads_of(plain)
    assert v_shared == pytest.approx(v_plain, rel=1e-4)
    for name, g in g_plain.items():
        np.testing.assert_allclose(np.array(g_shared[name]), np.array(g), rtol=1e-3, atol=1e-6, err_msg=name)


def test_the_shared_prefix_stops_before_the_first_sampled_token():
    rng = np.random.default_rng(12)
    model = tiny_llama(V, seed=13)
    same = group_samples(rng, 34, [6])[0]
    twins = [Sample(list(same.ids), list(same.mask), list(same.old_logprobs), a, rollout=i)
             for i, a in enumerate([1.0, -1.0])]  # identical replies: they share more than their prompt
    (batch,) = make_batches(twins, micro_batch=4)
    assert len(batch.prefix) == 33  # position 33 predicts the first reply token: it must stay in the rows
    lp = np.array(token_logprobs(model, batch))
    np.testing.assert_allclose(lp, reference_logprobs(model, twins), rtol=1e-4, atol=1e-5)
    short = group_samples(rng, 20, [3, 4])  # a prompt under MIN_PREFIX is not worth its own pass
    assert make_batches(short, micro_batch=4)[0].prefix is None


def test_a_model_without_llama_layers_gets_the_prefix_back_on_every_row():
    class Plain(nn.Module):  # no model.embed_tokens/layers/norm: token_logprobs uses the full logits
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def __call__(self, x):
            return self.inner(x)
    rng = np.random.default_rng(14)
    llama = tiny_llama(V, seed=15)
    samples = group_samples(rng, 40, [5, 2, 7])
    (batch,) = make_batches(samples, micro_batch=4)
    assert batch.prefix is not None
    np.testing.assert_allclose(np.array(token_logprobs(Plain(llama), batch)), reference_logprobs(llama, samples),
                               rtol=1e-4, atol=1e-5)


def test_groups_with_a_common_system_text_still_get_micro_batches_of_their_own():
    rng = np.random.default_rng(16)
    system = rng.integers(0, V, 40).tolist()  # every task's prompt opens the same way, then its own tools
    a = group_samples(rng, 0, [3, 5, 4], prompt=system + rng.integers(0, V, 20).tolist())
    b = group_samples(rng, 0, [6, 2, 5], first_rollout=3, prompt=system + rng.integers(0, V, 25).tolist())
    batches = make_batches(a + b, micro_batch=4)
    assert [(len(x.inputs), len(x.prefix)) for x in batches] == [(3, 59), (3, 64)]


def test_the_prompt_rows_attention_in_query_blocks(monkeypatch):
    import nanoagent.packed_attention as pa

    rng = np.random.default_rng(17)
    model = tiny_llama(V, seed=18)
    samples = group_samples(rng, 45, [30, 12, 21])
    (batch,) = make_batches(samples, micro_batch=4)
    whole = np.array(token_logprobs(model, batch))
    monkeypatch.setattr(pa, "BLOCK", 8)  # the prompt in 6 blocks, the rows in 4
    np.testing.assert_allclose(np.array(token_logprobs(model, batch)), whole, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(whole, reference_logprobs(model, samples), rtol=1e-4, atol=1e-5)
