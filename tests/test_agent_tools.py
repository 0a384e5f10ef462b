"""The two tools: specs, apply_patch's confinement and its error messages, shell results, call_tool dispatch.

Run: .venv/bin/python -m pytest -q tests/test_agent_tools.py
"""

import nanoagent  # noqa: F401

import os

import pytest

from nanoagent.agent.sandbox import Workspace
from nanoagent.agent.tools import APPLY_PATCH_SPEC, SHELL_SPEC, TOOLS, call_tool
from nanoagent.record import Record
from nanoagent.toolcall import check_arguments


def call(name, **args):
    return {"type": "function", "function": {"name": name, "arguments": args}}


@pytest.fixture
def ws(tmp_path):
    r = tmp_path / "repo"
    r.mkdir()
    (r / "a.py").write_text("x = 1\ny = 2\nx = 1\n")
    (r / "b.py").write_text("def f():\n    return 1\n")
    (r / "blob.bin").write_bytes(b"\x00\xffdata")
    outside = tmp_path / "outside.txt"
    outside.write_text("secret outside\n")
    os.symlink(str(outside), r / "escape.txt")
    os.symlink(str(tmp_path), r / "escape_dir")
    os.symlink("b.py", r / "inside_link.py")
    with Workspace(r) as w:
        w.outside = outside
        yield w


def test_specs_are_canonical_and_valid():
    assert TOOLS == [SHELL_SPEC, APPLY_PATCH_SPEC]
    rec = Record.from_dict({"messages": [{"role": "user", "content": "hi"}], "tools": TOOLS})
    assert rec.tools == TOOLS
    assert check_arguments({"cmd": "ls"}, SHELL_SPEC["function"]["parameters"]) == []
    assert check_arguments({"file": "a"}, APPLY_PATCH_SPEC["function"]["parameters"])  # missing search/replace


def test_patch_exactly_once(ws):
    text, ok, _ = call_tool(ws, call("apply_patch", file="b.py", search="return 1", replace="return 2"))
    assert ok and "Patched b.py at line 2" in text
    assert (ws.root / "b.py").read_text() == "def f():\n    return 2\n"


def test_patch_not_found_points_at_near_match(ws):
    text, ok, _ = call_tool(ws, call("apply_patch", file="b.py", search="def f():\n  return 1", replace="z"))
    assert not ok and "not found" in text and "line 1" in text


def test_patch_ambiguous_counts_matches(ws):
    text, ok, _ = call_tool(ws, call("apply_patch", file="a.py", search="x = 1", replace="x = 3"))
    assert not ok and "matches 2 places" in text and "lines 1, 3" in text
    assert (ws.root / "a.py").read_text() == "x = 1\ny = 2\nx = 1\n"


def test_patch_creates_new_file_with_empty_search(ws):
    text, ok, _ = call_tool(ws, call("apply_patch", file="pkg/new.py", search="", replace="A = 1\n"))
    assert ok and "Created pkg/new.py" in text
    assert (ws.root / "pkg" / "new.py").read_text() == "A = 1\n"
    text, ok, _ = call_tool(ws, call("apply_patch", file="missing.py", search="x", replace="y"))
    assert not ok and "does not exist" in text


@pytest.mark.parametrize("path", ["../outside.txt", "/etc/passwd", "escape.txt", "escape_dir/outside.txt",
                                  "pkg/../../outside.txt"])
def test_patch_confined_to_workspace(ws, path):
    text, ok, _ = call_tool(ws, call("apply_patch", file=path, search="secret", replace="pwned"))
    assert not ok and "outside the workspace" in text
    assert ws.outside.read_text() == "secret outside\n"


def test_patch_through_symlink_inside_is_allowed(ws):
    text, ok, _ = call_tool(ws, call("apply_patch", file="inside_link.py", search="return 1", replace="return 5"))
    assert ok and (ws.root / "b.py").read_text().endswith("return 5\n")


def test_patch_refuses_binary_and_folders(ws):
    text, ok, _ = call_tool(ws, call("apply_patch", file="blob.bin", search="data", replace="x"))
    assert not ok and "binary file" in text
    assert (ws.root / "blob.bin").read_bytes() == b"\x00\xffdata"
    (ws.root / "sub").mkdir()
    text, ok, _ = call_tool(ws, call("apply_patch", file="sub", search="a", replace="b"))
    assert not ok and "is a folder" in text


def test_shell_results_and_unknown_tool(ws):
    text, ok, details = call_tool(ws, call("shell", cmd="cat b.py"))
    assert ok and "return 1" in text and text.endswith("[exit code 0]")
    assert details["command"]["exit_code"] == 0
    text, ok, _ = call_tool(ws, call("shell", cmd="false"))
    assert not ok and text.endswith("[exit code 1]")
    text, ok, _ = call_tool(ws, call("shell", cmd="  "))
    assert not ok and "empty" in text
    text, ok, _ = call_tool(ws, call("python", code="1"))
    assert not ok and "Unknown tool 'python'" in text
