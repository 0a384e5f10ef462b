"""A model's prompt format from training to use (nanoagent/prompt_format.py): train.dft renders its data in the
asked format and stores it with the model; the GGUF export carries it with the matching chat template; the MLX and
llama.cpp backends, eval and the parity check prompt the model in it.

Run: .venv/bin/python -m pytest tests/test_prompt_format.py -q
"""

import nanoagent  # noqa: F401  (OpenBLAS before mlx)

import json
from pathlib import Path

import pytest
import yaml

from nanoagent.prompt_format import FILE, GGUF_KEY, save_format, stored_format
from nanoagent.render import FORMATS, PromptFormatError, chat_template, render_prompt, render_text
from nanoagent.testing import save_tiny_model

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "train_records"
COMPACT, STANDARD = FORMATS["compact"], FORMATS["standard"]


def test_stored_with_a_model_or_run_folder(tmp_path):
    run = tmp_path / "run"
    model = save_tiny_model(run / "model")
    assert stored_format(run) is STANDARD  # no record: the format of every model before records existed
    assert stored_format(tmp_path / "nothing") is STANDARD  # the loader reports a bad spec, not this
    save_format(model, "compact")
    assert stored_format(run) is COMPACT and stored_format(model) is COMPACT
    (model / FILE).write_text("{not json")
    with pytest.raises(PromptFormatError, match="not a prompt-format file"):
        stored_format(run)
    (model / FILE).write_text('{"prompt_format": "terse"}')
    with pytest.raises(PromptFormatError, match=r"prompt_format.json: unknown prompt format 'terse'.*newer nanoagent"):
        stored_format(run)
    with pytest.raises(PromptFormatError, match="not a model folder"):
        save_format(tmp_path, "compact")
    with pytest.raises(PromptFormatError, match="unknown prompt format"):
        save_format(model, "terse")


def test_a_hub_model_is_read_from_the_local_cache_only(tmp_path, monkeypatch):
    import huggingface_hub

    asked = []
    monkeypatch.setattr(huggingface_hub, "try_to_load_from_cache", lambda repo, name: asked.append((repo, name)))
    assert stored_format("someone/tiny-agent") is STANDARD  # not cached: no record
    cached = tmp_path / FILE
    cached.write_text('{"prompt_format": "compact"}')
    monkeypatch.setattr(huggingface_hub, "try_to_load_from_cache", lambda repo, name: str(cached))
    assert stored_format("someone/tiny-agent") is COMPACT
    assert asked == [("someone/tiny-agent", FILE)]


def tokens_of(run: Path) -> int:
    return json.loads((run / "data_stats.json").read_text())["train"]["tokens"]


def test_a_compact_run_is_prompted_compact_everywhere(tmp_path, capsys):
    from export.gguf import main as export_main
    from nanoagent.agent.backends import load_backend
    from nanoagent.gguf_import import open_gguf
    from train import dft

    tiny = save_tiny_model(tmp_path / "tiny")
    common = ["--model", str(tiny), "--data", str(FIXTURE), "--steps", "1", "--batch-size", "2", "--val-every", "0",
              "--validity-n", "0", "--threshold-n", "0", "--prose-bound", "0", "--no-plot", "--no-progress",
              "--max-length", "1024"]
    assert dft.main(common + ["--run-dir", str(tmp_path / "standard"), "--prompt-format", "standard"]) == 0
    assert dft.main(common + ["--run-dir", str(tmp_path / "compact")]) == 0  # compact is train.dft's default
    assert "prompt format: compact" in capsys.readouterr().out
    run = tmp_path / "compact"
    assert yaml.safe_load((run / "config.yaml").read_text())["prompt_format"] == "compact"
    assert yaml.safe_load((tmp_path / "standard" / "config.yaml").read_text())["prompt_format"] == "standard"
    assert json.loads((run / "model" / FILE).read_text()) == {"prompt_format": "compact"}
    assert stored_format(tmp_path / "standard") is STANDARD  # recorded explicitly too
    assert tokens_of(run) < tokens_of(tmp_path / "standard")  # the same rows, fewer tokens

    messages = [{"role": "user", "content": "Weather in Oslo?"}]
    tools = [{"type": "function", "function": {"name": "get_weather", "description": "Weather for a city",
              "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]
    mlx = load_backend(str(run))
    reply = mlx.complete(messages, tools, max_tokens=2, temperature=0.0, seed=0)
    assert mlx.fmt is COMPACT and "compact prompt" in mlx.describe()
    assert reply.prompt_ids == render_prompt(messages, tools, mlx.tokenizer, COMPACT)
    asked = load_backend(str(run), prompt_format="standard")  # an explicit format wins (eval --prompt-format)
    assert asked.fmt is STANDARD

    pytest.importorskip("llama_cpp")
    gguf = tmp_path / "compact.gguf"
    assert export_main(["--model", str(run), "--out", str(gguf), "--type", "f32", "--no-check"]) == 0
    fields = open_gguf(gguf).fields
    assert fields[GGUF_KEY].contents() == "compact"
    assert fields["tokenizer.chat_template"].contents() == chat_template(COMPACT)
    assert json.loads(gguf.with_suffix(".export.json").read_text())["export"]["prompt_format"] == "compact"
    llama = load_backend(str(gguf))
    reply = llama.complete(messages, tools, max_tokens=2, temperature=0.0, seed=0)
    assert llama.fmt is COMPACT and reply.prompt_ids == render_prompt(messages, tools, llama.tokenizer, COMPACT)

    from transformers import AutoTokenizer

    from nanoagent.gguf_import import convert_gguf

    back = convert_gguf(gguf, tmp_path / "converted")  # a folder made from the GGUF keeps its format
    for folder in (run / "model", back):
        assert stored_format(folder) is COMPACT
        text = AutoTokenizer.from_pretrained(str(folder)).apply_chat_template(
            messages, tools=tools, add_generation_prompt=True, tokenize=False)
        assert text == render_text(messages, tools, add_generation_prompt=True, fmt=COMPACT)  # transformers, mlx-lm


def test_eval_runs_record_the_format_and_resume_by_it(tmp_path, capsys):
    from eval import decision, toolcall

    run = tmp_path / "run"
    model = save_tiny_model(run / "model")
    save_format(model, "compact")
    valid = FIXTURE / "valid.jsonl"
    assert decision.main(["--model", str(run), "--suites", f"valid:{valid},valid:{valid}", "--n", "0",
                          "--out-dir", ""]) == 0  # every suite prompted in the model's format
    base = ["--model", str(run), "--max-tokens", "2", "--out-dir", str(tmp_path / "res"), "--name", "r",
            "--bootstrap-samples", "10"]
    assert toolcall.main(base + ["--suites", f"valid:{valid}"]) == 0
    result = tmp_path / "res" / "r.json"
    assert json.loads(result.read_text())["settings"]["prompt_format"] == "compact"
    assert toolcall.main(base + ["--suites", f"valid:{valid}", "--resume"]) == 0
    assert toolcall.main(base + ["--suites", f"valid:{valid}", "--resume", "--prompt-format", "standard"]) == 2
    assert "prompt_format: 'compact' there, 'standard' here" in capsys.readouterr().err
    old = json.loads(result.read_text())  # a result from before formats were recorded was prompted standard
    del old["settings"]["prompt_format"]
    result.write_text(json.dumps(old))
    assert toolcall.main(base + ["--suites", f"valid:{valid}", "--resume", "--prompt-format", "standard"]) == 0
    assert toolcall.main(base + ["--suites", f"valid:{valid}", "--resume"]) == 2  # the model is compact now


def test_eval_rejects_an_unknown_format_before_work(tmp_path, capsys):
    from eval import toolcall

    model = save_tiny_model(tmp_path / "m")
    code = toolcall.main(["--model", str(model), "--suites", f"valid:{FIXTURE / 'valid.jsonl'}", "--prompt-format", "terse",
                          "--out-dir", str(tmp_path)])
    assert code == 2
    assert "unknown prompt format 'terse'" in capsys.readouterr().err
