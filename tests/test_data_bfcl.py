"""nanoagent.bfcl_data: the BFCL files read out of the bfcl-eval wheel without importing its code.

Run: .venv/bin/python -m pytest tests/test_data_bfcl.py -q
"""

import importlib.util
import sys

import pytest

import nanoagent.bfcl_data as bfcl
from nanoagent.toolcall import check_arguments

if importlib.util.find_spec("bfcl_eval") is None:
    pytest.skip("bfcl-eval wheel not installed: pip install --no-deps bfcl-eval", allow_module_level=True)


def test_categories_and_counts():
    cats = bfcl.categories()
    for c in ("simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance", "live_simple",
              "multi_turn_base"):
        assert c in cats
    assert "format_sensitivity" not in cats
    assert len(bfcl.load("simple_python")) == 400
    assert len(bfcl.load("irrelevance")) == 240
    assert "bfcl_eval" not in sys.modules  # read as files, never imported


def test_items_carry_messages_specs_and_answers_in_json_schema():
    item = bfcl.load("simple_python", limit=1)[0]
    assert item.id == "simple_python_0" and item.messages()[0]["role"] == "user"
    tool = item.tools()[0]["function"]
    assert tool["parameters"]["type"] == "object"  # BFCL writes "dict"
    (name, args), = item.answers[0].items()
    assert name == tool["name"]
    one_answer = {k: v[0] for k, v in args.items() if v[0] != ""}
    assert check_arguments(one_answer, tool["parameters"]) == []
    assert bfcl.load("irrelevance", limit=1)[0].answers is None
    mt = bfcl.load("multi_turn_base", limit=1)[0]
    assert len(mt.question) > 1 and mt.functions and "involved_classes" in mt.extra


def test_every_category_parses_and_tools_convert():
    for c in bfcl.categories():
        for item in bfcl.load(c, limit=3):
            assert item.question
            for t in item.tools():
                assert "dict" not in str(t["function"]["parameters"].get("type"))


def test_missing_wheel_says_how_to_install(monkeypatch):
    bfcl.data_dir.cache_clear()
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(bfcl.BFCLDataMissing, match="pip install --no-deps bfcl-eval"):
        bfcl.categories()
    monkeypatch.undo()
    bfcl.data_dir.cache_clear()
    with pytest.raises(ValueError, match="unknown BFCL category"):
        bfcl.load("simple_cobol")
