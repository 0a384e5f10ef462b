"""numpy_activations (nanoagent/agent/backends/numpy_activations.py) on a tiny random llama: the same logits and
the same sampled tokens as MLX's own ops, the model restored after use, and nothing swapped where it must not be.

Run: .venv/bin/python -m pytest tests/test_numpy_activations.py -q
"""

import nanoagent  # noqa: F401  (OpenBLAS before mlx)

import mlx.core as mx
import numpy as np
import pytest
from mlx_lm import load as mlx_load

from nanoagent.agent.backends import numpy_activations as na
from nanoagent.agent.backends.mlx_backend import MLXBackend
from nanoagent.testing import save_tiny_model

CHAT = [{"role": "system", "content": "You fix code."}, {"role": "user", "content": "list the files"}]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return mlx_load(str(save_tiny_model(tmp_path_factory.mktemp("tiny"))))


def test_logits_equal_mlx_ops_and_the_model_is_restored(tiny):
    model, _ = tiny
    ids = mx.array(np.random.default_rng(0).integers(3, 200, size=(2, 17)))
    reference = np.array(model(ids))
    originals = [layer.mlp for layer in model.layers]
    assert na.on_cpu() and na.supports(model)
    with na.numpy_activations(model):
        assert all(isinstance(layer.mlp, na.NumpySwiGLU) for layer in model.layers)
        got = np.array(model(ids))
    assert np.abs(got - reference).max() < 1e-4
    assert [layer.mlp for layer in model.layers] == originals
    with pytest.raises(RuntimeError):
        with na.numpy_activations(model):
            raise RuntimeError("boom")
    assert [layer.mlp for layer in model.layers] == originals


def test_softmax_and_silu_match_mlx_including_extreme_values():
    x = mx.array(np.random.default_rng(1).normal(size=(3, 4, 50)).astype(np.float32) * 30)
    assert np.abs(np.array(na.softmax(x)) - np.array(mx.softmax(x, axis=-1, precise=True))).max() < 1e-6
    big = mx.array([[-1000.0, -90.0, 0.0, 90.0, 1000.0]])
    assert np.abs(np.array(na.softmax(big)) - np.array(mx.softmax(big, axis=-1, precise=True))).max() < 1e-6

    class Linear:  # identity projections: the module's output is silu(x) * x
        def __call__(self, x):
            return x

    class MLP:
        gate_proj = up_proj = down_proj = Linear()

    with np.errstate(over="raise", invalid="raise", divide="raise"):  # a warning would be an error here
        got = np.array(na.NumpySwiGLU(MLP())(big))
    assert np.allclose(got, np.array(mx.sigmoid(big) * big * big), rtol=1e-6, atol=1e-6)
    half = big.astype(mx.float16)  # numpy is only used for float32: other dtypes stay in MLX
    assert np.array(na.softmax(half)).dtype == np.float16


def test_nothing_is_swapped_off_the_cpu_or_for_other_mlps(tiny, monkeypatch):
    model, _ = tiny
    originals = [layer.mlp for layer in model.layers]
    monkeypatch.setattr(na, "on_cpu", lambda: False)
    with na.numpy_activations(model):
        assert [layer.mlp for layer in model.layers] == originals
    monkeypatch.undo()
    assert not na.supports(type("Model", (), {"layers": [type("Layer", (), {"mlp": object()})()]})())


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
    monkeypatch.setattr(na, "on_cpu", lambda: False)
    assert generate() == with_numpy
