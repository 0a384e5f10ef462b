"""Every command's --help explains every option: each flag and argument has a help text that says more than its
default, the defaults read as a flag would give them (`toolcall=0.7,coding=0.3`, not a Python dict), and each
command's description is a whole paragraph, not a line cut mid-sentence.

A command is a module with `def main(` and an `if __name__ == "__main__":` block; its parser is caught as `main`
hands it argv, so nothing runs (no model, no data).

Run: .venv/bin/python -m pytest tests/test_cli_help.py -q
"""

import argparse
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("nanoagent", "train", "eval", "export", "data_recipes")


def commands() -> list[str]:
    files = [ROOT / "pipeline.py", ROOT / "specialize.py"]
    files += [p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))
              if "results" not in p.parts and not ("tasks" in p.parts and "coding" in p.parts)]
    found = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        if "def main(" in text and '__name__ == "__main__"' in text:
            found.append(".".join(path.relative_to(ROOT).with_suffix("").parts))
    return found


COMMANDS = commands()


class Caught(BaseException):
    """Raised in place of parsing: carries the parser `main` built (a BaseException: no `except Exception` in a
    main swallows it)."""

    def __init__(self, parser):
        self.parser = parser


def parser_of(module: str, monkeypatch) -> argparse.ArgumentParser:
    def catch(self, *args, **kwargs):
        raise Caught(self)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", catch)
    monkeypatch.setattr(argparse.ArgumentParser, "parse_known_args", catch)
    with pytest.raises(Caught) as caught:
        importlib.import_module(module).main(["--help"])
    return caught.value.parser


def parsers(parser, name: str):
    """(name, parser) for a parser and each of its subcommands."""
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub, subparser in action.choices.items():
                yield from parsers(subparser, f"{name} {sub}")


def test_the_commands_are_found():
    assert {"train.dft", "train.grpo", "pipeline", "specialize", "eval.toolcall", "eval.coding", "eval.specialist",
            "eval.report", "eval.html", "export.gguf", "export.hub", "data_recipes.build",
            "data_recipes.synthetic.__main__", "data_recipes.specialize", "nanoagent.cli"} <= set(COMMANDS)


@pytest.mark.parametrize("module", COMMANDS)
def test_every_option_has_help(module, monkeypatch):
    missing = []
    for name, parser in parsers(parser_of(module, monkeypatch), module):
        parser.format_help()  # renders: a stray % in a help text would raise here
        for action in parser._actions:
            if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            said = re.sub(r"\(default: [^)]*\)\s*$", "", action.help or "").strip()
            if not said or action.help == argparse.SUPPRESS:
                missing.append(f"{name} {(action.option_strings or [action.dest])[0]}")
    assert not missing, f"options without a help text: {', '.join(missing)}"


@pytest.mark.parametrize("module", COMMANDS)
def test_a_description_from_the_docstring_is_a_whole_paragraph(module, monkeypatch):
    """Regression: `python -m pipeline --help` showed the docstring's first line, cut at "It sits on top of the"."""
    doc = importlib.import_module(module).__doc__ or ""
    text = parser_of(module, monkeypatch).description or ""
    if text and doc.startswith(text):
        rest = doc[len(text):]
        assert not rest.strip() or rest.startswith("\n\n"), \
            f"{module}: the description stops mid-paragraph: ...{text[-40:]!r} (the docstring goes on {rest[:30]!r})"


def test_defaults_read_as_flags_give_them(monkeypatch):
    text = re.sub(r"\s+", " ", parser_of("train.grpo", monkeypatch).format_help())
    assert "(default: toolcall=0.7,coding=0.3)" in text.replace("= ", "=")
    assert "{'" not in text and "(default: True)" not in text and "(default: None)" not in text
    assert "(default: on)" in text and "(default: 1e-05)" in text


def test_the_trainers_flags_sit_under_headings(monkeypatch):
    for module in ("train.dft", "train.grpo"):
        parser = parser_of(module, monkeypatch)
        loose = [a.option_strings[0] for a in parser._optionals._group_actions
                 if a.option_strings[0] not in ("-h", "--config")]
        assert not loose, f"{module}: flags under no heading: {loose}"
        titles = [g.title for g in parser._action_groups if g._group_actions]
        assert titles[-1] == "output" and {"data", "model", "optimisation", "eval"} <= set(titles)
