"""The model card's usage blocks work as written (issue 80): every Python block compiles, `hf download` is a command
of today's huggingface_hub, the OpenAI-client block runs against `nanoagent serve` (a scripted backend that writes a
call) and gets `tool_calls`, and the llama-cpp-python block runs on a GGUF exported from the tiny random model and
gets text in `content`, as the card says. Also: the training summary is a few lines with no empty values, and eval
columns are named for the model and how it was decoded.

Run: .venv/bin/python -m pytest tests/test_export_card.py -q
"""

import ast
import contextlib
import io
import re
import shlex
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

from export.card import training_summary
from export.config import HubConfig
from export.evals import labelled_runs
from export.usage import snippets, usage_section

REPO, GGUF = "me/tiny-agent", "tiny-agent-Q8_0.gguf"
CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Lisbon"}}\n</tool_call>'


def run_block(code: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "<card block>", "exec"), {})
    return out.getvalue()


def test_every_python_block_of_the_usage_section_compiles():
    blocks = re.findall(r"```python\n(.*?)```", usage_section(REPO, GGUF), re.S)
    assert len(blocks) == 2
    for block in blocks:
        ast.parse(block)


def test_the_download_line_is_a_command_of_todays_huggingface_hub():
    """Issue 80: `huggingface-cli download` fails with today's huggingface_hub."""
    line = snippets(REPO, GGUF)["download"].splitlines()[-1]
    assert shlex.split(line) == ["hf", "download", REPO, GGUF, "--local-dir", "."]
    hf = Path(sys.executable).parent / "hf"
    if not hf.exists():
        pytest.skip("huggingface_hub's hf command is not installed in this environment")
    helped = subprocess.run([str(hf), "download", "--help"], capture_output=True, text=True, timeout=60)
    assert helped.returncode == 0 and "REPO_ID" in helped.stdout and "--local-dir" in helped.stdout


class WritesACall:
    constrained = True

    def complete(self, messages, tools, *, max_tokens, on_text=None, **kw):
        for i in range(0, len(CALL), 5):
            if on_text:
                on_text(CALL[i:i + 5])
        return SimpleNamespace(text=CALL, finish_reason="stop", prompt_tokens=9, completion_tokens=20)


def test_the_openai_block_gets_tool_calls_from_nanoagent_serve():
    pytest.importorskip("openai")
    from nanoagent.server import serve

    found = {}
    httpd = serve(WritesACall(), GGUF, port=0, ready=lambda u: found.setdefault("url", u), log=lambda _: None)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        code = snippets(REPO, GGUF)["openai"].replace("http://127.0.0.1:8080/v1", found["url"])
        printed = run_block(code)
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert "ChatCompletionMessageFunctionToolCall(" in printed and "get_weather" in printed and "Lisbon" in printed


def test_the_llama_cpp_block_runs_and_returns_text_in_content(tmp_path, monkeypatch):
    """The card says llama-cpp-python returns the call as text in `content`; the block runs on a real GGUF."""
    pytest.importorskip("llama_cpp")
    from export.config import ExportConfig
    from export.gguf import export
    from nanoagent.testing import save_tiny_model

    folder = save_tiny_model(tmp_path / "model")
    export(ExportConfig(model=str(folder), out=str(tmp_path / GGUF), check=False), say=lambda m: None)
    monkeypatch.chdir(tmp_path)
    code = snippets(REPO, GGUF)["llama_cpp"].replace("max_tokens=256", "max_tokens=16")
    code += '\nassert "tool_calls" not in reply["choices"][0]["message"] or not reply["choices"][0]["message"]' \
            '["tool_calls"]\n'
    printed = run_block(code).splitlines()
    assert printed and printed[-1].startswith("[")  # the parsed calls: a list (none, from a random model)


def test_the_training_summary_is_a_few_lines_without_empty_values():
    """Issue 80: the training section dumped summary.json (six `None` rows) and a 60-line config."""
    training = {"config": {"loss": "sft", "fine_tune": "lora", "lora_rank": 16, "lora_layers": -1, "steps": 90,
                           "batch_size": 2, "grad_accum": 2, "max_length": 1024, "pack": True, "seed": 0},
                "summary": {"steps": 90, "input_tokens": 123456, "supervised_tokens": 2345, "train_seconds": 300,
                            "tokens_per_s": 411.5, "val_loss_first": 1.5, "val_loss_last": 0.5, "resumed_from": None,
                            "best_step": None, "call_threshold": None},
                "data_stats": {"train": {"path": "data/x/train.jsonl", "records": 100, "kept": 98}}}
    lines = training_summary(HubConfig(repo_id=REPO), training)
    text = "\n".join(lines)
    assert len(lines) == 7 and "None" not in text
    assert "LoRA rank 16 on all layers" in text and "90 (batches of 4 x 1024 tokens, packed)" in text
    assert "98 training rows" in text and "123,456 trained on" in text and "5 min" in text
    assert "1.500 -> 0.500" in text
    known = training_summary(HubConfig(repo_id=REPO), {"summary": {"steps": 3}})
    assert [line.split("**")[1] for line in known] == ["Base model", "Steps"]  # only what is known


def test_columns_are_named_for_the_model_and_merge_runs_of_one_mode():
    """Issue 80: a column was titled with the backend string and a local run path of the machine that scored it."""
    def run(backend, suites, constrain=False):
        return {"model": {"spec": "/home/someone/runs/x/model", "backend": backend},
                "settings": {"constrain": constrain}, "suites": {s: {"metrics": {"accuracy": 0.5}} for s in suites}}

    gguf = "llama-cpp-python (quality-cpu-q8_0.gguf)"
    columns = labelled_runs([run(gguf, ["simple_python"]), run(gguf, ["irrelevance"]),
                             run(gguf, ["simple_python"], constrain=True), run(gguf, ["simple_python"]),
                             run("MLX in-process (/home/someone/runs/x/model)", ["multiple"])], "tiny-agent")
    assert [c["label"] for c in columns] == ["tiny-agent, Q8_0 GGUF", "tiny-agent, Q8_0 GGUF, constrained",
                                             "tiny-agent, Q8_0 GGUF (2)", "tiny-agent, MLX"]
    assert set(columns[0]["suites"]) == {"simple_python", "irrelevance"}
