"""nanoagent.atomic: a write is all or nothing, even when the writer is killed mid-way.

Run: .venv/bin/python -m pytest tests/test_atomic.py -q
"""

import json
import signal
import subprocess
import sys
import time

import pytest

from nanoagent.atomic import write_json, write_text


def test_write_json_replaces_whole_and_leaves_no_temp(tmp_path):
    p = tmp_path / "sub" / "summary.json"
    write_json(p, {"a": 1})
    write_json(p, {"a": 2, "b": [1, 2]})
    assert json.loads(p.read_text()) == {"a": 2, "b": [1, 2]}
    assert p.read_text().endswith("\n")
    assert [x.name for x in p.parent.iterdir()] == ["summary.json"]


def test_a_failed_serialisation_keeps_the_old_file(tmp_path):
    p = tmp_path / "summary.json"
    write_json(p, {"ok": True})
    with pytest.raises(TypeError):
        write_json(p, {"bad": object()})
    assert json.loads(p.read_text()) == {"ok": True}
    assert [x.name for x in tmp_path.iterdir()] == ["summary.json"]


def test_killed_writer_leaves_old_or_new_never_half(tmp_path):
    """SIGKILL a process that rewrites a 20 MB file in a loop at several moments: the file always parses whole,
    and some kills land after the writer has finished at least one write (so the test saw real rewrites)."""
    p = tmp_path / "big.json"
    write_json(p, {"gen": -1, "pad": ""})
    code = ("import sys\nfrom nanoagent.atomic import write_json\n"
            f"i = 0\nwhile True:\n    write_json({str(p)!r}, {{'gen': i, 'pad': 'x' * 20_000_000}}); i += 1\n"
            "    print(i, flush=True)\n")
    rewritten = 0
    for delay in (0.3, 0.5, 0.8, 1.1, 1.5, 2.0):  # a plain write_text fails this about 1 time in 3
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        done = proc.communicate()[0].split()
        data = json.loads(p.read_text())  # never a truncated file
        assert data["gen"] == -1 or len(data["pad"]) == 20_000_000
        rewritten += bool(done)
    assert rewritten >= 3, "the writer never finished a write before being killed: the test proved nothing"


def test_the_file_mode_is_kept(tmp_path):
    import os

    p = tmp_path / "shared.md"
    write_text(p, "a")
    assert p.stat().st_mode & 0o777 == 0o666 & ~_umask()
    os.chmod(p, 0o644)
    write_text(p, "b")
    assert p.stat().st_mode & 0o777 == 0o644


def _umask() -> int:
    import os

    old = os.umask(0)
    os.umask(old)
    return old


def test_write_text_creates_parents(tmp_path):
    p = write_text(tmp_path / "a" / "b" / "r.html", "<p>hi</p>")
    assert p.read_text() == "<p>hi</p>"
