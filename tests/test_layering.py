"""Imports point down: the library (nanoagent/) imports no stage, and a stage imports the library and itself,
never another stage (stages share files on disk, not code). bench/, pipeline.py and tests/ sit on top.

Run: .venv/bin/python -m pytest tests/test_layering.py -q
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OURS = {"nanoagent", "data_recipes", "train", "eval", "export", "bench", "pipeline"}
LAYERS = {"nanoagent": {"nanoagent"}, **{s: {"nanoagent", s} for s in ("data_recipes", "train", "eval", "export")}}


def imported_packages(path: Path) -> set[tuple[str, int]]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {(a.name.split(".")[0], node.lineno) for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add((node.module.split(".")[0], node.lineno))
    return {(name, line) for name, line in found if name in OURS}


@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_imports_point_down(layer):
    wrong = []
    for path in sorted((ROOT / layer).rglob("*.py")):
        if "coding" in path.parts and "tasks" in path.parts:  # the coding tasks' own little repos
            continue
        wrong += [f"{path.relative_to(ROOT)}:{line} imports {name}" for name, line in imported_packages(path)
                  if name not in LAYERS[layer]]
    assert not wrong, "\n".join(wrong)
