"""`load_backend(spec)`: which backend a --model value names, clear errors otherwise; MLX and GGUF agree.

Run: .venv/bin/python -m pytest tests/test_backends_load.py -q
"""

import nanoagent  # noqa: F401  (OpenBLAS before mlx)

import pytest

from nanoagent.agent.backends import BackendError, backend_kind, load_backend
from nanoagent.testing import save_tiny_model

QUESTION = [{"role": "user", "content": "What is the capital of France?"}]


@pytest.mark.parametrize("spec, kind", [
    ("embedded", "mlx"), ("embedded-gguf", "llamacpp"), ("http://127.0.0.1:8080/v1", "openai"),
    ("https://api.example.com/v1", "openai"), ("HuggingFaceTB/SmolLM2-135M-Instruct", "mlx"),
])
def test_spec_kinds(spec, kind):
    assert backend_kind(spec) == kind


def test_folders_and_files(tmp_path, embedded_gguf):
    assert backend_kind(str(embedded_gguf)) == "llamacpp"
    model_dir = tmp_path / "m"
    model_dir.mkdir()
    (model_dir / "config.json").write_text("{}")
    assert backend_kind(str(model_dir)) == "mlx"


@pytest.mark.parametrize("make, match", [
    (lambda p: str(p / "missing.gguf"), "not found"),
    (lambda p: str(p), "not a model folder"),
    (lambda p: (p / "notes.txt").write_text("x") and str(p / "notes.txt"), "not a .gguf"),
    (lambda p: "", "empty"),
    (lambda p: "./no/such/thing", "not found"),
    (lambda p: "no such thing", "not a folder, a file"),
])
def test_bad_specs_say_what_to_use(tmp_path, make, match):
    with pytest.raises(BackendError, match=match) as e:
        load_backend(make(tmp_path))
    assert "embedded" in str(e.value)  # every message lists the accepted forms


def test_endpoint_spec_carries_the_model_name():
    backend = load_backend("http://127.0.0.1:9/v1#model=smollm2", mode="completions")
    assert (backend.base_url, backend.model, backend.mode) == ("http://127.0.0.1:9/v1", "smollm2", "completions")


def test_a_model_folder_loads_as_mlx(tmp_path):
    backend = load_backend(str(save_tiny_model(tmp_path / "tiny")))
    c = backend.complete(QUESTION, [], max_tokens=3, temperature=0.0, seed=0)
    assert len(c.completion_ids) == 3 and len(c.logprobs) == 3


def test_a_training_run_folder_stands_for_its_model(tmp_path):
    """`--model runs/NAME` (what eval/README.md shows) loads RUN/model, in the backends and in nanoagent.models."""
    from nanoagent.models import resolve_model_path

    run = tmp_path / "runs" / "quality"
    save_tiny_model(run / "model")
    (run / "metrics.jsonl").write_text("")
    assert backend_kind(str(run)) == "mlx"
    assert resolve_model_path(run) == run / "model"
    c = load_backend(str(run)).complete(QUESTION, [], max_tokens=2, temperature=0.0, seed=0)
    assert len(c.completion_ids) == 2


@pytest.mark.slow
def test_embedded_mlx_and_gguf_see_the_same_prompt_and_answer_alike():
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    mlx_backend = load_backend("embedded")
    gguf_backend = load_backend("embedded-gguf", n_ctx=512)
    try:
        a = mlx_backend.complete(QUESTION, [], max_tokens=16, temperature=0.0, seed=0)
        b = gguf_backend.complete(QUESTION, [], max_tokens=16, temperature=0.0, seed=0)
    finally:
        gguf_backend.close()
    assert a.prompt_ids == b.prompt_ids  # one renderer, one tokenizer: byte-identical prompts
    assert "Paris" in a.text and "Paris" in b.text
    assert a.completion_ids[:4] == b.completion_ids[:4]  # same weights (MLX: the GGUF's, dequantized)
