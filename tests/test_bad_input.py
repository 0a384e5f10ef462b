"""Bad input across entry points ends as one clean line and exit code 2 (1 for `nanoagent.models`), never a
traceback: binary data files, a model folder without tokenizer or weights, --limit 0, --help.

Run: .venv/bin/python -m pytest tests/test_bad_input.py -q
"""


import pytest
import yaml

BINARY = bytes(range(128, 256)) * 8


@pytest.fixture
def binary_jsonl(tmp_path):
    path = tmp_path / "data" / "train.jsonl"
    path.parent.mkdir()
    path.write_bytes(BINARY)
    return path


@pytest.fixture
def hollow_model(tmp_path):
    folder = tmp_path / "hollow"
    folder.mkdir()
    (folder / "config.json").write_text('{"model_type": "llama"}')
    return folder


def clean(capsys, needle: str) -> None:
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err, err


def test_binary_training_data(binary_jsonl, tmp_path, capsys):
    from train import dft

    assert dft.main(["--data", str(binary_jsonl.parent), "--run-dir", str(tmp_path / "r"), "--steps", "1"]) == 2
    clean(capsys, f"{binary_jsonl}:1: not UTF-8 text")


def test_binary_validation_suite(binary_jsonl, tmp_path, capsys):
    from eval import toolcall

    assert toolcall.main(["--model", "embedded-gguf", "--suites", f"valid:{binary_jsonl}"]) == 2
    clean(capsys, "not UTF-8 text")


def test_binary_data_source(binary_jsonl, tmp_path, capsys):
    from data_recipes import build

    recipe = tmp_path / "r.yaml"
    recipe.write_text(yaml.safe_dump({"name": "b", "hub": "offline", "out": str(tmp_path / "out"), "num_proc": 1,
                                      "sources": [{"id": "xlam", "path": str(binary_jsonl)}]}))
    assert build.main(["--recipe", str(recipe), "--quiet"]) == 2
    clean(capsys, f"{binary_jsonl} could not be read")


def test_model_folder_without_tokenizer(hollow_model, tmp_path, capsys):
    from train import dft

    assert dft.main(["--model", str(hollow_model), "--run-dir", str(tmp_path / "r"), "--steps", "1",
                     "--data", str(tmp_path / "nodata")]) == 2  # the data error comes first
    clean(capsys, "nodata")
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "train.jsonl").write_text('{"messages": [{"role": "user", "content": "hi"}, '
                                               '{"role": "assistant", "content": "hello"}]}\n')
    assert dft.main(["--model", str(hollow_model), "--run-dir", str(tmp_path / "r"), "--steps", "1",
                     "--data", str(tmp_path / "d")]) == 2
    clean(capsys, "has no usable tokenizer")


def test_models_cli_help_and_a_hollow_folder(hollow_model, capsys):
    from nanoagent import models

    with pytest.raises(SystemExit) as done:
        models.main(["--help"])
    assert done.value.code == 0 and "Resolve a model spec" in capsys.readouterr().out
    assert models.main([str(hollow_model)]) == 1
    clean(capsys, "not a complete model folder")


def test_coding_limit_zero(capsys):
    from eval import coding

    assert coding.main(["--model", "embedded-gguf", "--limit", "0"]) == 2
    clean(capsys, "limit must be >= 1")


@pytest.mark.parametrize("source, needle", [({"id": "xlam", "path": "fixture", "weight": 0}, "made no training rows"),
                                            ({"id": "synthetic", "rows": 10, "path": "x.jsonl"}, "reads no file")])
def test_recipes_that_would_succeed_silently(tmp_path, capsys, source, needle):
    from data_recipes import build

    recipe = tmp_path / "r.yaml"
    recipe.write_text(yaml.safe_dump({"name": "z", "hub": "offline", "out": str(tmp_path / "out"), "num_proc": 1,
                                      "sources": [source]}))
    assert build.main(["--recipe", str(recipe), "--quiet", "--tokenizer", "embedded"]) == 2
    clean(capsys, needle)
    assert not (tmp_path / "out").exists()
