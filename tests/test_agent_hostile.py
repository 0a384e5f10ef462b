"""Hostile commands and bad patches, run through the real loop with a scripted model against the real sandbox.

Each one must be contained: the original repo and everything outside the workspace stay untouched, and the loop
keeps going to the scripted final answer. Checks that need bubblewrap (read-only file system, no network, private
/proc) or a process cap (cgroup, or a non-root user) skip with the reason where those are missing.

Run: .venv/bin/python -m pytest -q tests/test_agent_hostile.py
"""

import nanoagent  # noqa: F401

import os
import socket
import tempfile
import threading

import pytest

from nanoagent.agent.backend import ScriptedBackend
from nanoagent.agent.loop import AgentConfig, run_agent
from nanoagent.agent.sandbox import Limits, Workspace
from nanoagent.toolcall import format_tool_call

FILE_LIMIT = 1 << 20


def shell(cmd):
    return format_tool_call("shell", {"cmd": cmd})


def patch(file, search, replace):
    return format_tool_call("apply_patch", {"file": file, "search": search, "replace": replace})


def snapshot(folder):
    out = {}
    for dirpath, dirs, files in os.walk(folder):
        for name in files + [d for d in dirs if os.path.islink(os.path.join(dirpath, d))]:
            p = os.path.join(dirpath, name)
            out[os.path.relpath(p, folder)] = os.readlink(p) if os.path.islink(p) else open(p, "rb").read()
    return out


@pytest.fixture
def setup(tmp_path):
    """A repo, a sentinel folder outside it under /tmp, and one outside /tmp (visible inside the sandbox)."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "app.py").write_text("print('hello')\n")
    (repo / "data.bin").write_bytes(bytes(range(256)))
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep me\n")
    visible_base = "/var/tmp" if os.access("/var/tmp", os.W_OK) else None
    visible = tempfile.mkdtemp(prefix="nanoagent-sentinel-", dir=visible_base)
    with open(os.path.join(visible, "keep.txt"), "w") as f:
        f.write("keep me too\n")
    os.symlink(str(outside), repo / "link_out")
    yield repo, outside, visible
    import shutil
    shutil.rmtree(visible, ignore_errors=True)


def run(repo, replies, **cfg):
    ws = Workspace(repo, limits=Limits(file_size_bytes=FILE_LIMIT, cpu_seconds=20))
    config = AgentConfig(command_timeout=cfg.pop("command_timeout", 3.0), max_turns=len(replies) + 1, **cfg)
    try:
        traj = run_agent(ScriptedBackend(replies + ["done"]), ws, "misbehave", config)
    finally:
        protections = ws.protections()
        ws.close()
    assert traj.exit_status == "answered", traj.exit_message  # the loop kept going to the end
    assert len(traj.steps) == len(replies) + 1
    return traj, protections


def results(traj):
    return [s.results[0] if s.results else {"text": s.error["message"], "ok": False} for s in traj.steps[:-1]]


def test_patches_outside_or_binary_are_refused(setup):
    repo, outside, visible = setup
    before, before_out = snapshot(repo), snapshot(outside)
    traj, _ = run(repo, [patch("../outside/keep.txt", "keep", "pwned"),
                         patch("link_out/keep.txt", "keep", "pwned"),
                         patch(os.path.join(visible, "keep.txt"), "keep", "pwned"),
                         patch("data.bin", "\u0001", "x")])
    texts = [r["text"] for r in results(traj)]
    assert all("outside the workspace" in t for t in texts[:3]), texts
    assert "binary file" in texts[3]
    assert snapshot(repo) == before and snapshot(outside) == before_out
    assert open(os.path.join(visible, "keep.txt")).read() == "keep me too\n"
    assert traj.diff == ""


def test_secrets_in_environment_are_not_visible(setup, monkeypatch):
    repo, _, _ = setup
    monkeypatch.setenv("OPENAI_API_KEY", "sk-nanoagent-secret")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_nanoagent_secret")
    traj, prot = run(repo, [shell("env"), shell("echo $OPENAI_API_KEY $GITHUB_TOKEN"),
                            shell("cat /proc/*/environ | tr '\\0' '\\n' | grep -c secret")])
    for r in results(traj)[:2]:
        assert "secret" not in r["text"].replace("grep -c secret", "")
    if prot["private process namespace"]:
        assert results(traj)[2]["text"].endswith("0\n[exit code 1]")  # no process in view carries the secret


def test_writes_and_deletes_outside_are_contained(setup):
    repo, outside, visible = setup
    with Workspace(repo) as probe:
        has_bwrap = bool(probe.bwrap)
    if not has_bwrap:
        pytest.skip("bubblewrap is not available: writes outside the workspace are only blocked by it")
    before, before_out = snapshot(repo), snapshot(outside)
    traj, prot = run(repo, [
        shell(f"rm -rf {outside} {visible}"),
        shell(f"python -c \"open('{visible}/new.txt', 'w').write('x')\""),
        shell(f"python -c \"open('{repo}/app.py', 'w').write('pwned')\""),
        shell(f"touch {visible}/keep.txt {outside}/x"),
        shell("python -c \"import os; os.remove('link_out/keep.txt')\""),
    ])
    assert prot["read-only file system outside the workspace"]
    assert snapshot(repo) == before and snapshot(outside) == before_out
    assert sorted(os.listdir(visible)) == ["keep.txt"]
    assert "No such file or directory" in results(traj)[1]["text"]  # a host folder outside: not even there
    assert traj.diff == ""


def test_visible_system_paths_are_read_only(setup):
    import sys

    repo, _, _ = setup
    traj, prot = run(repo, [shell(f"python -c \"open('{sys.prefix}/pwned.txt', 'w')\"")])
    if not prot["read-only file system outside the workspace"]:
        pytest.skip("bubblewrap is not available")
    assert "Read-only file system" in results(traj)[0]["text"] or "Permission denied" in results(traj)[0]["text"]
    assert not os.path.exists(f"{sys.prefix}/pwned.txt")


def test_host_files_are_not_readable(setup, tmp_path):
    """Canaries: a key under the home folder, a file beside the repo's project, /etc/shadow. None may appear."""
    from pathlib import Path

    repo, _, _ = setup
    home_key = Path.home() / f".nanoagent-canary-{os.getpid()}" / "id_ed25519"
    home_key.parent.mkdir(exist_ok=True)
    home_key.write_text("CANARY-HOME-KEY\n")
    beside = Path(__file__).resolve().parents[1] / f".nanoagent-canary-{os.getpid()}.txt"  # the project folder
    beside.write_text("CANARY-PROJECT\n")
    try:
        traj, prot = run(repo, [shell(f"cat {home_key}"), shell(f"cat {beside}"), shell("head -3 /etc/shadow"),
                                shell(f"ls -la {Path.home()}"), shell(f"ls {beside.parent}"),
                                shell(f"grep -r CANARY {Path.home()} {beside.parent} 2>/dev/null | head -3")])
    finally:
        home_key.unlink()
        home_key.parent.rmdir()
        beside.unlink()
    if not prot["host files hidden (home, other projects, /etc secrets)"]:
        pytest.skip("bubblewrap is not available: host files are only hidden by it")
    seen = "\n".join(r["text"] for r in results(traj))
    assert "CANARY" not in seen.replace("grep -r CANARY", "")
    assert "root:" not in seen  # no line of /etc/shadow
    listings = results(traj)[3]["text"] + results(traj)[4]["text"]
    assert "nanoagent-canary" not in listings  # the folders are not listed with the planted files


def test_network_connection_is_refused(setup):
    repo, _, _ = setup
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(0.1)
    port = server.getsockname()[1]
    got = []

    def accept():
        try:
            got.append(server.accept())
        except OSError:
            pass
    code = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=2); print('CONNECTED')"
    try:
        traj, prot = run(repo, [shell(f'python -c "{code}"')])
        thread = threading.Thread(target=accept)
        thread.start()
        thread.join()
    finally:
        server.close()
    if not prot["no network"]:
        pytest.skip("bubblewrap is not available: the network is not isolated")
    text = results(traj)[0]["text"]
    assert "CONNECTED" not in text and "Error" in text and got == []


def test_endless_output_and_sleep_forever_are_stopped(setup):
    repo, _, _ = setup
    traj, _ = run(repo, [shell("yes"), shell("sleep 100000"), shell("echo alive")], command_timeout=2.0)
    r = results(traj)
    assert r[0]["command"]["output_overflow"] and "show less output" in r[0]["text"]
    assert r[1]["command"]["timed_out"] and "timed out after 2 s" in r[1]["text"]
    assert r[1]["seconds"] < 6
    assert r[2]["text"].startswith("alive")


def test_huge_file_is_capped(setup):
    repo, _, _ = setup
    traj, _ = run(repo, [shell("python -c \"open('big','wb').truncate(10**10)\""),
                         shell("head -c 10000000000 /dev/zero | python -c \"import sys, shutil; "
                               "shutil.copyfileobj(sys.stdin.buffer, open('big2', 'wb'))\""),
                         shell("ls -la")])
    r = results(traj)
    assert "File too large" in r[0]["text"]
    assert "SIGXFSZ" in r[1]["text"] or "File too large" in r[1]["text"]
    assert r[1]["seconds"] < 10
    assert r[2]["text"].endswith("[exit code 0]")


def test_fork_bomb_is_contained(setup):
    repo, _, _ = setup
    ws = Workspace(repo)
    capped = ws.protections()["process count limit"]
    ws.close()
    if not capped:
        pytest.skip("no process cap here (root without a writable cgroup): a fork bomb would not be contained")
    traj, _ = run(repo, [shell("bomb() { bomb | bomb & }; bomb"), shell("echo alive")], command_timeout=3.0)
    r = results(traj)
    assert r[0]["seconds"] < 8
    assert r[1]["text"].startswith("alive")
