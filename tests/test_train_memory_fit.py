"""train/memory_fit.py: the probe's prediction, the micro-batch it picks, and the errors it gives."""

import nanoagent  # noqa: F401  (OpenBLAS before mlx)

import pytest

from nanoagent.numpy_ops import training_kernels
from nanoagent.testing import tiny_llama
from train.config import ConfigError, DFTConfig, from_dict
from train.losses import sft_loss
from train.memory_fit import fit_memory, machine_memory_gb, measure, predict_gb, trainable_bytes
from train.tuning import checkpoint_blocks, prepare

VOCAB = 300
KERNELS = training_kernels(False, DFTConfig().native_ops)  # measured as fit_memory measures a default config


@pytest.fixture(scope="module")
def model():
    # six blocks: with the attention weights recomputed anyway (packed_attention.RECOMPUTE_WEIGHTS), two blocks keep
    # too little for whole-block checkpointing to save more than its own overhead
    m = tiny_llama(VOCAB, seed=0, num_hidden_layers=6)
    prepare(m, DFTConfig(fine_tune="full"))
    return m


@pytest.fixture(scope="module")
def costs(model):
    m = measure(model, sft_loss, 256, VOCAB, KERNELS)
    state = 3 * trainable_bytes(model) / 1e9

    def need(rows, accumulating=True):
        return predict_gb(m, rows, state, accumulating)
    return m, need


def cfg(**kw):
    return DFTConfig(fine_tune="full", max_length=256, **({"batch_size": 4, "grad_accum": 3} | kw))


def test_the_probe_sees_rows_and_gradients(costs):
    m, need = costs
    assert m["row"] > 0 and m["grads"] > 0 and m["before"] > 0
    assert need(1, accumulating=True) - need(1, accumulating=False) == pytest.approx(2 * m["grads"])
    assert machine_memory_gb() > 0


def test_a_batch_that_fits_is_kept(model):
    c = cfg()
    line = fit_memory(model, c, sft_loss, total_gb=1000.0)
    assert (c.batch_size, c.grad_accum) == (4, 3) and "batch 4 x 256 fits" in line


def test_a_batch_over_budget_becomes_smaller_micro_batches(model, costs):
    m, need = costs
    total = (need(2) + need(4)) / 2 / 0.75  # budget between 2 and 4 rows
    c = cfg()
    line = fit_memory(model, c, sft_loss, total_gb=total)
    assert (c.batch_size, c.grad_accum) == (2, 6)  # the same 12 rows per step
    assert "micro-batches of 2 rows with 6 accumulated (was 4 x 3" in line
    assert c.extra["memory_fit"] == {"asked_batch_size": 4, "asked_grad_accum": 3}


@pytest.mark.parametrize("rows_that_fit", [2, 0])
def test_no_memory_fit_keeps_the_settings_and_warns(model, costs, rows_that_fit):
    m, need = costs
    c = cfg(memory_fit=False)
    total = (need(rows_that_fit) if rows_that_fit else need(1) * 0.9) / 0.75  # even one row over: still a warning
    line = fit_memory(model, c, sft_loss, total_gb=total)
    assert (c.batch_size, c.grad_accum) == (4, 3) and "--no-memory-fit" in line and "--batch-size" in line
    assert ("add --grad-checkpoint" in line) == (rows_that_fit == 0)


@pytest.fixture
def checkpointed(model):
    """A cost function for the model with gradient checkpointing on; the block class is restored afterwards
    (mlx-lm's grad_checkpoint patches it for the whole process)."""
    cls = type(model.layers[0])
    original = cls.__call__
    try:
        checkpoint_blocks(model)
        m = measure(model, sft_loss, 256, VOCAB, KERNELS)
        cls.__call__ = original
        state = 3 * trainable_bytes(model) / 1e9
        yield lambda rows: predict_gb(m, rows, state, True)
    finally:
        cls.__call__ = original


def test_one_row_over_budget_switches_on_gradient_checkpointing(model, costs, checkpointed):
    m, need = costs
    assert checkpointed(1) < need(1)
    c = cfg(batch_size=1, grad_accum=4)
    line = fit_memory(model, c, sft_loss, total_gb=(checkpointed(1) + need(1)) / 2 / 0.75)
    assert c.grad_checkpoint and (c.batch_size, c.grad_accum) == (1, 4)
    assert "gradient checkpointing is on" in line and "batch 1 x 256 fits" in line
    assert c.extra["memory_fit"] == {"asked_batch_size": 1, "asked_grad_accum": 4, "asked_grad_checkpoint": False}
    from train.config import asked_settings
    assert asked_settings({"extra": c.extra}) == {"batch_size": 1, "grad_accum": 4, "grad_checkpoint": False}


def test_one_row_over_budget_even_checkpointed_is_an_error_naming_the_flags(model, checkpointed):
    with pytest.raises(ConfigError, match="with gradient checkpointing.*--max-length.*--memory-budget.*--no-memory-fit"):
        fit_memory(model, cfg(), sft_loss, total_gb=checkpointed(1) / 0.75 * 0.9)


def test_the_probe_runs_the_loss_as_the_trainer_will(model, monkeypatch):
    import train.memory_fit as mf
    seen = []
    monkeypatch.setattr(mf, "measure", lambda *a, kernels=None: seen.append(kernels) or
                        {"before": 0.1, "grads": 0.0, "row": 0.1})
    fit_memory(model, cfg(numpy_ops=True), sft_loss, total_gb=100.0)
    fit_memory(model, cfg(native_ops=False), sft_loss, total_gb=100.0)
    fit_memory(model, cfg(), sft_loss, total_gb=100.0)
    assert seen == ["numpy", None, KERNELS]  # the compiled kernels where built, as the trainer


def test_not_checked_when_it_cannot_be():
    assert "data-parallel" in fit_memory(None, cfg(), sft_loss, world=2, total_gb=8.0)
    assert "does not report" in fit_memory(None, cfg(), sft_loss, total_gb=0.0)


def test_memory_budget_is_a_share():
    with pytest.raises(ConfigError, match="memory_budget"):
        from_dict({"memory_budget": 1.5})


def test_on_a_gpu_the_budget_is_the_gpus_memory(monkeypatch):
    # Regression: on a lent H100 (80 GB) in a 135 GB machine the fit budgeted the host's memory.
    import train.memory_fit as mf

    host = machine_memory_gb()
    assert mf.device_memory_bytes() == 0  # the CPU: the host's memory, as before
    monkeypatch.setattr(mf.mx, "default_device", lambda: mf.mx.gpu)
    monkeypatch.setattr(mf.mx, "device_info", lambda: {"device_name": "NVIDIA H100", "total_memory": 2_000_000_000})
    assert machine_memory_gb() == pytest.approx(min(host, 2.0))
    monkeypatch.setattr(mf.mx, "device_info", lambda: {"memory_size": 10**15})  # Metal: unified memory
    assert machine_memory_gb() == pytest.approx(host)
    monkeypatch.setattr(mf.mx, "device_info", lambda: {"device_name": "a GPU that says nothing of memory"})
    assert machine_memory_gb() == pytest.approx(host)
