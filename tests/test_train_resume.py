"""Checkpoints and resume: a run killed mid-way continues exactly like an uninterrupted one; grad accumulation
equals one big batch; a checkpoint from another model is refused.

Run: .venv/bin/python -m pytest tests/test_train_resume.py -q
"""

import nanoagent  # noqa: F401  (OpenBLAS before mlx)

import mlx.core as mx
import numpy as np
import pytest
from mlx.utils import tree_flatten

from nanoagent.record import Record
from nanoagent.testing import tiny_llama, tiny_tokenizer, tok_vocab_size
from train.checkpoint import CheckpointError, checkpoints
from train.config import ConfigError, DFTConfig
from train.data import tokenize
from train.losses import dft_loss
from train.trainer import Callback, build_optimizer, evaluate, train
from train.tuning import prepare


class Killed(Exception):
    pass


class Recorder(Callback):
    def __init__(self, kill_after=None):
        self.losses, self.kill_after = {}, kill_after

    def on_step(self, info):
        self.losses[info["step"]] = info["loss"]
        if self.kill_after and info["step"] == self.kill_after:
            raise Killed  # as if the process died right after this step (before any later checkpoint)


@pytest.fixture(scope="module")
def tok():
    return tiny_tokenizer()


@pytest.fixture(scope="module")
def ds(tok):
    recs = [Record.from_dict({"messages": [{"role": "user", "content": f"q{i} " * (1 + i % 4)},
                                           {"role": "assistant", "content": f"reply {i}"}]}) for i in range(10)]
    return tokenize(recs, tok, 256)


def setup(tok, cfg, seed=0, init_seed=None, **model_kw):
    model = tiny_llama(tok_vocab_size(tok), seed=seed, **model_kw)
    mx.random.seed(cfg.seed if init_seed is None else init_seed)
    prepare(model, cfg)
    return model, build_optimizer(cfg)


def weights(model):
    return {k: np.array(v) for k, v in tree_flatten(model.trainable_parameters())}


@pytest.mark.parametrize("method", [dict(fine_tune="full"), dict(fine_tune="lora", lora_rank=4, lora_dropout=0.1)])
def test_killed_run_resumes_exactly(tmp_path, tok, ds, method):
    cfg = DFTConfig(steps=6, batch_size=2, save_every=2, val_every=0, warmup_steps=2, learning_rate=1e-2,
                    run_dir=str(tmp_path / "a"), **method)
    model, opt = setup(tok, cfg)
    whole = Recorder()
    train(model, opt, ds, None, cfg, loss=dft_loss, callback=whole)
    want = weights(model)

    cfg.run_dir = str(tmp_path / "b")
    model, opt = setup(tok, cfg)
    with pytest.raises(Killed):
        train(model, opt, ds, None, cfg, callback=Recorder(kill_after=5))  # step 5 done, its checkpoint not
    assert [p.name for p in checkpoints(cfg.run_dir)] == ["step_0000002", "step_0000004"]

    model, opt = setup(tok, cfg, init_seed=123)  # a fresh process: other LoRA init, restored from the checkpoint
    resumed = Recorder()
    state = train(model, opt, ds, None, cfg, callback=resumed)
    assert state.resumed_from.endswith("step_0000004") and state.step == 6
    assert sorted(resumed.losses) == [5, 6]
    for step in (5, 6):
        assert resumed.losses[step] == pytest.approx(whole.losses[step], rel=1e-5)
    got = weights(model)
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-5, atol=1e-6, err_msg=k)
    assert int(opt.state["step"]) == 6  # optimizer counter (and so the schedule) came back


def test_grad_accumulation_equals_one_big_batch(tmp_path, tok, ds):
    base = dict(steps=3, save_every=0, val_every=0, warmup_steps=0, learning_rate=1e-2, fine_tune="full",
                pack=False)  # halves of padded rows; packing is covered by test_train_distributed
    big = DFTConfig(batch_size=4, grad_accum=1, **base)
    model_a, opt_a = setup(tok, big)
    train(model_a, opt_a, ds, None, big, callback=Recorder())

    # the same 4 records per step, as 2 micro-batches of 2: feed the big batch's halves
    from train.data import iterate_batches

    def halves(data, batch_size, **kw):
        for b in iterate_batches(data, 4, **kw):
            yield b.shard(0, 2)
            yield b.shard(1, 2)

    small = DFTConfig(batch_size=2, grad_accum=2, **base)
    model_b, opt_b = setup(tok, small)
    train(model_b, opt_b, ds, None, small, iterate_batches=halves, callback=Recorder())
    a, b = weights(model_a), weights(model_b)
    for k in a:
        # Adam turns float noise in near-zero gradients into up to ~lr-sized steps; 1% of one step (lr 1e-2) is
        # far below what a wrong accumulation (a micro-batch dropped or doubled) moves the weights
        np.testing.assert_allclose(a[k], b[k], rtol=1e-4, atol=1e-4, err_msg=k)


def test_checkpoint_from_another_model_is_refused(tmp_path, tok, ds):
    cfg = DFTConfig(steps=1, batch_size=2, save_every=1, val_every=0, fine_tune="full", run_dir=str(tmp_path))
    model, opt = setup(tok, cfg)
    train(model, opt, ds, None, cfg)
    cfg.steps = 2
    other, opt2 = setup(tok, cfg, hidden_size=32, head_dim=8)
    with pytest.raises(CheckpointError, match="hidden_size"):
        train(other, opt2, ds, None, cfg)
    reinit, opt4 = setup(tok, cfg, seed=5)  # same shapes, other base weights
    with pytest.raises(CheckpointError, match="base_weights"):
        train(reinit, opt4, ds, None, cfg)
    lora = DFTConfig(**{**cfg.__dict__, "fine_tune": "lora"})
    model3, opt3 = setup(tok, lora)
    with pytest.raises(CheckpointError, match="fine_tune"):
        train(model3, opt3, ds, None, lora)


@pytest.mark.parametrize("clip", [0.0, 1e-3])
def test_compiled_update_equals_scale_clip_and_adamw_step_by_step(tok, clip):
    """Two optimizer steps through compiled_update match the same operations run one by one (clipping binding)."""
    import mlx.optimizers as optim
    from mlx.utils import tree_map

    from train.trainer import compiled_update

    cfg = DFTConfig(steps=4, warmup_steps=1, learning_rate=1e-2, fine_tune="full")
    a, opt_a = setup(tok, cfg)
    b, opt_b = setup(tok, cfg)
    apply = compiled_update(a, opt_a, clip)
    for step in range(2):
        mx.random.seed(step)
        grads = tree_map(lambda p: mx.random.normal(p.shape), a.trainable_parameters())
        n = mx.array(7.0)
        norm = apply(grads, n)
        scaled = tree_map(lambda g: g / 7.0, grads)
        ref_norm = float("nan")
        if clip:
            scaled, ref_norm = optim.clip_grad_norm(scaled, clip)
            ref_norm = ref_norm.item()
        opt_b.update(b, scaled)
        mx.eval(a.parameters(), b.parameters(), opt_a.state, opt_b.state)
        assert np.isnan(norm.item()) if not clip else norm.item() == pytest.approx(ref_norm, rel=1e-5)
        for k, v in weights(b).items():
            assert np.allclose(weights(a)[k], v, atol=1e-6), (step, k)
    assert int(opt_a.state["step"].item()) == 2


class Evals(Callback):
    def __init__(self):
        self.evals = []

    def on_eval(self, info):
        self.evals.append(info)


def test_best_weights_are_the_lowest_validation_step_not_the_last(tmp_path, tok, ds):
    # A learning rate far too high makes validation worse after the first steps: the best weights are an early
    # step's, saved apart, and load_best brings exactly those back.
    from train.checkpoint import best_state, load_best

    cfg = DFTConfig(steps=6, batch_size=2, save_every=0, val_every=1, warmup_steps=0, learning_rate=3.0,
                    fine_tune="full", run_dir=str(tmp_path / "r"))
    model, opt = setup(tok, cfg)
    seen = Evals()

    class Snap(Evals):
        def on_eval(self, info):
            seen.on_eval(info)
            if info.get("best"):
                self.snapshot = weights(model)

    snap = Snap()
    train(model, opt, ds, ds, cfg, loss=dft_loss, callback=snap)
    best = min(seen.evals, key=lambda e: e["val_ce"])
    assert best["step"] < cfg.steps, "the test needs a run whose last step is not its best"
    assert best_state(cfg.run_dir)["step"] == best["step"]
    last = weights(model)
    load_best(cfg.run_dir, model)
    got = weights(model)
    assert all(np.array_equal(got[k], snap.snapshot[k]) for k in got)
    assert any(not np.array_equal(got[k], last[k]) for k in got)


def test_when_training_only_hurts_the_best_is_the_start(tmp_path, tok, ds):
    """The step-0 validation is a candidate too: a run that only makes validation worse ends with the weights it
    started from (best_step 0), not with its least bad trained step."""
    from train.checkpoint import best_state, load_best

    cfg = DFTConfig(steps=3, batch_size=2, save_every=0, val_every=1, warmup_steps=0, learning_rate=50.0,
                    fine_tune="full", run_dir=str(tmp_path / "r"))
    model, opt = setup(tok, cfg)
    start = weights(model)
    seen = Evals()
    train(model, opt, ds, ds, cfg, loss=dft_loss, callback=seen)
    assert min(seen.evals, key=lambda e: e["val_ce"])["step"] == 0, "the test needs a run that only gets worse"
    assert best_state(cfg.run_dir)["step"] == 0
    load_best(cfg.run_dir, model)
    got = weights(model)
    assert all(np.array_equal(got[k], start[k]) for k in got)


def test_validation_reads_the_same_batches_whatever_the_training_seed(tok, ds):
    """Runs that differ only in --seed are compared, and keep their best step, on the same validation tokens."""
    model = tiny_llama(tok_vocab_size(tok), seed=0)
    out = {seed: evaluate(model, ds, DFTConfig(batch_size=2, val_batches=2, seed=seed, loss="sft"))
           for seed in (0, 1, 2, 3)}
    assert len({(o["val_ce"], o["val_tokens"]) for o in out.values()}) == 1, out


def test_metrics_log_reads_round_and_drops_lost_steps(tmp_path):
    """nanoagent.metrics: one writer and reader for both trainers; a resume drops lines after its checkpoint, a
    broken line is reported by number and never fatal."""
    from nanoagent.metrics import MetricsLog, read_metrics

    log = MetricsLog(tmp_path / "metrics.jsonl")
    for step in (1, 2, 3):
        log.write("train", {"step": step, "loss": 1.0 / step})
    log.write("valid", {"step": 3, "val_ce": 0.5})
    with log.path.open("a") as f:
        f.write('{"kind": "train", "st')  # a line cut short by a kill
    rows, broken = read_metrics(log.path, with_broken=True)
    assert [r["step"] for r in rows] == [1, 2, 3, 3] and broken == [5]
    assert [r["val_ce"] for r in read_metrics(log.path, "valid")] == [0.5]
    log.resume_at(2)
    assert [(r["kind"], r["step"]) for r in read_metrics(log.path)] == [("train", 1), ("train", 2)]
    MetricsLog(tmp_path / "other.jsonl", enabled=False).write("train", {"step": 1})
    assert not (tmp_path / "other.jsonl").exists() and read_metrics(tmp_path / "other.jsonl") == []


def test_both_trainers_report_through_one_reporter(tmp_path, capsys):
    """train.report.RunReporter writes DFT's lines and GRPO's (GRPOReporter: kind `val`, its own bar fields); a run
    that starts from step 0 keeps nothing of an earlier attempt, a resumed one keeps the lines up to its step."""
    from nanoagent.metrics import read_metrics
    from train.grpo_report import GRPOReporter
    from train.report import RunReporter
    from train.trainer import TrainState

    old = RunReporter(tmp_path, 4, show=False)
    old.on_start(TrainState())
    old.on_eval({"step": 0, "val_loss": 0.9, "val_ce": 0.9})
    old.on_step({"step": 1, "loss": 0.5, "tokens_per_s": 9.0, "lr": 1e-4, "peak_mem_gb": 1.0})
    assert "step 0: val_loss 0.9000" in capsys.readouterr().out  # printed without a bar too
    RunReporter(tmp_path, 4, show=False).on_start(TrainState())
    assert read_metrics(tmp_path / "metrics.jsonl") == []
    grpo = GRPOReporter(tmp_path, 4, show=False)
    grpo.on_start(TrainState())
    grpo.on_eval({"step": 0, "val_score": 0.6, "val_call_accuracy": 0.5, "val_no_call_accuracy": None, "best": True})
    grpo.on_step({"step": 1, "reward_mean": 0.2, "zero_adv_share": 0.5, "test_pass_rate": None})
    grpo.on_step({"step": 2, "reward_mean": 0.3, "zero_adv_share": 0.4})
    assert grpo.postfix({"reward_mean": 0.3, "zero_adv_share": 0.4, "test_pass_rate": 1.0})["passed"] == "1.00"
    assert "balanced accuracy 0.600 (calls 0.500, no call 0.000) (best so far)" in capsys.readouterr().out
    GRPOReporter(tmp_path, 4, show=False).on_start(TrainState(step=1, resumed_from="ckpt"))
    assert [(r["kind"], r["step"]) for r in read_metrics(tmp_path / "metrics.jsonl")] == \
        [("val", 0), ("train", 1), ("resume", 1)]


def test_a_setting_the_saved_run_lacks_counts_as_its_default():
    """A run saved before decision_weight existed trained with weight 1: giving 5 on resume is a change, refused."""
    import dataclasses

    from train.config import LEGACY, RESUME_SAFE, from_dict
    from train.run_config import resumed_config

    saved = dataclasses.asdict(DFTConfig(run_dir="r"))
    del saved["decision_weight"]
    now = DFTConfig(run_dir="r", decision_weight=5.0)
    with pytest.raises(ConfigError, match="decision_weight: the run has 1.0, now 5.0"):
        resumed_config(now, saved, {"run_dir", "decision_weight"}, RESUME_SAFE, from_dict, LEGACY)
    # today's default is 3, but the old run trained with 1 and goes on with 1
    assert resumed_config(DFTConfig(run_dir="r"), saved, {"run_dir"}, RESUME_SAFE, from_dict,
                          LEGACY).decision_weight == 1.0


def test_a_run_saved_before_the_compact_unlikelihood_default_resumes_as_it_trained():
    """Runs saved before prompt_format and unlikelihood existed trained in the standard format without the term;
    resumed under today's defaults (compact, 1.0) they go on as they were, not in the new recipe."""
    import dataclasses

    from train.config import LEGACY, RESUME_SAFE, from_dict
    from train.run_config import resumed_config

    saved = dataclasses.asdict(DFTConfig(run_dir="r"))
    del saved["unlikelihood"], saved["prompt_format"]
    resumed = resumed_config(DFTConfig(run_dir="r"), saved, {"run_dir"}, RESUME_SAFE, from_dict, LEGACY)
    assert (resumed.prompt_format, resumed.unlikelihood) == ("standard", 0.0)
    assert (DFTConfig().prompt_format, DFTConfig().unlikelihood) == ("compact", 1.0)
