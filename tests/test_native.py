"""nanoagent.native: the compiled exp-family kernels match MLX's ops (values, edge cases, layouts), and the loader
falls back to MLX's own ops, with a warning naming the build command, when the build is missing or stale.

The kernel tests are skipped where the kernels are not built (`python -m nanoagent.native.build`; scripts/setup.sh
builds them on x86-64 Linux). Run: .venv/bin/python -m pytest tests/test_native.py -q
"""

import nanoagent  # noqa: F401  (OpenBLAS before mlx)

import json

import mlx.core as mx
import numpy as np
import pytest

from nanoagent import native
from nanoagent.native import build

built = pytest.mark.skipif(not native.usable(), reason="native ops not built here")


def rand(*shape, scale=1.0, seed=0):
    return mx.array(np.random.default_rng(seed).normal(size=shape).astype(np.float32) * scale)


@built
def test_kernels_match_mlx_on_wide_ranges_and_strided_inputs():
    ops = native.load()
    x = mx.concatenate([rand(2, 3, 7, 50, scale=30), mx.full((2, 3, 7, 2), -1e4), mx.full((2, 3, 7, 1), 80.0)], -1)
    u = rand(*x.shape, seed=1)
    for a in (x, x.swapaxes(-1, -2)):  # a transposed view goes through MLX's contiguous copy first
        assert mx.abs(ops.softmax(a) - mx.softmax(a, axis=-1, precise=True)).max().item() < 1e-6
        assert mx.abs(ops.logsumexp(a) - mx.logsumexp(a, axis=-1)).max().item() < 1e-4  # values up to 80
        assert mx.allclose(ops.sigmoid(a), mx.sigmoid(a), atol=1e-6).item()
        b = u if a is x else u.swapaxes(-1, -2)
        assert mx.allclose(ops.swiglu(a, b), a * mx.sigmoid(a) * b, rtol=1e-5, atol=1e-5).item()


@built
def test_causal_softmax_is_mlx_lm_s_causal_mask():
    ops = native.load()
    for length, positions in ((5, 5), (3, 9), (1, 4)):  # the last `length` key positions are the queries'
        s = rand(2, length, positions, scale=5)
        seen = np.arange(positions)[None] <= (positions - length + np.arange(length))[:, None]
        want = mx.softmax(mx.where(mx.array(seen), s, -mx.inf), axis=-1, precise=True)
        assert mx.abs(ops.causal_softmax(s) - want).max().item() < 1e-6


@built
def test_gradient_kernels_are_the_analytic_vjps():
    ops = native.load()
    x, c = rand(3, 4, 30, scale=10), rand(3, 4, 30, seed=1)
    y = mx.softmax(x, axis=-1, precise=True)
    assert mx.allclose(ops.softmax_grad(y, c), mx.vjp(lambda a: mx.softmax(a, axis=-1, precise=True), [x], [c])[1][0],
                       atol=1e-6).item()
    lse, cl = mx.logsumexp(x, axis=-1), rand(3, 4, seed=2)
    want = mx.vjp(lambda a: mx.logsumexp(a, axis=-1), [x], [cl])[1][0]
    assert mx.allclose(ops.logsumexp_grad(x, lse, cl), want, atol=1e-6).item()
    g, u, cg = rand(5, 40, scale=12, seed=3), rand(5, 40, seed=4), rand(5, 40, seed=5)
    got = ops.swiglu_grad(g, u, cg)
    want = mx.vjp(lambda a, b: a * mx.sigmoid(a) * b, [g, u], [cg])[1]
    assert all(mx.allclose(a, b, rtol=1e-5, atol=1e-5).item() for a, b in zip(got, want))
    dead = mx.full((1, 3), -mx.inf)  # a row with nothing in it has no gradient
    assert ops.logsumexp_grad(dead, ops.logsumexp(dead), mx.ones((1,))).tolist() == [[0.0, 0.0, 0.0]]
    with pytest.raises(ValueError, match="one shape"):
        ops.softmax_grad(y, c[..., :5])


@built
def test_infinities_give_zeros_not_nans():
    ops = native.load()
    x = mx.array([[-mx.inf, 0.0, -mx.inf], [-mx.inf, -mx.inf, -mx.inf]])
    assert ops.softmax(x).tolist() == [[0.0, 1.0, 0.0], [0.0, 0.0, 0.0]]
    assert ops.logsumexp(x).tolist()[1] == -np.inf
    assert ops.sigmoid(mx.array([-1e4, 1e4])).tolist() == [0.0, 1.0]


@built
def test_other_dtypes_and_shapes_are_refused_by_name():
    ops = native.load()
    with pytest.raises(ValueError, match="float32"):
        ops.softmax(mx.zeros((2, 3), dtype=mx.float16))
    with pytest.raises(ValueError, match="one shape"):
        ops.swiglu(mx.zeros((2, 3)), mx.zeros((3, 2)))


def test_a_stale_or_missing_build_falls_back_with_the_command(tmp_path, monkeypatch):
    monkeypatch.setattr(native, "supported_platform", lambda: True)
    monkeypatch.setattr(native, "INFO", tmp_path / "build_info.json")
    native.load.cache_clear()
    try:
        with pytest.warns(UserWarning, match="python -m nanoagent.native.build"):
            assert native.load() is None  # not built
        native.load.cache_clear()
        (tmp_path / "build_info.json").write_text(json.dumps({"mlx": "0.0.1"}))
        with pytest.warns(UserWarning, match="built for MLX 0.0.1"):
            assert native.load() is None
        native.load.cache_clear()
        monkeypatch.setenv("NANOAGENT_NATIVE_OPS", "0")
        assert native.load() is None and not native.usable()
    finally:
        native.load.cache_clear()


def test_build_refuses_other_platforms_clearly(monkeypatch, capsys):
    monkeypatch.setattr(native, "supported_platform", lambda: False)
    assert build.main([]) == 2
    assert "x86-64 Linux" in capsys.readouterr().err
