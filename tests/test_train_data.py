"""Training data and config: bad input decided up front, deterministic length-sorted batches, shards, YAML < CLI.

Run: .venv/bin/python -m pytest tests/test_train_data.py -q
"""

import nanoagent  # noqa: F401  (OpenBLAS before mlx)

import json

import numpy as np
import pytest

from nanoagent.record import Record
from nanoagent.testing import tiny_tokenizer
from train.config import ConfigError, load_config
from train.data import DataError, epoch_plan, iterate_batches, load_dataset, tokenize


@pytest.fixture(scope="module")
def tok():
    return tiny_tokenizer()


def rec(i, words=1):
    return {"messages": [{"role": "user", "content": "q " * words}, {"role": "assistant", "content": f"a{i}"}]}


def write(path, rows):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def test_malformed_record_names_file_and_line(tmp_path, tok):
    p = write(tmp_path / "train.jsonl", [rec(0), rec(1), {"messages": [{"role": "robot", "content": "x"}]}])
    with pytest.raises(DataError, match=r"train.jsonl:3: .*messages\[0\]\.role"):
        load_dataset(p, tok, 256)
    p2 = write(tmp_path / "t2.jsonl", [rec(0), "{not json"])
    with pytest.raises(DataError, match=r"t2.jsonl:2"):
        load_dataset(p2, tok, 256)
    ds = load_dataset(p2, tok, 256, on_bad_record="skip")
    assert len(ds) == 1 and ds.stats["bad_records"] == 1 and ds.stats["records"] == 2


def test_too_long_skip_truncate_error(tmp_path, tok):
    p = write(tmp_path / "train.jsonl", [rec(0), rec(1, words=200), rec(2)])
    ds = load_dataset(p, tok, 120)
    assert len(ds) == 2 and ds.stats["skipped_too_long"] == 1
    ds = load_dataset(p, tok, 120, on_too_long="truncate")
    # the truncated record lost its assistant turn (it came last), so it is then skipped as unsupervised
    assert ds.stats["truncated"] == 1 and ds.stats["skipped_unsupervised"] == 1 and len(ds) == 2
    with pytest.raises(DataError, match="max_length=120"):
        load_dataset(p, tok, 120, on_too_long="error")


def test_empty_dataset_is_an_error(tmp_path, tok):
    with pytest.raises(DataError, match="no records"):
        load_dataset(write(tmp_path / "e.jsonl", []), tok, 256)
    with pytest.raises(DataError, match="no usable records"):
        load_dataset(write(tmp_path / "l.jsonl", [rec(0, words=300)]), tok, 64)
    with pytest.raises(DataError, match="does not exist"):
        load_dataset(tmp_path / "missing.jsonl", tok, 64)


def make_ds(tok, n=23):
    return tokenize([Record.from_dict(rec(i, words=1 + (i * 7) % 13)) for i in range(n)], tok, 512)


def test_batches_are_length_sorted_and_deterministic(tok):
    ds = make_ds(tok)
    plan = epoch_plan(ds, 4, seed=3, epoch=0)
    assert plan == epoch_plan(ds, 4, seed=3, epoch=0)
    assert plan != epoch_plan(ds, 4, seed=3, epoch=1)
    assert len(plan) == 5 and all(len(b) == 4 for b in plan)  # 23 records: 3 set aside this epoch
    used = [set(i for b in epoch_plan(ds, 4, seed=3, epoch=e) for i in b) for e in range(6)]
    assert set.union(*used) == set(range(23)) and len(set.intersection(*used)) < 20  # not always the same 3
    lengths = ds.lengths
    for b in plan:  # each batch holds neighbours in length order
        others = [i for i in used[0] if i not in b]
        assert sum(min(lengths[b]) < lengths[o] < max(lengths[b]) for o in others) <= 2
    padding = sum(max(lengths[b]) * len(b) - lengths[b].sum() for b in plan)
    rng_plan = np.random.default_rng(0).permutation(len(ds))[:20].reshape(5, 4)
    padding_random = sum(max(lengths[b]) * len(b) - lengths[b].sum() for b in rng_plan)
    assert padding < padding_random  # sorting by token length is what keeps padding small


def test_start_offset_resumes_the_same_stream(tok):
    ds = make_ds(tok)
    full = iterate_batches(ds, 4, seed=1)
    seq = [next(full) for _ in range(9)]  # crosses an epoch boundary (5 batches per epoch)
    resumed = iterate_batches(ds, 4, seed=1, start=6)
    for want in seq[6:]:
        got = next(resumed)
        np.testing.assert_array_equal(got.inputs, want.inputs)


def test_shards_split_the_global_batch(tok):
    ds = make_ds(tok)
    whole = next(iterate_batches(ds, 4, seed=0))
    r0 = next(iterate_batches(ds, 4, seed=0, rank=0, world=2))
    r1 = next(iterate_batches(ds, 4, seed=0, rank=1, world=2))
    assert r0.inputs.shape[0] == r1.inputs.shape[0] == 2
    assert r0.n_tokens + r1.n_tokens == whole.n_tokens
    np.testing.assert_array_equal(np.concatenate([r0.inputs, r1.inputs]), whole.inputs[[0, 2, 1, 3]])
    with pytest.raises(ValueError, match="divisible"):
        next(iterate_batches(ds, 3, rank=0, world=2))


def test_packing_fills_rows_without_splitting_records(tok):
    ds = make_ds(tok)
    batches = list(iterate_batches(ds, 2, seed=0, pack=True, max_length=128, loop=False))
    assert sum(b.n_records for b in batches) == len(ds)  # every record, once per epoch
    assert sum(b.n_tokens for b in batches) == int(sum(m[1:].sum() for m in ds.masks))
    for b in batches:
        assert b.inputs.shape == (2, b.inputs.shape[1]) and b.inputs.shape[1] <= 127


def test_config_precedence_and_errors(tmp_path):
    y = tmp_path / "c.yaml"
    y.write_text("steps: 7\nloss: sft\nfuse: false\nlora_keys: [self_attn.q_proj]\n")
    cfg = load_config(["--config", str(y)])
    assert (cfg.steps, cfg.loss, cfg.fuse, cfg.lora_keys) == (7, "sft", False, ["self_attn.q_proj"])
    cfg = load_config(["--config", str(y), "--steps", "9", "--fuse"])
    assert (cfg.steps, cfg.loss, cfg.fuse) == (9, "sft", True)  # flags win; flags not given don't override
    assert load_config([]).steps == 150  # the quality recipe's
    y.write_text("stpes: 7\n")
    with pytest.raises(ConfigError, match="did you mean 'steps'"):
        load_config(["--config", str(y)])
    y.write_text("steps: many\n")
    with pytest.raises(ConfigError, match="'steps'"):
        load_config(["--config", str(y)])
    y.write_text("loss: kl\n")
    with pytest.raises(ConfigError, match="one of dft, sft"):
        load_config(["--config", str(y)])
    with pytest.raises(SystemExit):
        load_config(["--no-such-flag", "1"])
