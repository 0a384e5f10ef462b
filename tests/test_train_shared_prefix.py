"""train.dft's --share-prefix: records that open with the same system turn (a specialist's tool list) are batched
together and that turn runs once per batch; the loss and its gradient equal those of the same rows padded whole.

Run: .venv/bin/python -m pytest tests/test_train_shared_prefix.py -q
"""

import nanoagent  # noqa: F401  (OpenBLAS before mlx)

import mlx.nn as nn
import numpy as np
import pytest
from mlx.utils import tree_flatten

from nanoagent.record import Record
from train.config import ConfigError, from_dict
from train.data import MIN_PREFIX, epoch_plan, iterate_batches, make_batch, shared_first_turn_plan, tokenize
from train.losses import sft_loss

TOOLS = [{"type": "function", "function": {"name": f"tool_{i}", "description": f"Does thing number {i} well.",
                                          "parameters": {"type": "object", "properties": {
                                              "x": {"type": "integer", "description": "how many"}},
                                              "required": ["x"]}}} for i in range(3)]
OTHER = [{"type": "function", "function": {"name": "other", "description": "Something else entirely.",
                                           "parameters": {"type": "object", "properties": {}}}}]


def record(i: int, tools=TOOLS) -> Record:
    msgs = [{"role": "user", "content": f"request {i} " + "please " * (i % 4)},
            {"role": "assistant", "content": "", "tool_calls": [
                {"type": "function", "function": {"name": tools[0]["function"]["name"], "arguments": {"x": i}}}]}]
    return Record.from_dict({"messages": msgs, "tools": tools})


@pytest.fixture
def data(tiny_gqa):
    _, tok = tiny_gqa
    recs = [record(i) for i in range(10)] + [record(i, OTHER) for i in range(3)]
    return tokenize(recs, tok, max_length=4096)


def test_batches_group_records_by_their_first_turn(data):
    assert data.turn_end is not None
    plan = epoch_plan(data, batch_size=2, seed=0, epoch=0, share_prefix=data.turn_end)
    seen = sorted(i for b in plan for i in b)
    assert len(seen) == len(set(seen)) and len(seen) >= 12  # at most one record of a group left out per epoch
    mixed = [b for b in plan if len({i >= 10 for i in b}) > 1]
    assert not mixed  # a group's tail keeps to itself: long rows that share nothing never meet in a batch
    for drop_last in (True, False):
        plan4 = shared_first_turn_plan(data, 4, np.random.default_rng(1), data.turn_end, drop_last)
        assert not [b for b in plan4 if len({i >= 10 for i in b}) > 1]
        big = sorted(i for b in plan4 for i in b if i < 10)
        assert len(big) == (8 if drop_last else 10)  # the group's tail: left out this epoch, or a shorter batch
    batch = make_batch(data, plan[0], 2, pack=False, max_length=4096, share_prefix=True)
    same_group = len({i >= 10 for i in plan[0]}) == 1
    assert (batch.prefix is not None) == same_group
    if same_group:
        assert len(batch.prefix) >= MIN_PREFIX
        whole = make_batch(data, plan[0], 2, pack=False, max_length=4096)
        assert batch.n_tokens == whole.n_tokens  # every supervised token is still in the rows
        assert batch.inputs.shape[1] == whole.inputs.shape[1] - len(batch.prefix)
    # within a group, batches are cut from records sorted by length: two batches' length ranges never interleave
    ranges = sorted((min(len(data.ids[i]) for i in b), max(len(data.ids[i]) for i in b)) for b in plan
                    if len(b) == 2 and all(i < 10 for i in b))
    assert len(ranges) >= 3 and all(hi <= lo for (_, hi), (lo, _) in zip(ranges, ranges[1:]))


def test_loss_and_gradient_equal_the_whole_rows(tiny_gqa, data):
    model, _ = tiny_gqa
    idx = [0, 3, 5, 7]
    shared = make_batch(data, idx, 4, pack=False, max_length=4096, share_prefix=True)
    whole = make_batch(data, idx, 4, pack=False, max_length=4096)
    assert shared.prefix is not None and whole.prefix is None
    f = nn.value_and_grad(model, lambda m, b: sft_loss(m, b)[0])
    (a, ga), (b, gb) = f(model, shared), f(model, whole)
    assert abs(a.item() - b.item()) < 1e-4
    for (k, x), (_, y) in zip(tree_flatten(ga), tree_flatten(gb)):
        assert np.allclose(np.asarray(x), np.asarray(y), atol=2e-4), k


def test_iterate_batches_shares_when_asked_only(data):
    plain = next(iterate_batches(data, 2, seed=1))
    assert plain.prefix is None
    shared = [next(iterate_batches(data, 2, seed=s, share_prefix=data.turn_end)) for s in range(4)]
    assert any(b.prefix is not None for b in shared)


def test_config_refuses_packing_with_a_shared_prefix():
    with pytest.raises(ConfigError, match="--no-pack"):
        from_dict({"share_prefix": True, "pack": True})
    assert from_dict({"share_prefix": True, "pack": False}).share_prefix


def test_a_detached_prefix_keeps_the_loss_and_drops_its_gradient_path(tiny_gqa, data):
    model, _ = tiny_gqa
    idx = [0, 3, 5, 7]
    exact = make_batch(data, idx, 4, pack=False, max_length=4096, share_prefix=True)
    detached = make_batch(data, idx, 4, pack=False, max_length=4096, share_prefix=True, prefix_grad=False)
    f = nn.value_and_grad(model, lambda m, b: sft_loss(m, b)[0])
    (a, ga), (b, gb) = f(model, exact), f(model, detached)
    assert abs(a.item() - b.item()) < 1e-5  # the same forward pass
    diffs = [float(np.abs(np.asarray(x) - np.asarray(y)).max()) for (_, x), (_, y) in zip(tree_flatten(ga),
                                                                                          tree_flatten(gb))]
    assert max(diffs) > 1e-4  # the prefix's own path is gone from the gradient
    assert all(np.isfinite(np.asarray(y)).all() for _, y in tree_flatten(gb))
