"""SFT and DFT losses and their gradients against a NumPy reference on a tiny random llama; masking; packing.

Run: .venv/bin/python -m pytest tests/test_train_losses.py -q
"""

import nanoagent  # noqa: F401  (OpenBLAS before mlx)

import mlx.core as mx
import mlx.nn as nn
import numpy as np
import pytest

from nanoagent.packed_attention import using_packed_rows
from nanoagent.record import Record
from nanoagent.testing import tiny_llama, tiny_tokenizer, tok_vocab_size
from train.data import Batch, iterate_batches, make_batch, tokenize
from train.losses import (cross_entropy, dft_loss, dft_weights, earlier_tokens, hidden_states, output_logits,
                          sft_loss, weighted_mean, with_unlikelihood)


@pytest.fixture(scope="module")
def tok():
    return tiny_tokenizer()


@pytest.fixture(scope="module")
def model(tok):
    return tiny_llama(tok_vocab_size(tok), seed=1)


def make_ds(tok, n=6):
    recs = [Record.from_dict({"messages": [
        {"role": "user", "content": f"question {i} " * (1 + i % 3)},
        {"role": "assistant", "content": f"answer {i}"},
        {"role": "user", "content": "and then?"},
        {"role": "assistant", "content": "done" * (1 + i % 2)}]}) for i in range(n)]
    return tokenize(recs, tok, max_length=512)


def np_reference(model, batch, dft: bool):
    """Loss and d loss / d logits computed in float64 NumPy from the model's full logits."""
    logits = np.array(model(mx.array(batch.inputs)), dtype=np.float64)
    sel = batch.mask.reshape(-1) > 0
    z = logits.reshape(-1, logits.shape[-1])[sel]
    t = batch.targets.reshape(-1)[sel]
    z = z - z.max(-1, keepdims=True)
    p = np.exp(z) / np.exp(z).sum(-1, keepdims=True)
    ce = -np.log(p[np.arange(len(t)), t])
    w = np.exp(-ce) if dft else np.ones_like(ce)
    n = len(t)
    onehot = np.zeros_like(p)
    onehot[np.arange(len(t)), t] = 1
    dz = w[:, None] * (p - onehot) / n  # the weight is a constant: no d w / d z term
    return (w * ce).sum() / n, dz, z


@pytest.mark.parametrize("name", ["sft", "dft"])
def test_loss_value_matches_numpy(tok, model, name):
    batch = next(iterate_batches(make_ds(tok), 3, seed=0))
    loss_fn = {"sft": sft_loss, "dft": dft_loss}[name]
    value, n = loss_fn(model, batch)
    ref, _, _ = np_reference(model, batch, dft=name == "dft")
    assert int(n) == batch.n_tokens > 0
    np.testing.assert_allclose(float(value), ref, rtol=1e-4)


@pytest.mark.parametrize("dft", [False, True])
def test_gradient_wrt_logits_matches_numpy(tok, model, dft):
    batch = next(iterate_batches(make_ds(tok), 3, seed=0))
    _, dz_ref, z = np_reference(model, batch, dft)
    sel = batch.mask.reshape(-1) > 0
    targets = mx.array(batch.targets.reshape(-1)[sel])
    n = mx.array(float(sel.sum()))

    def f(logits):
        ce = cross_entropy(logits, targets)
        w = dft_weights(ce) if dft else mx.ones_like(ce)
        return weighted_mean(ce, w, n)

    dz = mx.grad(f)(mx.array(z.astype(np.float32)))
    np.testing.assert_allclose(np.array(dz), dz_ref, atol=2e-6, rtol=1e-3)


def test_dft_parameter_gradient_holds_probability_constant(tok, model):
    """The DFT gradient equals the gradient of a CE weighted by fixed NumPy probabilities, and differs from the
    gradient one gets when the probability is not held constant (p * CE differentiated through p)."""
    batch = next(iterate_batches(make_ds(tok), 3, seed=0))
    _, dz_ref, _ = np_reference(model, batch, dft=True)
    (_, _), g = nn.value_and_grad(model, dft_loss)(model, batch)
    # chain rule by hand for the final norm weight: d loss / d h = dz @ E, h = norm(x) * w
    inner = model.model
    x = inner.embed_tokens(mx.array(batch.inputs))
    for layer in inner.layers:
        x = layer(x, "causal", None)
    sel = batch.mask.reshape(-1) > 0
    xs = np.array(x, dtype=np.float64).reshape(-1, x.shape[-1])[sel]
    normed = xs / np.sqrt((xs ** 2).mean(-1, keepdims=True) + model.args.rms_norm_eps)
    dh = dz_ref @ np.array(inner.embed_tokens.weight, dtype=np.float64)
    ref_gnorm = (dh * normed).sum(0)
    np.testing.assert_allclose(np.array(g["model"]["norm"]["weight"]), ref_gnorm, rtol=2e-3, atol=1e-6)

    def through_p(m, b):  # the wrong DFT: probability not detached
        flat = np.flatnonzero(b.mask.reshape(-1) > 0)
        h = hidden_states(m, mx.array(b.inputs)).reshape(-1, m.args.hidden_size)[mx.array(flat)]
        ce = cross_entropy(output_logits(m, h), mx.array(b.targets.reshape(-1)[flat]))
        return (mx.exp(-ce) * ce).sum() / len(flat)

    g_wrong = nn.value_and_grad(model, through_p)(model, batch)[1]
    assert not np.allclose(np.array(g_wrong["model"]["norm"]["weight"]), ref_gnorm, rtol=1e-2)


def test_unsupervised_targets_do_not_change_the_loss(tok, model):
    batch = next(iterate_batches(make_ds(tok), 3, seed=0))
    other = Batch(batch.inputs, batch.targets.copy(), batch.mask, None, batch.n_records, batch.lengths)
    other.targets[batch.mask == 0] = 7  # scramble every target the loss mask excludes
    for fn in (sft_loss, dft_loss):
        assert float(fn(model, batch)[0]) == pytest.approx(float(fn(model, other)[0]), rel=1e-6)
    other.targets[batch.mask == 1] = 7  # but supervised targets do count
    assert float(sft_loss(model, batch)[0]) != pytest.approx(float(sft_loss(model, other)[0]), rel=1e-3)


def test_every_assistant_turn_is_supervised(tok):
    """mlx-lm's --mask-prompt supervises only the last assistant turn; ours supervises both turns here."""
    ds = make_ds(tok, 1)
    text_of = lambda m: tok.decode([int(t) for t, k in zip(ds.ids[0], m) if k])  # noqa: E731
    supervised = text_of(ds.masks[0])
    assert "answer 0" in supervised and "done" in supervised
    assert "question" not in supervised and "and then" not in supervised


@pytest.mark.parametrize("loss_fn", [sft_loss, dft_loss])
def test_packed_batch_scores_like_padded(tok, model, loss_fn):
    """Block-diagonal attention: records packed in one row get the same per-token losses as padded alone."""
    ds = make_ds(tok, 4)
    idx = [0, 1, 2, 3]
    padded = make_batch(ds, idx, 4, pack=False, max_length=512)
    packed = make_batch(ds, idx, 1, pack=True, max_length=512)
    assert packed.inputs.shape[0] == 1 and packed.spans is not None
    assert packed.n_tokens == padded.n_tokens
    a, b = loss_fn(model, padded), loss_fn(model, packed)
    np.testing.assert_allclose(float(a[0]), float(b[0]), rtol=1e-4)
    # without the block-diagonal mask (plain causal over the packed row) the loss differs
    leaky = Batch(packed.inputs, packed.targets, packed.mask, None, packed.n_records, packed.lengths)
    assert abs(float(loss_fn(model, leaky)[0]) - float(a[0])) > 1e-4 * abs(float(a[0]))


def test_gradient_checkpointing_gives_the_same_loss_and_gradient(tok):
    """All blocks or every second one recomputed: the same loss and gradients as none. The block class's patch is
    restored after the test (it wraps the class for the whole process, recomputing only marked blocks)."""
    from train.config import DFTConfig
    from train.tuning import prepare

    ds = make_ds(tok, 4)
    batches = [make_batch(ds, [0, 1], 2, pack=False, max_length=512), make_batch(ds, [0, 1, 2], 1, pack=True,
                                                                                  max_length=512)]
    results = []
    for gc, every in ((False, 1), (True, 1), (True, 2)):
        m = tiny_llama(tok_vocab_size(tok), seed=2)
        cls = type(m.layers[0])
        original = cls.__call__
        try:
            prepare(m, DFTConfig(fine_tune="full", grad_checkpoint=gc, checkpoint_every=every))
            assert (cls.__call__ is not original) == gc
            marked = [getattr(b, "checkpointed", False) for b in m.layers]
            assert marked == [gc and i % every == 0 for i in range(len(m.layers))]
            results.append([(float(v), np.array(g["model"]["layers"][1]["mlp"]["up_proj"]["weight"]))
                            for (v, _), g in (using_packed_rows(nn.value_and_grad(m, dft_loss))(m, b) for b in batches)])
        finally:
            cls.__call__ = original
    for other in results[1:]:
        for (v1, g1), (v2, g2) in zip(results[0], other):
            assert v1 == pytest.approx(v2, rel=1e-6)
            np.testing.assert_allclose(g1, g2, rtol=1e-5, atol=1e-8)


def test_checkpoint_every_must_be_positive():
    from nanoagent.config import ConfigError
    from train.run_config import TrainingConfig, check_training

    with pytest.raises(ConfigError, match="checkpoint_every"):
        check_training(TrainingConfig(checkpoint_every=0))


def test_decision_weight_marks_the_first_token_of_each_reply(tok):
    recs = [Record.from_dict({"messages": [
        {"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello there"},
        {"role": "user", "content": "more"}, {"role": "assistant", "content": "fine thanks"}]})]
    plain = tokenize(recs, tok, max_length=512)
    weighted = tokenize(recs, tok, max_length=512, decision_weight=4.0)
    m0, m1 = plain.masks[0], weighted.masks[0]
    assert set(np.unique(m0)) == {0.0, 1.0}
    starts = np.flatnonzero(np.diff(np.concatenate([[0.0], m0])) > 0)
    assert len(starts) == 2  # two assistant replies
    np.testing.assert_array_equal(np.flatnonzero(m1 == 4.0), starts)
    np.testing.assert_array_equal(m1 > 0, m0 > 0)  # same supervised tokens, only reweighted
    assert weighted.stats["supervised_tokens"] == plain.stats["supervised_tokens"]


@pytest.mark.parametrize("name", ["sft", "dft"])
def test_decision_weight_is_a_weighted_mean(tok, model, name):
    ds = make_ds(tok)
    plain_batch = next(iterate_batches(ds, 3, seed=0))
    batch = Batch(plain_batch.inputs, plain_batch.targets, plain_batch.mask.copy(), plain_batch.spans,
                  plain_batch.n_records, plain_batch.lengths)
    flat = batch.mask.reshape(-1)
    first = np.flatnonzero(flat > 0)[0]
    flat[first] = 5.0  # one decision token counts five times
    batch.mask = flat.reshape(batch.mask.shape)
    loss_fn = {"sft": sft_loss, "dft": dft_loss}[name]
    value, n = loss_fn(model, batch)
    _, _, z = np_reference(model, plain_batch, dft=False)
    t = plain_batch.targets.reshape(-1)[plain_batch.mask.reshape(-1) > 0]
    ce = -(z[np.arange(len(t)), t] - np.log(np.exp(z).sum(-1)))
    w = batch.mask.reshape(-1)[batch.mask.reshape(-1) > 0].astype(np.float64)
    per = ce * (np.exp(-ce) if name == "dft" else 1.0)
    np.testing.assert_allclose(float(value), (w * per).sum() / w.sum(), rtol=1e-4)
    # the weight micro-batches and ranks combine by is the summed token weights; the token count stays the batch's
    assert float(n) == pytest.approx(w.sum()) and batch.n_tokens == plain_batch.n_tokens == len(w)
    assert not np.isclose(float(value), float(loss_fn(model, plain_batch)[0]), rtol=1e-4)


def test_count_weight_marks_the_choice_after_each_closing_tag(tok):
    """After each </tool_call> the model chooses another call or the end of the reply: count_weight weights that
    token (the quality-gpu-300-new model answered 50 of BFCL parallel's 200 items with too many calls)."""
    calls = [{"type": "function", "function": {"name": "f", "arguments": {"x": i}}} for i in (1, 2)]
    recs = [Record.from_dict({"messages": [{"role": "user", "content": "one and two"},
                                           {"role": "assistant", "content": "", "tool_calls": calls}],
                              "tools": [{"type": "function", "function": {"name": "f", "parameters": {
                                  "type": "object", "properties": {"x": {"type": "integer"}}}}}]})]
    plain = tokenize(recs, tok, max_length=2048)
    weighted = tokenize(recs, tok, max_length=2048, count_weight=4.0)
    ids, m0, m1 = weighted.ids[0], plain.masks[0], weighted.masks[0]
    marked = np.flatnonzero(m1 == 4.0)
    assert len(marked) == 2 and weighted.stats["count_weighted_tokens"] == 2  # one choice after each of two calls
    texts = [tok.decode(ids[:p]) for p in marked]
    assert all(t.rstrip().endswith("</tool_call>") for t in texts), texts
    assert tok.decode(ids[marked[0]:]).lstrip().startswith("<tool_call>")  # the first choice: another call
    np.testing.assert_array_equal(m1 > 0, m0 > 0)  # the same supervised tokens, only reweighted
    assert "count_weighted_tokens" not in plain.stats


def test_arg_end_weight_marks_the_choice_after_each_top_level_argument(tok):
    """After each argument of a call the model chooses another argument or the call's end: arg_end_weight weights
    the token holding that ',' or '}', and not the commas inside a string, a list or a nested object, nor any token
    of a text reply."""
    args = {"city": "Paris, France", "days": [1, 2], "opts": {"a": 1, "b": 2}, "n": 3}
    recs = [Record.from_dict({"messages": [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {"name": "f",
                                                                                           "arguments": args}}]},
        {"role": "tool", "content": "{\"ok\": true}"},
        {"role": "assistant", "content": "Done, {with} braces, and commas."}],
        "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {
            k: {"type": "string"} for k in args}}}}]})]
    plain = tokenize(recs, tok, max_length=2048)
    weighted = tokenize(recs, tok, max_length=2048, arg_end_weight=5.0)
    ids, m0, m1 = weighted.ids[0], plain.masks[0], weighted.masks[0]
    marked = np.flatnonzero(m1 == 5.0)
    assert len(marked) == 4 and weighted.stats["arg_end_weighted_tokens"] == 4  # one after each of four arguments
    pieces = [tok.decode(ids[p:p + 1]) for p in marked]
    assert all("," in x for x in pieces[:3]) and "}" in pieces[3], pieces
    before = [tok.decode(ids[:p + 1]).split("<tool_call>")[-1] for p in marked]  # the call up to each marked token
    for b, key in zip(before[:3], ["days", "opts", "n"]):
        assert b.rstrip().endswith(",") or b.rstrip().endswith(', "'), b[-30:]
        assert f'"{key}"' not in b, key  # marked before the next argument's key
    assert before[0].count("Paris, France") == 1  # the string's own comma is not a choice
    np.testing.assert_array_equal(m1 > 0, m0 > 0)  # the same supervised tokens, only reweighted
    assert "arg_end_weighted_tokens" not in plain.stats


# ------------------------------------------------------------------------------------------------ unlikelihood

def test_earlier_tokens_are_the_turns_own_before_each_token_less_the_target():
    """Candidates: the distinct targets earlier in the same run of supervised tokens, never the target itself; a run
    ends at an unsupervised token (another turn, another record of a packed row) and at a row's end."""
    targets = np.array([[5, 6, 5, 7, 9, 6, 6, 8],
                        [6, 6, 5, 0, 0, 0, 0, 0]], dtype=np.int32)
    mask = np.array([[1, 1, 1, 1, 0, 1, 1, 3],  # a decision weight of 3 is supervised too
                     [1, 1, 1, 0, 0, 0, 0, 0]], dtype=np.float32)
    batch = Batch(targets.copy(), targets, mask)
    ids, valid = earlier_tokens(batch)
    rows = [sorted(int(i) for i, v in zip(r, m) if v) for r, m in zip(ids, valid)]
    assert rows == [[], [5], [6], [5, 6],   # row 0, first turn: 5 6 5 7
                    [], [], [6],            # second turn: 6 6 8 (the repeated 6 is its own target)
                    [], [], [6]]            # row 1: 6 6 5
    assert ids.shape == (10, 2) and valid.sum() == 6


def test_unlikelihood_matches_numpy_and_only_adds(tok, model):
    batch = next(iterate_batches(make_ds(tok), 3, seed=0))
    _, _, z = np_reference(model, batch, dft=False)
    ids, valid = earlier_tokens(batch)
    assert valid.sum() > 0  # the fixture's turns repeat tokens ("donedone", "answer 1")
    p = np.exp(z) / np.exp(z).sum(-1, keepdims=True)
    ul = -(np.log1p(-np.take_along_axis(p, ids, -1)) * valid).sum(-1)
    ce = -np.log(p[np.arange(len(z)), batch.targets.reshape(-1)[batch.mask.reshape(-1) > 0]])
    for alpha in (0.5, 2.0):
        value, n = with_unlikelihood(sft_loss, alpha)(model, batch)
        np.testing.assert_allclose(float(value), (ce + alpha * ul).mean(), rtol=1e-4)
        assert float(n) == batch.n_tokens
    dft_value, _ = with_unlikelihood(dft_loss, 1.0)(model, batch)
    np.testing.assert_allclose(float(dft_value), (np.exp(-ce) * ce + ul).mean(), rtol=1e-4)
    assert with_unlikelihood(sft_loss, 0.0) is sft_loss


def test_unlikelihood_can_spare_the_tokens_that_end_an_argument(tok, model):
    """With the tokenizer's pieces, the term leaves out exactly the targets that end a call's argument: there the
    turn's earlier ',' (a call that went on) is a candidate at the call's closing '}', pushing toward closing early."""
    from train.data import argument_ends, token_pieces

    calls = [{"type": "function", "function": {"name": "f", "arguments": {"a": i, "b": i + 1, "c": "x"}}}
             for i in (1, 2)]
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {
        k: {"type": "integer"} for k in "abc"}}}}]
    recs = [Record.from_dict({"messages": [{"role": "user", "content": "twice"},
                                           {"role": "assistant", "content": "", "tool_calls": calls}],
                              "tools": tools})]
    batch = next(iterate_batches(tokenize(recs, tok, max_length=2048), 1, seed=0, pack=False))
    pieces = token_pieces(tok)
    ends = argument_ends(batch.targets[0], batch.mask[0], pieces)
    assert len(ends) == 6  # three arguments in each of two calls
    flat = np.flatnonzero(batch.mask[0] > 0).tolist()
    at = [flat.index(e) for e in ends]
    ids0, valid0 = earlier_tokens(batch)
    ids1, valid1 = earlier_tokens(batch, pieces)
    assert valid1[at].sum() == 0 and valid0[at].sum() > 0  # spared, and there was something to spare
    rest = [i for i in range(len(flat)) if i not in at]
    np.testing.assert_array_equal((ids0 * valid0)[rest][:, :ids1.shape[1]], (ids1 * valid1)[rest][:, :ids0.shape[1]])
    plain, _ = with_unlikelihood(sft_loss, 1.0)(model, batch)
    spared, _ = with_unlikelihood(sft_loss, 1.0, pieces)(model, batch)
    assert float(sft_loss(model, batch)[0]) < float(spared) < float(plain)


def test_unlikelihood_moves_the_last_choice_toward_the_end_of_the_reply(tok):
    """The point of the term: after a reply's last call, the token that would open another call (it also followed
    the first call's "<tool_call>") is a candidate and the reply's end is not, so training with the term leaves
    the end far likelier against another call there than plain SFT does over the same steps."""
    import mlx.optimizers as optim

    calls = [{"type": "function", "function": {"name": "f", "arguments": {"x": i}}} for i in (1, 2)]
    tools = [{"type": "function", "function": {"name": "f", "parameters": {
        "type": "object", "properties": {"x": {"type": "integer"}}}}}]
    recs = [Record.from_dict({"messages": [{"role": "user", "content": "one and two"},
                                           {"role": "assistant", "content": "", "tool_calls": calls}],
                              "tools": tools})]
    batch = next(iterate_batches(tokenize(recs, tok, max_length=2048), 1, seed=0, pack=False))
    flat = np.flatnonzero(batch.mask.reshape(-1) > 0)
    targets = batch.targets.reshape(-1)[flat]
    ids, valid = earlier_tokens(batch)
    end = int(targets[-1])  # the reply's end, after the second call
    closes = [i for i in range(len(targets)) if tok.decode(targets[:i + 1].tolist()).endswith("</tool_call>")]
    go_on = int(targets[closes[0] + 1])  # what followed the first call: another one
    assert len(closes) == 2 and go_on in ids[-1][valid[-1] > 0] and not (valid * (ids == end)).any()

    def odds_of_ending(alpha):
        m = tiny_llama(tok_vocab_size(tok), seed=0)
        opt = optim.Adam(learning_rate=1e-2)
        step = nn.value_and_grad(m, with_unlikelihood(sft_loss, alpha))
        for _ in range(10):
            opt.update(m, step(m, batch)[1])
            mx.eval(m.parameters())
        h = hidden_states(m, mx.array(batch.inputs)).reshape(-1, m.args.hidden_size)[mx.array(flat[-1:])]
        p = np.array(mx.softmax(output_logits(m, h).astype(mx.float32), axis=-1))[0]
        return p[end] / p[go_on]
    assert odds_of_ending(4.0) > 5 * odds_of_ending(0.0)
