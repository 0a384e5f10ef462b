"""`python -m train.interpolate` on tiny models: the blend is exactly (1 - a) * base + a * tuned, `--alpha auto`
takes the largest alpha within the prose bound, the output folder loads and carries no stale call threshold, and bad
input is a clear error.

Run: .venv/bin/python -m pytest tests/test_train_interpolate.py -q
"""

import nanoagent  # noqa: F401  (OpenBLAS before mlx)

import json

import mlx.core as mx
import numpy as np
import pytest
from mlx.utils import tree_flatten

from nanoagent.testing import save_tiny_model
from train import interpolate


def weights(folder):
    from nanoagent import models

    model, _ = models.load(folder)
    return {k: np.array(v) for k, v in tree_flatten(model.parameters())}


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    root = tmp_path_factory.mktemp("interp")
    base = save_tiny_model(root / "base", seed=0)
    tuned = save_tiny_model(root / "tuned", seed=1)
    (tuned / "call_threshold.json").write_text(json.dumps({"call_threshold": 0.5}))
    return base, tuned


def test_blend_is_the_weighted_mean():
    base = {"w": mx.array([0.0, 2.0]), "b": mx.array([[1.0]])}
    tuned = {"w": mx.array([4.0, 6.0]), "b": mx.array([[3.0]])}
    out = interpolate.blend(base, tuned, 0.25)
    assert np.allclose(np.array(out["w"]), [1.0, 3.0]) and np.allclose(np.array(out["b"]), [[1.5]])
    assert np.allclose(np.array(interpolate.blend(base, tuned, 0.0)["w"]), [0.0, 2.0])
    assert np.allclose(np.array(interpolate.blend(base, tuned, 1.0)["w"]), [4.0, 6.0])


def test_blend_names_the_mismatch():
    base = {"w": mx.zeros((2,)), "extra": mx.zeros((1,))}
    with pytest.raises(ValueError, match="extra is only in the base model"):
        interpolate.blend(base, {"w": mx.zeros((2,))}, 0.5)
    with pytest.raises(ValueError, match=r"w is \(3,\) in the tuned model and \(2,\)"):
        interpolate.blend({"w": mx.zeros((2,))}, {"w": mx.zeros((3,))}, 0.5)
    with pytest.raises(ValueError, match="alpha must be in"):
        interpolate.blend(base, base, 1.5)


def test_largest_in_bound():
    ppl = {0.5: 70.0, 0.8: 95.0, 0.9: 104.0, 1.0: 121.0}
    assert interpolate.largest_in_bound(ppl, 65.0, 1.5) == 0.8
    assert interpolate.largest_in_bound(ppl, 65.0, 2.0) == 1.0
    assert interpolate.largest_in_bound(ppl, 40.0, 1.5) is None


def test_writes_the_blend(pair, tmp_path):
    base, tuned = pair
    out = tmp_path / "blend"
    assert interpolate.main(["--base", str(base), "--model", str(tuned), "--alpha", "0.3", "--out", str(out)]) == 0
    wb, wt, wo = weights(base), weights(tuned), weights(out)
    assert wo.keys() == wt.keys()
    for k in wo:
        assert np.allclose(wo[k], 0.7 * wb[k] + 0.3 * wt[k], atol=1e-6), k
    info = json.loads((out / interpolate.FILE).read_text())
    assert info["alpha"] == 0.3 and info["alpha_chosen_by"] == "given" and info["out_prose_ppl"] > 1
    assert not (out / "call_threshold.json").exists()  # chosen for the tuned weights, not the blend
    assert (out / "tokenizer.json").exists()


def test_auto_takes_the_largest_alpha_in_bound(pair, tmp_path):
    base, tuned = pair
    out = tmp_path / "auto"
    result = interpolate.run(interpolate.InterpolateConfig(
        model=str(tuned), base=str(base), sweep=["0", "0.5", "1"], max_prose_ratio=1e9, out=str(out)),
        say=lambda *a, **k: None)
    assert result["alpha"] == 1.0 and set(result["prose_ppl"]) == {0.0, 0.5, 1.0}
    assert result["prose_ppl"][0.0] == pytest.approx(result["base_prose_ppl"], rel=1e-4)
    # a bound nothing meets (alpha 0 is the base itself: ratio 1) is an error that says what to do
    with pytest.raises(interpolate.ConfigError, match="add smaller alphas"):
        interpolate.run(interpolate.InterpolateConfig(model=str(tuned), base=str(base), sweep=["0.5", "1"],
                                                      max_prose_ratio=0.5, out=str(tmp_path / "none")),
                        say=lambda *a, **k: None)
    assert not (tmp_path / "none").exists()


def test_bad_input(pair, tmp_path, capsys):
    base, tuned = pair
    other = save_tiny_model(tmp_path / "wide", hidden_size=32, head_dim=8)
    assert interpolate.main(["--base", str(base), "--model", str(other), "--alpha", "0.5",
                             "--out", str(tmp_path / "x")]) == 2
    assert "parameters differ" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()
    assert interpolate.main(["--model", str(tuned), "--alpha", "2", "--out", str(tmp_path / "y")]) == 2
    assert "alpha" in capsys.readouterr().err
    assert interpolate.main(["--base", str(base), "--model", str(tuned), "--alpha", "0.5", "--out", str(tuned)]) == 2
    assert "own folder" in capsys.readouterr().err
    assert interpolate.main(["--alpha", "0.5"]) == 2
    assert "--model is required" in capsys.readouterr().err
    assert interpolate.main(["--model", str(tmp_path / "missing"), "--alpha", "0.5", "--out", str(tmp_path / "z")]) == 2
    assert "missing" in capsys.readouterr().err and not (tmp_path / "z").exists()


def lora_model(folder, rank=4):
    """The tiny model with LoRA layers whose B is off zero, as after some training."""
    from types import SimpleNamespace

    from nanoagent import models
    from nanoagent.gguf_writer import lora_layers
    from train.tuning import prepare

    model, tok = models.load(folder)
    cfg = SimpleNamespace(fine_tune="lora", lora_rank=rank, lora_scale=20.0, lora_dropout=0.0, lora_layers=-1,
                          lora_keys=None, grad_checkpoint=False)
    mx.random.seed(3)  # the same A and B every call
    prepare(model, cfg)
    for m in lora_layers(model).values():
        m.lora_b = 0.05 * mx.random.normal(m.lora_b.shape)
    return model, tok


def fused(model):
    from train.tuning import fuse_lora

    fuse_lora(model)
    return {k: np.array(v) for k, v in tree_flatten(model.parameters())}


@pytest.mark.parametrize("kind", ["lora", "full"])
def test_fit_prose_bound_keeps_the_largest_alpha_within(pair, kind):
    from nanoagent import models
    from nanoagent.heldout import prose_perplexity

    base, tuned = pair
    if kind == "lora":
        model, tok = lora_model(base)
    else:
        model, tok = models.load(tuned)
    base_model, _ = models.load(base)
    base_ppl = prose_perplexity(base_model, tok)
    tuned_ppl = prose_perplexity(model, tok)
    assert tuned_ppl > base_ppl * 1.01  # the setting the blend is for
    ratio = (tuned_ppl / base_ppl + 1) / 2  # a bound between the base and the tuned model
    info = interpolate.fit_prose_bound(model, tok, base, base_ppl, ratio, alphas=(0.9, 0.6, 0.3, 0.0),
                                       say=lambda *a, **k: None)
    a = info["blend_alpha"]
    assert 0.0 <= a < 1.0 and info["prose_ppl_tuned"] == pytest.approx(tuned_ppl)
    assert info["blend_sweep"][a] <= ratio * base_ppl
    assert all(ppl > ratio * base_ppl for b, ppl in info["blend_sweep"].items() if b > a)
    assert prose_perplexity(model, tok) == pytest.approx(info["blend_sweep"][a], rel=1e-4)  # left at the blend
    # the weights are the blend itself: W + a * (tuned - W)
    if kind == "lora":
        reference, _ = lora_model(base)
        full_tuned = fused(reference)
    else:
        full_tuned = weights(tuned)
    wb = weights(base)
    got = fused(model) if kind == "lora" else {k: np.array(v) for k, v in tree_flatten(model.parameters())}
    for k in wb:
        assert np.allclose(got[k], (1 - a) * wb[k] + a * full_tuned[k], atol=1e-5), k


def test_fit_prose_bound_leaves_a_model_within_bound_alone(pair):
    from nanoagent import models

    base, tuned = pair
    model, tok = models.load(tuned)
    before = weights(tuned)
    info = interpolate.fit_prose_bound(model, tok, base, 1.0, 1e9, say=lambda *a, **k: None)
    assert info["blend_alpha"] == 1.0 and "blend_sweep" not in info
    after = {k: np.array(v) for k, v in tree_flatten(model.parameters())}
    assert all(np.array_equal(before[k], after[k]) for k in before)
    # none within: the tuned weights stay, and the summary says it by having no alpha below 1
    info = interpolate.fit_prose_bound(model, tok, base, 1.0, 1.0, alphas=(0.5,), say=lambda *a, **k: None)
    assert info["blend_alpha"] == 1.0 and set(info["blend_sweep"]) == {0.5}
    after = {k: np.array(v) for k, v in tree_flatten(model.parameters())}
    assert all(np.array_equal(before[k], after[k]) for k in before)
