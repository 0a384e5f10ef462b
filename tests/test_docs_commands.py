"""The commands the READMEs show exist as shown: every `python -m MODULE ...` and `nanoagent SUB ...` line in a
README names an importable module, its `--help` works, and every `--flag` the line uses is one that command takes.

Run: .venv/bin/python -m pytest tests/test_docs_commands.py -q
"""

import contextlib
import importlib
import importlib.util
import io
import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted(ROOT.glob("*/README.md"))]
COMMAND = re.compile(r"(?:python -m ([a-z_][\w.]*)|(?<![\w/.-])(?:\.venv/bin/)?nanoagent (run|serve|agent|specialize))"
                     r"((?:[^\n`|;&#)])*)")
SKIP = {"pytest", "pip", "venv", "mlx_lm.lora", "mlx_lm.fuse", "mlx_lm.generate", "mlx_lm.server", "llama_cpp.server"}
SUBCOMMANDS = {"eval.html": ("report", "trajectories"), "nanoagent.cli": ("run", "serve", "agent")}


def doc_commands():
    found = {}
    for doc in DOCS:
        for m in COMMAND.finditer(doc.read_text(encoding="utf-8")):
            module, sub, rest = m.group(1), m.group(2), m.group(3)
            if module in SKIP:
                continue
            if sub == "specialize":  # nanoagent specialize is python -m specialize
                module, sub = "specialize", None
            elif sub:
                module, rest = "nanoagent.cli", f"{sub} {rest}"
            try:
                words = shlex.split(rest.replace("\\\n", " "))
            except ValueError:
                words = rest.split()
            found.setdefault((module, words[0] if words and module in SUBCOMMANDS else None), set()).update(
                w.split("=")[0] for w in words if w.startswith("--") and len(w) > 2)
            found[(module, words[0] if words and module in SUBCOMMANDS else None)].add(f"@{doc.relative_to(ROOT)}")
    return found


COMMANDS = doc_commands()


def help_text(module: str, sub: str | None) -> str:
    package = importlib.util.find_spec(module).submodule_search_locations is not None
    mod = importlib.import_module(module + ".__main__" if package else module)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()), pytest.raises(SystemExit) as e:
        mod.main([sub, "--help"] if sub else ["--help"])
    assert e.value.code == 0, f"python -m {module} {sub or ''} --help exited {e.value.code}"
    return out.getvalue()


def test_the_readmes_show_commands():
    modules = {m for m, _ in COMMANDS}
    assert {"train.dft", "eval.toolcall", "export.gguf", "data_recipes.build", "nanoagent.cli", "specialize"} <= modules


@pytest.mark.parametrize("module, sub", sorted(COMMANDS, key=str), ids=lambda x: str(x))
def test_readme_command_exists_with_its_flags(module, sub):
    flags = {f for f in COMMANDS[(module, sub)] if not f.startswith("@")}
    where = ", ".join(sorted(f[1:] for f in COMMANDS[(module, sub)] if f.startswith("@")))
    assert importlib.util.find_spec(module) is not None, f"{where}: python -m {module} does not exist"
    if sub is not None:
        assert sub in SUBCOMMANDS[module], f"{where}: {module} has no subcommand {sub!r}"
    text = help_text(module, sub)
    missing = sorted(f for f in flags if not re.search(re.escape(f) + r"(?![\w-])", text))
    assert not missing, f"{where}: `{module} {sub or ''}` shows {missing}, which its --help does not list"


@pytest.mark.parametrize("module", ["data_recipes.synthetic", "train.dft", "train.grpo", "eval.toolcall",
                                    "eval.coding", "export.gguf", "export.hub"])
def test_the_commands_the_readme_says_take_a_config_do(module):
    assert re.search(r"--config(?![\w-])", help_text(module, None)), f"python -m {module} has no --config"
