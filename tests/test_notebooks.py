"""The notebooks in notebooks/ run from top to bottom without an error and show what they are about.

    .venv/bin/python -m pytest tests/test_notebooks.py -q

Each notebook is executed headless with nbclient on the `python3` kernel, which the ipykernel package installs
into this venv (its kernel.json starts "python", which jupyter_client replaces with this interpreter; the first
check below proves it). The kernel runs in the repo root so the notebooks' relative paths work; the copy that runs
lives in memory (the .ipynb files keep no outputs) and everything the notebooks write goes to pytest's tmp folder
(`NANOAGENT_NOTEBOOK_OUT`). `NANOAGENT_NOTEBOOK_FAST=1` picks their tiny settings: 2 SFT steps on the fixtures
data with the embedded model, 3 agent turns of 96 tokens through llama.cpp.

Left out: comparing outputs with stored ones (model replies and timings differ between machines).
"""

import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat", reason="the notebook tests need the dev extra (nbformat, nbclient)")
nbclient = pytest.importorskip("nbclient", reason="the notebook tests need the dev extra (nbformat, nbclient)")
pytest.importorskip("ipykernel", reason="the notebook tests need the dev extra (ipykernel)")

pytestmark = pytest.mark.slow  # the embedded model and llama.cpp: about a minute for the file

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 300  # seconds per cell; the slowest cell (2 SFT steps or 3 agent turns) takes 10-20 s

# Text each notebook's outputs must contain, besides running without an error.
CHECKS = {
    "01_data": "<|im_start|>assistant\n<tool_call>",  # a tool-calling row rendered as ChatML
    "02_train": "image/png",                           # the loss curves were drawn
    "03_agent": "+    return a + b",                   # the diff of the fixing run
    "quickstart": "supervised",                        # the loss mask shown on the rendered record
}


def execute(name: str, tmp_path: Path, monkeypatch) -> str:
    """Run notebooks/NAME.ipynb with the fast settings; returns every output of every cell as one string."""
    monkeypatch.setenv("NANOAGENT_NOTEBOOK_FAST", "1")
    monkeypatch.setenv("NANOAGENT_NOTEBOOK_OUT", str(tmp_path))
    nb = nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", as_version=4)
    for cell in nb.cells:
        assert not cell.get("outputs") and cell.get("execution_count") is None, \
            f"{name}.ipynb ships with outputs: clear them before committing"
    nb.cells.insert(0, nbformat.v4.new_code_cell("import sys; print(sys.executable)"))
    client = nbclient.NotebookClient(nb, timeout=TIMEOUT, kernel_name="python3",
                                     resources={"metadata": {"path": str(ROOT)}})
    client.execute()  # raises CellExecutionError, with the cell and its traceback, when a cell fails
    shown = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            shown.append(out.get("text", ""))
            shown.extend(str(v) if k.startswith("text/") else k for k, v in out.get("data", {}).items())
    assert nb.cells[0].outputs[0]["text"].strip() == sys.executable, "the kernel is not this venv's python"
    return "\n".join(shown)


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_notebook_runs(name, tmp_path, monkeypatch):
    shown = execute(name, tmp_path, monkeypatch)
    assert CHECKS[name] in shown, f"{name}.ipynb ran but its outputs lack {CHECKS[name]!r}"
