"""nanoagent.numpy_ops: softmax, SwiGLU, logsumexp and attention in numpy, and with nanoagent.native's compiled
kernels, give MLX's values and gradients, the llama model computes the same logits, gradients and samples with them,
and nothing is swapped where it must not be. The native cases are skipped where the kernels are not built
(`python -m nanoagent.native.build`; scripts/setup.sh builds them on x86-64 Linux).

Run: .venv/bin/python -m pytest tests/test_numpy_ops.py -q
"""

import nanoagent  # noqa: F401  (OpenBLAS before mlx)

import mlx.core as mx
import mlx.nn as nn
import mlx.optimizers as optim
import numpy as np
import pytest
from mlx.utils import tree_flatten
from mlx_lm import load as mlx_load
from mlx_lm.models import llama

from nanoagent import native
from nanoagent import numpy_ops as npo
from nanoagent.agent.backends.mlx_backend import MLXBackend
from nanoagent.testing import save_tiny_model

CHAT = [{"role": "system", "content": "You fix code."}, {"role": "user", "content": "list the files"}]

KERNELS = ["numpy", pytest.param("native", marks=pytest.mark.skipif(
    not native.supported_platform() or native.load() is None, reason="native ops not built here"))]


@pytest.fixture
def tiny(tiny_gqa):
    return tiny_gqa


def rand(*shape, scale=1.0, seed=0):
    return mx.array(np.random.default_rng(seed).normal(size=shape).astype(np.float32) * scale)


def close(a, b, tol=1e-5):
    return float(mx.abs(a - b).max()) <= tol * max(1.0, float(mx.abs(b).max()))


@pytest.mark.parametrize("kernels", KERNELS)
@pytest.mark.parametrize("name", ["softmax", "swiglu", "logsumexp"])
def test_values_and_gradients_equal_mlx(name, kernels):
    ours, theirs, n_in = {
        "softmax": (npo.softmax, lambda x: mx.softmax(x, axis=-1, precise=True), 1),
        "swiglu": (npo.swiglu, lambda g, u: nn.silu(g) * u, 2),
        "logsumexp": (npo.logsumexp, lambda x: mx.logsumexp(x, axis=-1), 1),
    }[name]
    xs = [rand(3, 5, 40, scale=20, seed=i) for i in range(n_in)]
    xs[0] = mx.concatenate([xs[0], mx.full((3, 5, 2), -1000.0), mx.full((3, 5, 2), 1000.0)], axis=-1)
    xs[1:] = [mx.concatenate([x, rand(3, 5, 4, seed=9)], axis=-1) for x in xs[1:]]
    assert npo.active()
    with npo.numpy_ops(kernels):
        out = ours(*xs)
        assert npo._kernels(*xs) == kernels
        cot = [rand(*out.shape, seed=7)]
        with np.errstate(over="raise", invalid="raise", divide="raise"):  # a numpy warning would be an error here
            got = mx.vjp(ours, xs, cot)[1]
        assert ours(*[x.astype(mx.float16) for x in xs]).dtype == mx.float16  # other dtypes stay in MLX
    assert npo._kernels(*xs) is None  # outside the context: MLX's own op
    assert close(out, theirs(*xs))
    want = mx.vjp(theirs, xs, cot)[1]
    assert all(close(a, b, 1e-4) for a, b in zip(got, want))


def sdpa(q, k, v, mask):
    return mx.fast.scaled_dot_product_attention(q, k, v, scale=0.125, mask=mask)


@pytest.mark.parametrize("kernels", KERNELS)
@pytest.mark.parametrize("case", ["none", "causal", "causal_offset", "bool", "additive", "per_head_bool"])
def test_attention_equals_mlx_sdpa_with_gradients(case, kernels):
    b, heads, kv_heads, length, positions, dim = 2, 4, 2, 6, 6, 8
    if case in ("none", "causal_offset"):
        length = 1 if case == "none" else 3
        positions = 9
    q, k, v = rand(b, heads, length, dim, seed=1), rand(b, kv_heads, positions, dim, seed=2), \
        rand(b, kv_heads, positions, dim, seed=3)
    rng = np.random.default_rng(4)
    diagonal = np.eye(length, positions, k=positions - length, dtype=bool)  # every query sees itself
    mask = {"none": lambda: None, "causal": lambda: "causal", "causal_offset": lambda: "causal",
            "bool": lambda: mx.array(np.tril(rng.random((b, 1, length, positions)) < 0.7) | diagonal),
            "additive": lambda: mx.array(rng.normal(size=(1, 1, length, positions)).astype(np.float32)),
            "per_head_bool": lambda: mx.array(np.tril(rng.random((b, heads, length, positions)) < 0.7) | diagonal),
            }[case]()

    def ours(q, k, v):
        with npo.numpy_ops(kernels):
            return npo.attention(q, k, v, None, 0.125, mask)

    def theirs(q, k, v):
        return sdpa(q, k, v, mask)

    assert close(ours(q, k, v), theirs(q, k, v))
    cot = [rand(b, heads, length, dim, seed=5)]
    assert all(close(a, c, 1e-4) for a, c in zip(mx.vjp(ours, [q, k, v], cot)[1], mx.vjp(theirs, [q, k, v], cot)[1]))


def loss(model, ids):
    logits = model(ids[:, :-1]).astype(mx.float32)
    picked = mx.take_along_axis(logits, ids[:, 1:, None], axis=-1)[..., 0]
    return (npo.logsumexp(logits) - picked).mean()


@pytest.mark.parametrize("kernels", KERNELS)
def test_llama_logits_and_gradients_equal_with_numpy_ops(tiny, monkeypatch, kernels):
    model, _ = tiny
    ids = mx.array(np.random.default_rng(0).integers(3, 200, size=(2, 19)))
    saved = (llama.scaled_dot_product_attention, llama.swiglu)
    with npo.numpy_ops(kernels):
        assert (llama.scaled_dot_product_attention, llama.swiglu) == (npo.attention, npo.swiglu)
        logits = np.array(model(ids))
        value, grads = nn.value_and_grad(model, loss)(model, ids)
    assert (llama.scaled_dot_product_attention, llama.swiglu) == saved
    monkeypatch.setenv("NANOAGENT_NUMPY_OPS", "0")
    assert not npo.active()
    with npo.numpy_ops():
        assert (llama.scaled_dot_product_attention, llama.swiglu) == saved
    ref_value, ref_grads = nn.value_and_grad(model, loss)(model, ids)
    assert np.abs(logits - np.array(model(ids))).max() < 1e-4
    assert abs(value.item() - ref_value.item()) < 1e-5
    for (name, a), (_, b) in zip(tree_flatten(grads), tree_flatten(ref_grads)):
        assert close(a, b, 1e-4), name


def test_swaps_are_undone_after_an_error_and_off_the_cpu(monkeypatch):
    saved = (llama.scaled_dot_product_attention, llama.swiglu)
    with pytest.raises(RuntimeError):
        with npo.numpy_ops():
            raise RuntimeError("boom")
    assert (llama.scaled_dot_product_attention, llama.swiglu) == saved
    monkeypatch.setattr(npo.mx, "default_device", lambda: mx.gpu)
    assert not npo.active()
    with npo.numpy_ops():
        assert (llama.scaled_dot_product_attention, llama.swiglu) == saved


@pytest.mark.parametrize("batch", [False, True])
def test_generation_samples_the_same_tokens_with_and_without(tiny, monkeypatch, batch):
    model, tokenizer = tiny

    def generate():
        backend = MLXBackend(model, tokenizer)
        if batch:
            return [c.completion_ids for c in backend.complete_batch([CHAT] * 3, [], max_tokens=12,
                                                                     temperature=1.0, seed=3)]
        return backend.complete(CHAT, [], max_tokens=12, temperature=1.0, seed=3).completion_ids

    with_numpy = generate()
    monkeypatch.setenv("NANOAGENT_NUMPY_OPS", "0")
    assert generate() == with_numpy


@pytest.mark.parametrize("kernels", KERNELS)
def test_trainer_exp_kernels_give_the_same_losses(tmp_path, kernels):
    from train.config import DFTConfig
    from train.data import TokenDataset
    from train.trainer import Callback, train
    from train.tuning import prepare

    seqs = [np.random.default_rng(i).integers(3, 200, 33).astype(np.int32) for i in range(8)]

    class Losses(Callback):
        def __init__(self):
            self.values = []

        def on_step(self, info):
            self.values.append(info["loss"])

    def run(kernels):
        model, _ = mlx_load(str(save_tiny_model(tmp_path / f"m-{kernels}")))
        cfg = DFTConfig(fine_tune="full", batch_size=2, max_length=33, steps=5, val_every=0, save_every=0,
                        resume=False, warmup_steps=0, learning_rate=1e-3, numpy_ops=kernels == "numpy",
                        native_ops=kernels == "native")
        prepare(model, cfg)
        cb = Losses()
        data = TokenDataset([s.copy() for s in seqs], [np.ones(len(s), np.float32) for s in seqs])
        train(model, optim.AdamW(learning_rate=1e-3), data, None, cfg, callback=cb)
        return cb.values

    plain, ours = run("mlx"), run(kernels)
    assert len(plain) == 5 and np.allclose(plain, ours, rtol=1e-4)  # 5 steps from one seed: the same losses
    assert plain[-1] != plain[0]  # it trained
