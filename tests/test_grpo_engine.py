"""GRPO's llama.cpp rollout engine on a tiny random llama: the multi-sequence batch matches one-at-a-time
generation, a synced policy's next-token log-probs match MLX's, LoRA is fused into what is synced, a LoRA policy
syncs in place or as an adapter over weights loaded once, MLX recomputes the ratio's log-probs, and a run with
`--rollout-engine llamacpp` trains and logs the sync.

The bounds: F32 weights in llama.cpp against MLX's float32 agree to 2e-3 in log-prob (different kernels and
summation order); the batch against single-stream generation in llama.cpp itself to 1e-4.

Run: .venv/bin/python -m pytest tests/test_grpo_engine.py -q
"""

import nanoagent  # noqa: F401  (OpenBLAS before mlx)

import json

import mlx.core as mx
import numpy as np
import pytest

pytest.importorskip("llama_cpp")

from mlx_lm import load as mlx_load  # noqa: E402

from nanoagent.gguf_writer import lora_adapters, model_weights  # noqa: E402
from nanoagent.render import render_prompt  # noqa: E402
from nanoagent.testing import save_tiny_model  # noqa: E402
from train.grpo_engine import LlamaCppRollouts, relogprob  # noqa: E402

TOOLS = [{"type": "function", "function": {"name": "shell", "description": "run a command",
                                            "parameters": {"type": "object",
                                                           "properties": {"cmd": {"type": "string"}},
                                                           "required": ["cmd"]}}}]
CHAT = [{"role": "system", "content": "You fix code."}, {"role": "user", "content": "list the files"}]
OTHER = [{"role": "user", "content": "what is in the readme file of this repository, briefly?"}]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    folder = save_tiny_model(tmp_path_factory.mktemp("tiny") / "model")
    model, tok = mlx_load(str(folder))
    return folder, model, tok


@pytest.fixture(scope="module")
def engine(tiny, tmp_path_factory):
    folder, model, tok = tiny
    e = LlamaCppRollouts(model, tok, json.loads((folder / "config.json").read_text()),
                         tmp_path_factory.mktemp("engine"), qtype="f32", threads=2, n_ctx=2048)
    yield e
    e.close()


def mlx_logprobs(model, prompt_ids, completion_ids):
    ids = prompt_ids + completion_ids
    logits = model(mx.array([ids[:-1]]))[0].astype(mx.float32)
    lp = logits - mx.logsumexp(logits, axis=-1, keepdims=True)
    n = len(prompt_ids)
    return [lp[n - 1 + i, t].item() for i, t in enumerate(completion_ids)]


@pytest.mark.parametrize("conversations", [[CHAT, CHAT, CHAT], [CHAT, OTHER, CHAT]], ids=["shared", "ragged"])
def test_a_batch_matches_one_conversation_at_a_time(engine, conversations):
    backend = engine.backend
    singles = [backend.complete(c, TOOLS, max_tokens=12, temperature=0.0, seed=0) for c in conversations]
    batch = backend.complete_batch(conversations, TOOLS, max_tokens=12, temperature=0.0, seed=0)
    for s, b in zip(singles, batch):
        assert b.completion_ids == s.completion_ids and b.prompt_ids == s.prompt_ids
        np.testing.assert_allclose(b.logprobs, s.logprobs, atol=1e-4)
        assert b.finish_reason == s.finish_reason


def test_sampled_rows_differ_and_repeat_with_the_seed(engine):
    backend = engine.backend
    a = backend.complete_batch([CHAT] * 3, TOOLS, max_tokens=10, temperature=1.0, seed=3)
    b = backend.complete_batch([CHAT] * 3, TOOLS, max_tokens=10, temperature=1.0, seed=3)
    assert [c.completion_ids for c in a] == [c.completion_ids for c in b]
    assert len({tuple(c.completion_ids) for c in a}) > 1


def test_synced_policy_matches_mlx_and_follows_updates(tiny, engine):
    """After a sync, llama.cpp's log-probs of what it samples are MLX's own within 2e-3; after the weights change
    and another sync, they follow (and differ from before)."""
    from mlx_lm.tuner.utils import linear_to_lora_layers

    folder, _, tok = tiny
    model, _ = mlx_load(str(folder))  # a fresh copy: this test changes its weights
    linear_to_lora_layers(model, 2, {"rank": 4, "scale": 20.0, "dropout": 0.0})
    engine.sync(model)
    c = engine.backend.complete_batch([CHAT], TOOLS, max_tokens=8, temperature=1.0, seed=1)[0]
    before = mlx_logprobs(model, c.prompt_ids, c.completion_ids)
    np.testing.assert_allclose(c.logprobs, before, atol=2e-3)
    for layer in model.model.layers[-2:]:  # a LoRA update: B away from zero
        layer.self_attn.q_proj.lora_b = mx.ones_like(layer.self_attn.q_proj.lora_b) * 0.05
        layer.mlp.down_proj.lora_b = mx.ones_like(layer.mlp.down_proj.lora_b) * 0.05
    mx.eval(model.parameters())
    after = mlx_logprobs(model, c.prompt_ids, c.completion_ids)
    assert max(abs(x - y) for x, y in zip(before, after)) > 0.01
    engine.sync(model)
    probe = engine.backend.complete_batch([CHAT], TOOLS, max_tokens=1, temperature=0.0, seed=0)[0]
    np.testing.assert_allclose(probe.logprobs, mlx_logprobs(model, probe.prompt_ids, probe.completion_ids),
                               atol=2e-3)
    assert engine.syncs >= 3 and engine.sync_seconds > 0


def test_lora_is_fused_into_the_synced_weights(tiny):
    from mlx_lm.tuner.utils import linear_to_lora_layers

    from train.tuning import fuse_lora

    folder, _, _ = tiny
    model, _ = mlx_load(str(folder))
    linear_to_lora_layers(model, 1, {"rank": 2, "scale": 10.0, "dropout": 0.0})
    layer = model.model.layers[-1].self_attn.v_proj
    layer.lora_b = mx.ones_like(layer.lora_b) * 0.1
    weights = model_weights(model)
    assert not any("lora" in k or ".linear." in k for k in weights)
    fuse_lora(model)
    fused = model_weights(model)
    assert weights.keys() == fused.keys()
    for k in weights:
        np.testing.assert_allclose(weights[k], fused[k], atol=1e-6)


def random_lora_update(model, seed: int) -> None:
    """Every LoRA B away from zero, differently per layer and row (so a wrong Q/K row order would show)."""
    from nanoagent.gguf_writer import lora_layers

    rng = np.random.default_rng(seed)
    for layer in lora_layers(model).values():
        layer.lora_b = mx.array(rng.normal(0, 0.02, layer.lora_b.shape).astype(np.float32))
    mx.eval(model.parameters())


def test_the_adapter_pairs_make_the_fused_update(tiny):
    from mlx_lm.tuner.utils import linear_to_lora_layers

    folder, _, _ = tiny
    model, _ = mlx_load(str(folder))
    linear_to_lora_layers(model, 2, {"rank": 4, "scale": 20.0, "dropout": 0.0})
    random_lora_update(model, 0)
    fused, base, pairs = model_weights(model), model_weights(model, fuse=False), lora_adapters(model)
    assert len(pairs) == 2 * 7 and set(pairs) < set(base)  # q k v o gate up down in the last two blocks
    for name, (a, b) in pairs.items():
        assert a.shape[0] == b.shape[1] == 4
        np.testing.assert_allclose(base[name] + b @ a, fused[name], atol=1e-5)
        assert np.abs(b @ a).max() > 1e-3


@pytest.mark.parametrize("lora_sync", ["in_place", "adapter"])
def test_a_lora_policy_syncs_over_weights_loaded_once(tiny, tmp_path, lora_sync):
    """Both LoRA syncs: after each one both of llama.cpp's contexts (one stream, the batch) give MLX's log-probs
    within 2e-3, and the GGUF is never replaced or reloaded (same inode, same llama.cpp model). In place, the file
    is rewritten where it lies and no adapter is written; as an adapter, the file is not touched. A DoRA layer is
    refused as an adapter (synced as whole weights)."""
    from mlx_lm.tuner.utils import linear_to_lora_layers

    from nanoagent.gguf_vocab import ExportError

    folder, _, tok = tiny
    model, _ = mlx_load(str(folder))
    linear_to_lora_layers(model, 2, {"rank": 4, "scale": 20.0, "dropout": 0.0})
    random_lora_update(model, 1)
    engine = LlamaCppRollouts(model, tok, json.loads((folder / "config.json").read_text()), tmp_path, qtype="f32",
                              threads=2, n_ctx=2048, lora_sync=lora_sync)
    try:
        assert engine.mode == lora_sync and engine.fallback is None
        assert engine.adapter_path.is_file() == (lora_sync == "adapter")
        base_stat, loaded = engine.path.stat(), engine.backend.llm
        first = None
        for seed in (1, 2):
            if seed == 2:
                random_lora_update(model, 2)
                moved = mlx_logprobs(model, first.prompt_ids, first.completion_ids)
                assert max(abs(x - y) for x, y in zip(moved, first.logprobs)) > 0.01  # the update changed the policy
                engine.sync(model)
            batch = engine.backend.complete_batch([CHAT, OTHER], TOOLS, max_tokens=6, temperature=1.0, seed=seed)
            single = engine.backend.complete(CHAT, TOOLS, max_tokens=6, temperature=1.0, seed=seed)
            for c in batch + [single]:
                np.testing.assert_allclose(c.logprobs, mlx_logprobs(model, c.prompt_ids, c.completion_ids), atol=2e-3)
            first = first or single
        after = engine.path.stat()
        assert after.st_ino == base_stat.st_ino and engine.backend.llm is loaded
        assert (after.st_mtime_ns == base_stat.st_mtime_ns) == (lora_sync == "adapter")
    finally:
        engine.close()
    dora, _ = mlx_load(str(folder))
    linear_to_lora_layers(dora, 1, {"rank": 2, "scale": 10.0, "dropout": 0.0}, use_dora=True)
    with pytest.raises(ExportError, match="DoRA"):
        lora_adapters(dora)


def test_in_place_falls_back_to_an_adapter_where_llamacpp_copies_its_weights(tiny, tmp_path, monkeypatch):
    from mlx_lm.tuner.utils import linear_to_lora_layers

    from nanoagent.agent.backends.llamacpp import LlamaCppBackend

    folder, _, tok = tiny
    model, _ = mlx_load(str(folder))
    linear_to_lora_layers(model, 2, {"rank": 4, "scale": 20.0, "dropout": 0.0})
    random_lora_update(model, 3)
    monkeypatch.setattr(LlamaCppBackend, "weights_follow_file", lambda self, ids: False)
    engine = LlamaCppRollouts(model, tok, json.loads((folder / "config.json").read_text()), tmp_path, qtype="f32",
                              threads=2, n_ctx=2048)
    try:
        assert engine.mode == "adapter" and "adapter" in engine.fallback
        c = engine.backend.complete(CHAT, TOOLS, max_tokens=6, temperature=1.0, seed=0)
        np.testing.assert_allclose(c.logprobs, mlx_logprobs(model, c.prompt_ids, c.completion_ids), atol=2e-3)
    finally:
        engine.close()
    monkeypatch.undo()
    engine = LlamaCppRollouts(model, tok, json.loads((folder / "config.json").read_text()), tmp_path / "q8",
                              qtype="q8_0", threads=2, n_ctx=512)
    try:  # a quantized copy can't take float writes: the adapter, and the reason said
        assert engine.mode == "adapter" and "Q8_0" in engine.fallback
    finally:
        engine.close()


def test_the_copy_lives_in_memory_where_there_is_room_and_goes_on_close(tiny, tmp_path, monkeypatch):
    import os
    import shutil

    import train.grpo_engine as ge

    folder, model, tok = tiny
    memory = tmp_path / "shm"
    memory.mkdir()
    dead = memory / "nanoagent-grpo-999999999-x"  # left by a run that died
    dead.mkdir()
    live = memory / f"nanoagent-grpo-{os.getpid()}-x"  # a live run's (this process): kept
    live.mkdir()
    monkeypatch.setattr(ge, "MEMORY_ROOT", memory)
    engine = LlamaCppRollouts(model, tok, json.loads((folder / "config.json").read_text()), tmp_path / "run",
                              qtype="f32", threads=2, n_ctx=512)
    try:
        assert engine.in_memory and engine.path.parent.parent == memory and engine.path.is_file()
        assert not dead.exists() and live.is_dir() and not (tmp_path / "run").exists()
    finally:
        engine.close()
    assert not engine.folder.exists()
    usage = shutil.disk_usage(tmp_path)
    monkeypatch.setattr(ge.shutil, "disk_usage", lambda p: usage._replace(free=1000))
    engine = LlamaCppRollouts(model, tok, json.loads((folder / "config.json").read_text()), tmp_path / "run",
                              qtype="f32", threads=2, n_ctx=512)
    try:
        assert not engine.in_memory and engine.path.parent == tmp_path / "run"
    finally:
        engine.close()
    assert engine.path.is_file()  # the run's own folder: the trainer removes its copy at the end


def test_overwriting_tensors_in_place_reaches_llamacpp_and_refuses_bad_input(tiny, tmp_path):
    from nanoagent.agent.backends.common import BackendError
    from nanoagent.agent.backends.llamacpp import LlamaCppBackend
    from nanoagent.gguf_writer import write_gguf

    folder, model, tok = tiny
    config = json.loads((folder / "config.json").read_text())
    probe = list(range(3, 12))
    for qtype in ("f16", "q8_0"):
        path = tmp_path / f"tiny-{qtype}.gguf"
        write_gguf(model_weights(model), config, tok, path, qtype, progress=False)
        backend = LlamaCppBackend(path, tokenizer=tok, n_ctx=256, n_threads=2)
        try:
            # a matrix scaled then restored in the file: llama.cpp saw both (a quantized one can't be written)
            assert backend.weights_follow_file(probe) == (qtype == "f16")
            with pytest.raises(BackendError, match="no tensor 'nope'"):
                backend.overwrite_tensors({"nope": np.zeros(3)})
            with pytest.raises(BackendError, match="bytes given"):
                backend.overwrite_tensors({"output_norm.weight": np.zeros(3)})
            if qtype == "q8_0":
                with pytest.raises(BackendError, match="only F16 and F32"):
                    backend.overwrite_tensors({"blk.0.attn_q.weight": np.zeros((64, 64))})
            else:  # another file, other offsets: they are read again
                other = tmp_path / "tiny-f32.gguf"
                write_gguf(model_weights(model), config, tok, other, "f32", progress=False)
                backend.reload(other)
                assert backend.weights_follow_file(probe)
        finally:
            backend.close()


def test_relogprob_puts_mlx_numbers_in_and_reports_the_gap(tiny):
    from train.grpo_loss import completion_sample, make_batches

    _, model, tok = tiny
    prompt = render_prompt(CHAT, TOOLS, tok)
    ids = [5, 9, 11]
    true = mlx_logprobs(model, prompt, ids)
    batches = make_batches([completion_sample(prompt, ids, [x + 0.01 for x in true], 1.0)], 4)
    gap = relogprob(model, batches)
    np.testing.assert_allclose(batches[0].old_logprobs, true, atol=1e-5)
    assert gap["sampler_logprob_gap_mean"] == pytest.approx(0.01, abs=1e-4)


def test_a_run_with_the_llamacpp_engine_trains_and_logs_the_sync(tmp_path, spread_rewards, monkeypatch):
    import train.grpo_engine as ge
    from train.grpo import run
    from train.grpo_config import load_grpo_config

    memory = tmp_path / "shm"
    memory.mkdir()
    monkeypatch.setattr(ge, "MEMORY_ROOT", memory)
    made = []
    folder_for = ge.engine_folder
    monkeypatch.setattr(ge, "engine_folder", lambda *a: made.append(folder_for(*a)) or made[-1])

    model_dir = save_tiny_model(tmp_path / "tiny")
    run_dir = tmp_path / "run"
    run(load_grpo_config(["--model", str(model_dir), "--run-dir", str(run_dir), "--steps", "2", "--group-size", "2",
                          "--tasks-per-step", "1", "--max-turns", "1", "--max-tokens-per-turn", "8",
                          "--no-progress", "--task-mix", "coding=1", "--rollout-engine", "llamacpp",
                          "--engine-gguf-type", "f32", "--no-plot"]))
    rows = [json.loads(x) for x in (run_dir / "metrics.jsonl").read_text().splitlines() if '"train"' in x]
    assert [r["step"] for r in rows] == [1, 2] and not rows[0]["skipped_update"]
    assert rows[0]["sync_s"] == 0 and rows[1]["sync_s"] > 0  # step 1 uses the copy written at the start
    assert 0 <= rows[0]["sampler_logprob_gap_mean"] < 2e-3
    assert made and made[0][1] and made[0][0].parent == memory  # the copy lived in memory ...
    assert not made[0][0].exists() and not list(run_dir.glob("engine/*.gguf"))  # ... and is gone at the end


def test_auto_picks_llamacpp_on_the_cpu_for_a_plain_llama_and_mlx_otherwise(monkeypatch):
    import importlib.util

    from train.grpo_engine import engine_for

    if mx.default_device().type != mx.cpu:
        pytest.skip("auto picks llama.cpp only where MLX runs on the CPU")
    llama = {"model_type": "llama"}
    assert engine_for("auto", llama)[0] == "llamacpp"
    assert engine_for("mlx", llama)[0] == "mlx" and engine_for("llamacpp", {})[0] == "llamacpp"
    for other in ({"model_type": "qwen2"}, {**llama, "attention_bias": True}, {**llama, "quantization": {"bits": 4}}):
        assert engine_for("auto", other) == ("mlx", "the model is not a plain float llama (the GGUF writer's kind)")
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    assert engine_for("auto", llama) == ("mlx", "llama-cpp-python is not installed")
