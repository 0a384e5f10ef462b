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


# The bad-input matrix (issue 20): every entry point with the inputs a new user gets wrong. Each case must end
# with its exit code (2; 1 for `nanoagent.models`), a message on stderr naming the input, and no traceback.
# Paths are relative to a folder of broken things the fixture makes; {B} stands for it.
MATRIX = [
    ("data_recipes.build", ["--recipe", "{B}/nope.yaml"], "nope.yaml"),
    ("data_recipes.build", ["--recipe", "{B}/bad.yaml"], "bad.yaml"),
    ("data_recipes.build", ["--recipe", "{B}/unknown.yaml"], "stepz"),
    ("data_recipes.build", ["--recipe", "{B}/bin.jsonl"], "bin.jsonl is not UTF-8"),
    ("data_recipes.build", ["--offline", "--out", "{B}/afile"], "afile is a file"),
    ("data_recipes.synthetic.__main__", ["--out", "{B}/afile/x.jsonl"], "afile, which is a file"),
    ("train.dft", ["--data", "{B}/empty"], "empty/train.jsonl is missing"),
    ("train.dft", ["--data", "{B}/nope"], "nope: no such file"),
    ("train.dft", ["--config", "{B}/unknown.yaml"], "did you mean 'steps'"),
    ("train.dft", ["--config", "{B}/bad.yaml"], "bad.yaml"),
    ("train.dft", ["--config", "{B}/nope.yaml"], "nope.yaml does not exist"),
    ("train.dft", ["--steps", "-1"], "'steps' must be positive"),
    ("train.dft", ["--decision-weight", "0"], "'decision_weight' must be positive"),
    ("train.dft", ["--count-weight", "-1"], "'count_weight' must be positive"),
    ("train.dft", ["--arg-end-weight", "0"], "'arg_end_weight' must be positive"),
    ("train.dft", ["--unlikelihood", "-0.5"], "'unlikelihood' is -0.5"),
    ("train.dft", ["--loss", "xx"], "'xx'"),
    ("train.dft", ["--model", "{B}/hollow", "--data", "{B}/data"], "hollow has no usable tokenizer"),
    ("train.dft", ["--model", "{B}/fake.gguf", "--data", "{B}/data"], "fake.gguf is not a readable GGUF"),
    ("train.grpo", ["--config", "{B}/unknown.yaml"], "did you mean 'steps'"),
    ("train.grpo", ["--tasks", "{B}/nope"], "nope"),
    ("train.grpo", ["--group-size", "1"], "group_size"),
    ("train.grpo", ["--rewards", "tests=x"], "'x'"),
    ("train.sweep", ["{B}/nope.yaml"], "nope.yaml does not exist"),
    ("train.sweep", ["{B}/bad.yaml"], "bad.yaml is not valid YAML"),
    ("eval.toolcall", ["--model", "{B}/fake.gguf", "--suites", "simple_python@2"], "fake.gguf is not a readable"),
    ("eval.toolcall", ["--model", "{B}/trunc.gguf", "--suites", "simple_python@2"], "trunc.gguf is not a readable"),
    ("eval.toolcall", ["--model", "{B}/hollow", "--suites", "simple_python@2"], "hollow"),
    ("eval.toolcall", ["--model", "{B}/empty", "--suites", "simple_python@2"], "empty is not a model folder"),
    ("eval.toolcall", ["--suites", "valid:{B}/bin.jsonl"], "bin.jsonl:1: not UTF-8"),
    ("eval.toolcall", ["--suites", "valid:{B}/badrec.jsonl"], "badrec.jsonl:1 is not a valid record"),
    ("eval.toolcall", ["--suites", "nosuch"], "unknown suite 'nosuch'"),
    ("eval.toolcall", ["--limit", "-3"], "got -3"),
    ("eval.coding", ["--model", "{B}/fake.gguf"], "fake.gguf is not a readable"),
    ("eval.coding", ["--model", "{B}/hollow"], "hollow"),
    ("eval.coding", ["--tasks", "{B}/nope"], "nope"),
    ("eval.coding", ["--samples", "0"], "samples must be >= 1"),
    ("eval.report", ["--results", "{B}/empty"], "no eval results in"),
    ("eval.html", ["report", "{B}/nope"], "nope does not exist"),
    ("eval.html", ["trajectories", "{B}/bin.jsonl"], "no trajectories in"),
    ("export.gguf", ["--model", "{B}/hollow", "--out", "{B}/o.gguf"], "hollow"),
    ("export.gguf", ["--model", "{B}/adapters", "--out", "{B}/o.gguf"], "adapters holds LoRA adapters"),
    ("export.gguf", ["--model", "{B}/empty", "--out", "{B}/o.gguf"], "empty is not a model folder"),
    ("export.gguf", ["--model", "embedded", "--out", "{B}/empty"], "empty is a folder"),
    ("export.parity", ["{B}/fake.gguf"], "fake.gguf is not a readable GGUF"),
    ("export.parity", ["{B}/nope.gguf"], "nope.gguf does not exist"),
    ("export.hub", ["--model", "{B}/hollow"], "--repo-id"),
    ("nanoagent.cli", ["run", "--model", "{B}/fake.gguf", "--repo", "{B}/empty", "fix it"], "fake.gguf"),
    ("nanoagent.cli", ["run", "--model", "embedded", "--repo", "{B}/nope", "fix it"], "nope: no such folder"),
    ("nanoagent.cli", ["serve", "{B}/fake.gguf"], "fake.gguf"),
    ("nanoagent.cli", ["serve", "{B}/hollow"], "hollow"),
    ("nanoagent.models", ["{B}/hollow"], "hollow is not a complete model"),
    ("nanoagent.models", ["{B}/nope"], "nope"),
    ("pipeline", ["--out", "{B}/afile"], "afile is a file"),
    ("pipeline", ["--stages", "nosuch"], "'nosuch'"),
    ("nanoagent.tasks.validate", ["{B}/nope"], "nope"),
]


@pytest.fixture(scope="module")
def broken(tmp_path_factory):
    from nanoagent.models import embedded_gguf

    b = tmp_path_factory.mktemp("broken")
    (b / "bin.jsonl").write_bytes(BINARY)
    (b / "hollow").mkdir()
    (b / "hollow" / "config.json").write_text('{"model_type": "llama"}')
    (b / "fake.gguf").write_text("not a gguf\n")
    (b / "trunc.gguf").write_bytes(embedded_gguf().read_bytes()[:1000])  # a download cut short
    (b / "empty").mkdir()
    (b / "bad.yaml").write_text("a: [\n")
    (b / "unknown.yaml").write_text("stepz: 3\n")
    (b / "afile").write_text("x\n")
    (b / "adapters").mkdir()
    (b / "adapters" / "adapter_config.json").write_text("{}")
    (b / "badrec.jsonl").write_text('{"messages": 3}\n')
    (b / "data").mkdir()
    (b / "data" / "train.jsonl").write_text('{"messages": [{"role": "user", "content": "hi"}, '
                                            '{"role": "assistant", "content": "hello"}]}\n')
    return b


@pytest.mark.parametrize("module, argv, needle", MATRIX, ids=[f"{m}:{' '.join(a)[:40]}" for m, a, _ in MATRIX])
def test_bad_input_matrix(broken, module, argv, needle, capsys, monkeypatch, tmp_path):
    import importlib

    monkeypatch.chdir(tmp_path)  # nothing a case writes lands in the checkout
    argv = [a.replace("{B}", str(broken)) for a in argv]
    try:
        code = importlib.import_module(module).main(argv)
    except SystemExit as e:  # argparse's own usage errors
        code = e.code
    err = capsys.readouterr().err
    assert code == (1 if module == "nanoagent.models" else 2), err
    assert needle in err and "Traceback" not in err, err
