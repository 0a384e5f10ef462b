"""The agent's two tools: JSON-Schema specs and the plain functions behind them.

    shell(cmd)                          run one command in the sandboxed workspace (sandbox.Workspace.run)
    apply_patch(file, search, replace)  replace the one exact occurrence of `search` in `file` with `replace`;
                                        an empty `search` on a file that does not exist creates it

Every function returns a string the model can act on; errors say what went wrong and what to try next (not
found, ambiguous with N matches, outside the workspace, binary file, timed out, output cut). `call_tool` dispatches
a canonical tool call and never raises for anything the model did.

Usage:
    text, ok = call_tool(workspace, {"type": "function", "function": {"name": "shell", "arguments": {"cmd": "ls"}}})

The agent loop (nanoagent.agent.loop) appends REPEAT_NOTE to a shell result when the model repeats one command too
many times in a row.

Left out: deleting or renaming files through apply_patch (use `rm` / `mv` in shell), fuzzy matching (the error
points at near matches instead), files over MAX_PATCH_BYTES.
"""

from __future__ import annotations

import os
from pathlib import Path

from nanoagent.agent.sandbox import DEFAULT_TIMEOUT, Workspace

MAX_PATCH_BYTES = 1 << 20  # apply_patch refuses files larger than this
MAX_LISTED_MATCHES = 5
# Appended to a shell result once the same command has run this many times in a row (AgentConfig.repeat_warning):
# small models loop on one command (`ls`, `cat FILE`) and the unchanged output alone does not stop them.
REPEAT_NOTE = ("\n[You have run this same command {n} times in a row; its output will not change. Try something "
               "else: read another file, edit one with apply_patch, or answer if the task is done.]")

SHELL_SPEC = {"type": "function", "function": {
    "name": "shell",
    "description": ("Run one shell command in the repository folder and get its output and exit code. "
                    "Use it to list and read files (ls, cat, grep) and to run tests."),
    "parameters": {"type": "object", "properties": {
        "cmd": {"type": "string", "description": "The command, e.g. `cat src/util.py` or `python -m pytest -q`."}},
        "required": ["cmd"], "additionalProperties": False},
}}

APPLY_PATCH_SPEC = {"type": "function", "function": {
    "name": "apply_patch",
    "description": ("Edit a file: replace the exact text `search` (it must occur exactly once) with `replace`. "
                    "With an empty `search` and a new file name, create the file with `replace` as its content."),
    "parameters": {"type": "object", "properties": {
        "file": {"type": "string", "description": "Path relative to the repository root."},
        "search": {"type": "string", "description": "Exact text to find, including indentation."},
        "replace": {"type": "string", "description": "Text to put in its place."}},
        "required": ["file", "search", "replace"], "additionalProperties": False},
}}

TOOLS = [SHELL_SPEC, APPLY_PATCH_SPEC]


class ToolFailure(Exception):
    """A tool call that did not do what was asked; the message is what the model reads."""


def shell(ws: Workspace, cmd: str, timeout: float = DEFAULT_TIMEOUT) -> tuple[str, dict]:
    """Run `cmd`; returns the text for the model and the CommandResult as a dict."""
    if not cmd.strip():
        raise ToolFailure("The command is empty. Give a shell command such as `ls` or `cat FILE`.")
    result = ws.run(cmd, timeout=timeout)
    return result.text(timeout), result.to_dict()


def resolve_in_workspace(ws: Workspace, file: str) -> Path:
    """The real path of `file` inside the workspace; ToolFailure if it (or a symlink on the way) leads outside."""
    if not file.strip():
        raise ToolFailure("The file name is empty. Give a path relative to the repository root, e.g. src/app.py.")
    if "\0" in file:
        raise ToolFailure("The file name contains a NUL character.")
    root = os.path.realpath(ws.root)
    real = os.path.realpath(os.path.join(root, file))
    if real != root and not real.startswith(root + os.sep):
        raise ToolFailure(f"{file} is outside the workspace (it resolves outside the repository, through `..`, "
                          "an absolute path or a symlink). Only files inside the repository can be edited.")
    return Path(real)


def _line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def _near_match_hint(content: str, search: str) -> str:
    first = next((ln.strip() for ln in search.splitlines() if ln.strip()), "")
    if not first:
        return ""
    lines = [i + 1 for i, ln in enumerate(content.splitlines()) if first in ln]
    if lines:
        shown = ", ".join(map(str, lines[:MAX_LISTED_MATCHES]))
        return (f" Its first line `{first[:80]}` appears on line {shown}: check indentation and the following lines, "
                "and copy the text exactly (e.g. with `cat -n FILE`).")
    return " Read the file first (e.g. `cat -n FILE`) and copy the text exactly."


def apply_patch(ws: Workspace, file: str, search: str, replace: str) -> str:
    path = resolve_in_workspace(ws, file)
    rel = os.path.relpath(path, os.path.realpath(ws.root))
    if not path.exists():
        if search:
            raise ToolFailure(f"{file} does not exist. To create it, call apply_patch with an empty search; "
                              "to edit another file, check the name with `ls`.")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(replace, encoding="utf-8")
        return f"Created {rel} ({replace.count(chr(10)) + bool(replace and not replace.endswith(chr(10)))} lines)."
    if path.is_dir():
        raise ToolFailure(f"{file} is a folder, not a file. Give the path of a file inside it.")
    if not path.is_file():
        raise ToolFailure(f"{file} is not a regular file and cannot be edited.")
    size = path.stat().st_size
    if size > MAX_PATCH_BYTES:
        raise ToolFailure(f"{file} is {size} bytes, larger than the {MAX_PATCH_BYTES} bytes apply_patch edits.")
    data = path.read_bytes()
    try:
        if b"\0" in data:
            raise UnicodeDecodeError("utf-8", data, 0, 1, "NUL byte")
        content = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ToolFailure(f"{file} is a binary file (not UTF-8 text); apply_patch only edits text files.") from None
    if not search:
        raise ToolFailure(f"search is empty but {file} already exists. Give the exact text to replace "
                          "(a few lines copied from the file).")
    count = content.count(search)
    if count == 0:
        raise ToolFailure(f"The search text was not found in {file}." + _near_match_hint(content, search))
    if count > 1:
        starts, pos = [], content.find(search)
        while pos >= 0 and len(starts) < MAX_LISTED_MATCHES:
            starts.append(_line_of(content, pos))
            pos = content.find(search, pos + 1)
        raise ToolFailure(f"The search text is ambiguous: it matches {count} places in {file} (lines "
                          f"{', '.join(map(str, starts))}). Add surrounding lines so it matches exactly once.")
    index = content.index(search)
    path.write_text(content[:index] + replace + content[index + len(search):], encoding="utf-8")
    old_n, new_n = search.count("\n") + 1, replace.count("\n") + 1
    return f"Patched {rel} at line {_line_of(content, index)}: replaced {old_n} line(s) with {new_n} line(s)."


def call_tool(ws: Workspace, call: dict, timeout: float = DEFAULT_TIMEOUT) -> tuple[str, bool, dict]:
    """Run one canonical tool call. Returns (text for the model, ok, details for the trajectory)."""
    fn = call.get("function", call)
    name, args = fn.get("name"), fn.get("arguments") or {}
    try:
        if name == "shell":
            text, result = shell(ws, str(args.get("cmd", "")), timeout)
            ok = not result["timed_out"] and not result["output_overflow"] and result["exit_code"] == 0
            return text, ok, {"command": result}
        if name == "apply_patch":
            return apply_patch(ws, str(args.get("file", "")), str(args.get("search", "")),
                               str(args.get("replace", ""))), True, {}
        raise ToolFailure(f"Unknown tool {name!r}. Available tools: apply_patch, shell.")
    except ToolFailure as e:
        return f"Error: {e}", False, {"error": str(e)}
    except OSError as e:  # e.g. writing a file the sandbox made read-only
        return f"Error: {name} failed: {e.strerror or e}. Try another way.", False, {"error": repr(e)}
