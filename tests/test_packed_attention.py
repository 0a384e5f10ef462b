"""Packed-row attention (nanoagent/packed_attention.py) against the dense block-diagonal mask it replaces."""

import nanoagent  # noqa: F401  (OpenBLAS before mlx)

import mlx.core as mx
import mlx.nn as nn
import numpy as np
import pytest
from mlx.utils import tree_flatten

from nanoagent import mlx_patches, numpy_ops, packed_attention
from nanoagent.packed_attention import RecordSpans, packed_rows, using_packed_rows
from nanoagent.record import Record
from nanoagent.testing import tiny_llama, tiny_tokenizer, tok_vocab_size
from train.data import Batch, make_batch, tokenize
from train.losses import sft_loss

SPANS = RecordSpans([[(0, 5), (5, 17), (17, 23), (23, 29)],   # three records and the row's padding
                     [(0, 29)]])                               # one record filling the row


def qkv(seed=0, b=2, heads=4, kv_heads=2, length=29, dim=8):
    mx.random.seed(seed)
    return (mx.random.normal((b, heads, length, dim)), mx.random.normal((b, kv_heads, length, dim)),
            mx.random.normal((b, kv_heads, length, dim)))


def dense_attention(q, k, v, spans, scale):
    mask = mx.array(spans.dense(q.shape[2]))[:, None]
    return mlx_patches.own_attention()(q, k, v, cache=None, scale=scale, mask=mask)


def test_dense_mask_is_block_diagonal_and_causal():
    m = SPANS.dense(29)
    assert m[0, 6, 5] and not m[0, 5, 4] and not m[0, 6, 7] and not m[0, 17, 16]
    assert m[1].sum() == 29 * 30 // 2 and m[0, 28, 23]


@pytest.mark.parametrize("block", [3, 7, 256])
@pytest.mark.parametrize("use_numpy", [False, True])
def test_outputs_and_gradients_match_the_dense_mask(block, use_numpy):
    q, k, v = qkv()
    scale = 8 ** -0.5

    def ours(q, k, v):
        with numpy_ops.numpy_ops() if use_numpy else packed_rows():
            return (packed_attention.attention(q, k, v, None, scale, SPANS, block=block) ** 2).sum()

    def theirs(q, k, v):
        return (dense_attention(q, k, v, SPANS, scale) ** 2).sum()

    a, ga = mx.value_and_grad(ours, argnums=(0, 1, 2))(q, k, v)
    b, gb = mx.value_and_grad(theirs, argnums=(0, 1, 2))(q, k, v)
    np.testing.assert_allclose(float(a), float(b), rtol=1e-5)
    for x, y in zip(ga, gb):
        np.testing.assert_allclose(np.array(x), np.array(y), rtol=1e-4, atol=1e-5)


def test_a_record_never_sees_another():
    q, k, v = qkv()
    out = packed_attention.attention(q, k, v, None, 1.0, SPANS, block=4)
    v2 = mx.concatenate([v[:, :, :5], v[:, :, 5:] * 100.0], axis=2)  # change every value after the first record
    out2 = packed_attention.attention(q, k, v2, None, 1.0, SPANS, block=4)
    np.testing.assert_allclose(np.array(out[0, :, :5]), np.array(out2[0, :, :5]), rtol=1e-6)
    assert not np.allclose(np.array(out[0, :, 5:]), np.array(out2[0, :, 5:]))


def test_bad_spans_and_caches_are_errors():
    q, k, v = qkv()
    with pytest.raises(ValueError, match="2 rows"):
        packed_attention.attention(q[:1], k[:1], v[:1], None, 1.0, SPANS)
    with pytest.raises(ValueError, match="KV cache"):
        packed_attention.attention(q, k, v, object(), 1.0, SPANS)


def test_other_masks_pass_through():
    q, k, v = qkv()
    own = mlx_patches.own_attention()(q, k, v, cache=None, scale=0.5, mask="causal")
    np.testing.assert_allclose(np.array(packed_attention.attention(q, k, v, None, 0.5, "causal")), np.array(own),
                               rtol=1e-5, atol=1e-6)


def records(n=5):
    return [Record.from_dict({"messages": [
        {"role": "user", "content": f"question {i} " * (1 + 2 * i)},
        {"role": "assistant", "content": f"answer {i} " * (1 + i % 3)}]}) for i in range(n)]


@pytest.mark.parametrize("grad_checkpoint,recompute", [(False, True), (True, True), (False, False)])
def test_training_loss_and_gradients_match_the_dense_mask(grad_checkpoint, recompute, monkeypatch):
    """The whole loss of a packed batch, by record spans (small blocks) and by the dense mask, with and without
    gradient checkpointing of whole blocks (whose backward re-runs the layers after the forward returned), with the
    attention weights recomputed in the backward pass (the default) or kept."""
    from train.config import DFTConfig
    from train.tuning import prepare

    tok = tiny_tokenizer()
    ds = tokenize(records(), tok, max_length=256)
    batch = make_batch(ds, list(range(5)), 2, pack=True, max_length=256)
    assert batch.spans is not None and any(len(row) > 2 for row in batch.spans)
    monkeypatch.setattr(packed_attention, "BLOCK", 8)
    monkeypatch.setattr(packed_attention, "RECOMPUTE_WEIGHTS", recompute)
    seen = []  # whether the weights were recomputed, at every record attention computed
    row_attention = packed_attention._row_attention
    monkeypatch.setattr(packed_attention, "_row_attention",
                        lambda *a: seen.append(packed_attention.RECOMPUTE_WEIGHTS) or row_attention(*a))
    model = tiny_llama(tok_vocab_size(tok), seed=3)
    cls, original = type(model.layers[0]), type(model.layers[0]).__call__
    try:
        prepare(model, DFTConfig(fine_tune="full", grad_checkpoint=grad_checkpoint))
        ours = using_packed_rows(nn.value_and_grad(model, sft_loss))(model, batch)
        # a checkpointed block runs its forward again anyway: its weights are kept, not recomputed a third time
        assert seen and set(seen) == {recompute and not grad_checkpoint}
        assert packed_attention.RECOMPUTE_WEIGHTS == recompute
        dense = RecordSpans(batch.spans).dense(batch.inputs.shape[1])

        def dense_loss(m, b):
            inner = m.model
            h = inner.embed_tokens(mx.array(b.inputs))
            for layer in inner.layers:
                h = layer(h, mx.array(dense)[:, None], None)
            flat = np.flatnonzero(b.mask.reshape(-1) > 0)
            logits = inner.embed_tokens.as_linear(inner.norm(h))
            logits = logits.reshape(-1, logits.shape[-1])
            ce = nn.losses.cross_entropy(logits[mx.array(flat)], mx.array(b.targets.reshape(-1)[flat]))
            return ce.mean(), mx.array(len(flat))

        theirs = nn.value_and_grad(model, dense_loss)(model, batch)
    finally:
        cls.__call__ = original
    (va, _), ga = ours
    (vb, _), gb = theirs
    assert float(va) == pytest.approx(float(vb), rel=1e-5)
    for name in ("up_proj", "down_proj"):
        np.testing.assert_allclose(np.array(ga["model"]["layers"][0]["mlp"][name]["weight"]),
                                   np.array(gb["model"]["layers"][0]["mlp"][name]["weight"]), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(np.array(ga["model"]["layers"][1]["self_attn"]["q_proj"]["weight"]),
                               np.array(gb["model"]["layers"][1]["self_attn"]["q_proj"]["weight"]), rtol=1e-4,
                               atol=1e-6)


@pytest.mark.parametrize("fine_tune", ["full", "lora"])
def test_the_swiglu_output_is_computed_again_in_the_backward_pass(fine_tune, monkeypatch):
    """RECOMPUTE_SWIGLU: each MLP's SwiGLU runs once more (in the backward pass), and the loss and every gradient are
    those of keeping it. down_proj's weights reach mx.checkpoint as arguments: the gradients of the full model's
    down_proj weight and of LoRA's down_proj adapters would be zero if they were only closed over."""
    from train.config import DFTConfig
    from train.tuning import prepare

    tok = tiny_tokenizer()
    batch = make_batch(tokenize(records(), tok, max_length=256), list(range(5)), 2, pack=True, max_length=256)
    llama = mlx_patches.llama()
    calls = []
    own = llama.swiglu
    monkeypatch.setattr(llama, "swiglu", lambda g, u: calls.append(1) or own(g, u))
    results = {}
    for recompute in (True, False):
        monkeypatch.setattr(packed_attention, "RECOMPUTE_SWIGLU", recompute)
        model = tiny_llama(tok_vocab_size(tok), seed=3)
        prepare(model, DFTConfig(fine_tune=fine_tune, lora_rank=4))
        calls.clear()
        (loss, _), grads = using_packed_rows(nn.value_and_grad(model, sft_loss))(model, batch)
        mx.eval(loss, grads)
        results[recompute] = float(loss), dict(tree_flatten(grads)), len(calls)
    n_layers = len(model.layers)
    assert results[True][2] == 2 * n_layers and results[False][2] == n_layers
    assert results[True][0] == pytest.approx(results[False][0], rel=1e-6)
    assert results[True][1].keys() == results[False][1].keys()
    down = [k for k in results[True][1] if ".mlp.down_proj." in k]
    assert down and any(np.abs(np.array(results[True][1][k])).max() > 0 for k in down)  # LoRA: lora_b (a from b=0)
    for k, g in results[True][1].items():
        np.testing.assert_allclose(np.array(g), np.array(results[False][1][k]), rtol=1e-5, atol=1e-7, err_msg=k)


def test_a_padding_only_row_is_one_span():
    tok = tiny_tokenizer()
    ds = tokenize(records(2), tok, max_length=256)
    batch = make_batch(ds, [0, 1], 3, pack=True, max_length=256)  # both fit one row: two rows of padding
    width = batch.inputs.shape[1]
    assert batch.spans[1:] == (((0, width),), ((0, width),))
    assert isinstance(batch, Batch) and batch.shard(1, 3).spans == (((0, width),),)


def test_plain_causal_rows_match_mlx_causal_attention():
    q, k, v = qkv()
    scale = 8 ** -0.5
    whole = RecordSpans.whole_rows(2, 29)

    def ours(q, k, v):
        return (packed_attention.attention(q, k, v, None, scale, whole, block=6) ** 2).sum()

    def theirs(q, k, v):
        return (mlx_patches.own_attention()(q, k, v, cache=None, scale=scale, mask="causal") ** 2).sum()

    a, ga = mx.value_and_grad(ours, argnums=(0, 1, 2))(q, k, v)
    b, gb = mx.value_and_grad(theirs, argnums=(0, 1, 2))(q, k, v)
    np.testing.assert_allclose(float(a), float(b), rtol=1e-5)
    for x, y in zip(ga, gb):
        np.testing.assert_allclose(np.array(x), np.array(y), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("spans", [SPANS, RecordSpans.whole_rows(2, 29)])
def test_off_the_cpu_the_spans_become_the_dense_mask_again(spans, monkeypatch):
    """Metal keeps MLX's fused attention over one mask (the blocks are for the CPU): same outputs either way."""
    q, k, v = qkv()
    blocked = packed_attention.attention(q, k, v, None, 0.5, spans, block=5)
    seen = []
    real = numpy_ops.attention
    monkeypatch.setattr(packed_attention, "on_cpu", lambda: False)
    monkeypatch.setattr(numpy_ops, "attention", lambda *a: seen.append(a[-1]) or real(*a))
    dense = packed_attention.attention(q, k, v, None, 0.5, spans, block=5)
    assert len(seen) == 1 and (seen[0] == "causal") == (spans.rows[0] == ((0, 29),))
    np.testing.assert_allclose(np.array(blocked), np.array(dense), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("rows", [[[(0, 5), (6, 29)], [(0, 29)]],      # a gap
                                  [[(0, 5), (5, 28)], [(0, 29)]],      # short of the row's end
                                  [[(0, 29)], [(0, 12), (12, 12), (12, 29)]]])  # an empty span
def test_spans_that_do_not_tile_the_row_are_an_error_naming_it(rows):
    q, k, v = qkv()
    with pytest.raises(ValueError, match="row [01]'s record spans .* do not tile its 29 positions"):
        packed_attention.attention(q, k, v, None, 1.0, RecordSpans(rows))
