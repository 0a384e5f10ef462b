"""Workspace: the copy, commands (timeouts, truncation, environment), the complete diff and apply_to.

Run: .venv/bin/python -m pytest -q tests/test_agent_sandbox.py
"""

import nanoagent  # noqa: F401  (before anything imports mlx)

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from nanoagent.agent.sandbox import CAPTURE_LIMIT, OUTPUT_LIMIT, Workspace, cut_output


@pytest.fixture
def repo(tmp_path):
    r = tmp_path / "repo"
    (r / "pkg").mkdir(parents=True)
    (r / "pkg" / "mod.py").write_text("def f():\n    return 1\n")
    (r / "notes.txt").write_text("line one\nline two\n")
    (r / "old_name.txt").write_text("moved content\n")
    (r / "gone.txt").write_text("to be deleted\n")
    (r / "blob.bin").write_bytes(b"\x00\x01\x02binary")
    (r / "run.sh").write_text("echo hi\n")
    os.symlink("notes.txt", r / "link")
    return r


def snapshot(folder):
    out = {}
    for dirpath, _, files in os.walk(folder):
        for name in files:
            p = os.path.join(dirpath, name)
            out[os.path.relpath(p, folder)] = os.readlink(p) if os.path.islink(p) else open(p, "rb").read()
    return out


def test_bad_repo_gets_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        Workspace(tmp_path / "nope")
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(NotADirectoryError, match="not a folder"):
        Workspace(tmp_path / "file.txt")


def test_copy_without_git_and_commands_run_in_it(repo):
    with Workspace(repo) as ws:
        assert ws.root != repo and (ws.root / "pkg" / "mod.py").read_text() == "def f():\n    return 1\n"
        r = ws.run("cat notes.txt; ls")
        assert r.exit_code == 0 and "line two" in r.output and "pkg" in r.output
        assert r.text().endswith("[exit code 0]")
        assert ws.run("exit 3").exit_code == 3
        assert ws.diff() == ""


def test_diff_covers_new_deleted_renamed_binary_mode_and_symlink(repo, tmp_path):
    before = snapshot(repo)
    with Workspace(repo) as ws:
        (ws.root / "pkg" / "mod.py").write_text("def f():\n    return 2\n")
        (ws.root / "new.txt").write_text("brand new\nno newline at end")
        (ws.root / "gone.txt").unlink()
        (ws.root / "old_name.txt").rename(ws.root / "pkg" / "new_name.txt")
        (ws.root / "blob.bin").write_bytes(b"\x00changed")
        os.chmod(ws.root / "run.sh", 0o755)
        (ws.root / "link").unlink()
        os.symlink("pkg/mod.py", ws.root / "link")
        (ws.root / "__pycache__").mkdir()
        (ws.root / "__pycache__" / "x.pyc").write_bytes(b"cache")  # tool debris is not a change
        diff = ws.diff()
        assert "diff --git a/new.txt b/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/new.txt\n" in diff
        assert "\\ No newline at end of file" in diff
        assert "diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\n" in diff
        assert "rename from old_name.txt\nrename to pkg/new_name.txt\n" in diff
        assert "Binary files a/blob.bin and b/blob.bin differ" in diff
        assert "old mode 100644\nnew mode 100755" in diff
        assert "-    return 1\n+    return 2\n" in diff
        assert "-notes.txt\n\\ No newline at end of file\n+pkg/mod.py" in diff
        assert "__pycache__" not in diff

        # the diff is a real patch: git apply turns a copy of the original into the workspace (text changes)
        if shutil.which("git"):
            target = tmp_path / "target"
            shutil.copytree(repo, target, symlinks=True)
            text_only = "diff --git" + "diff --git".join(
                part for part in diff.split("diff --git")[1:] if "Binary files" not in part)
            subprocess.run(["git", "apply", "-"], input=text_only.encode(), cwd=target, check=True)
            got, want = snapshot(target), snapshot(ws.root)
            for key in ("pkg/mod.py", "new.txt", "pkg/new_name.txt", "link"):
                assert got[key] == want[key]
            assert "gone.txt" not in got and "old_name.txt" not in got

        result = ws.apply_to()
        assert result["conflicts"] == []
    after = snapshot(repo)
    assert after["pkg/mod.py"] == b"def f():\n    return 2\n" and "gone.txt" not in after
    assert after["pkg/new_name.txt"] == b"moved content\n" and after["link"] == "pkg/mod.py"
    assert after != before


def test_apply_to_leaves_files_changed_meanwhile(repo):
    with Workspace(repo) as ws:
        (ws.root / "notes.txt").write_text("agent edit\n")
        (repo / "notes.txt").write_text("someone else edited this\n")
        result = ws.apply_to()
    assert result["conflicts"] == ["notes.txt"]
    assert (repo / "notes.txt").read_text() == "someone else edited this\n"


def test_apply_to_refuses_symlinks_that_point_outside_the_repo(repo):
    with Workspace(repo) as ws:
        os.symlink("/etc/passwd", ws.root / "abs_link")
        os.symlink("../../outside.txt", ws.root / "pkg" / "up_link")
        os.symlink("../notes.txt", ws.root / "pkg" / "inside_link")
        os.remove(ws.root / "link")
        os.symlink("..", ws.root / "link")  # a changed link is checked too
        result = ws.apply_to()
    assert sorted(result["refused_links"]) == ["abs_link -> /etc/passwd", "link -> ..",
                                               "pkg/up_link -> ../../outside.txt"]
    assert os.readlink(repo / "pkg" / "inside_link") == "../notes.txt"  # a link within the repo is applied
    assert not (repo / "abs_link").exists() and not (repo / "pkg" / "up_link").is_symlink()
    assert os.readlink(repo / "link") == "notes.txt"


def test_original_untouched_without_apply(repo):
    before = snapshot(repo)
    with Workspace(repo) as ws:
        ws.run("rm -f notes.txt pkg/mod.py")
        assert "deleted file mode" in ws.diff()
    assert snapshot(repo) == before


def test_cut_output_is_deterministic_and_keeps_head_and_tail():
    text = "".join(f"line {i}\n" for i in range(5000))
    a, cut = cut_output(text)
    assert cut and a == cut_output(text)[0]
    assert a.startswith("line 0\n") and a.endswith("line 4999\n")
    assert f"output was {len(text)} characters" in a
    assert len(a) < OUTPUT_LIMIT + 200
    assert cut_output("short") == ("short", False)


def test_long_output_is_cut_in_results(repo):
    with Workspace(repo) as ws:
        r = ws.run("seq 1 20000")
        assert r.truncated and r.exit_code == 0
        assert r.output.startswith("1\n2\n") and r.output.rstrip().endswith("20000")
        assert r.output == ws.run("seq 1 20000").output  # same command, same bytes


def test_endless_output_is_stopped(repo):
    with Workspace(repo) as ws:
        r = ws.run("yes", timeout=20)
        assert r.output_overflow and not r.timed_out and r.seconds < 10
        assert f"more than {CAPTURE_LIMIT} bytes" in r.text()


def test_timeout_kills_the_whole_group(repo):
    with Workspace(repo) as ws:
        r = ws.run("sleep 987 & sleep 986", timeout=1)
        assert r.timed_out and r.exit_code is None and r.seconds < 5
        assert "timed out after 1 s" in r.text(1)
        r = ws.run("sleep 985 & echo started")  # leftovers of a finished command are killed too
        assert r.exit_code == 0 and "started" in r.output
    alive = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read()
        except OSError:
            continue
        if cmd in (b"sleep\x00987\x00", b"sleep\x00986\x00", b"sleep\x00985\x00"):
            alive.append(pid)
    assert alive == []


def test_environment_is_scrubbed(repo, monkeypatch):
    monkeypatch.setenv("NANOAGENT_TEST_TOKEN", "sk-secret-123")
    monkeypatch.setenv("HF_TOKEN", "hf_secret_456")
    with Workspace(repo) as ws:
        r = ws.run("env")
        assert "secret" not in r.output
        assert f"HOME={ws.tmp}" in r.output and "PYTHONDONTWRITEBYTECODE=1" in r.output


def test_python_found_through_a_symlinked_virtual_environment(repo, tmp_path, monkeypatch):
    # a worktree whose .venv links to the checkout's: the sandbox binds real paths, so PATH must name the real one
    import sys

    link = tmp_path / "linked-venv"
    link.symlink_to(Path(sys.executable).parent.parent.resolve() if sys.prefix == sys.base_prefix
                    else Path(sys.prefix).resolve())
    monkeypatch.setattr(sys, "executable", str(link / "bin" / Path(sys.executable).name))
    with Workspace(repo) as ws:
        r = ws.run("python -c 'print(40 + 2)'")
        assert r.exit_code == 0 and r.output.strip() == "42", r.output


def test_a_virtual_environment_under_tmp_stays_visible(repo, tmp_path, monkeypatch):
    # a clone whose venv lives under /tmp (a CI runner, a throwaway clone): the sandbox's fresh /tmp must not hide it
    import sys
    import venv

    env = tmp_path / "venv-under-tmp"
    venv.EnvBuilder(symlinks=False, with_pip=False).create(env)  # its own copy of python, so it resolves under /tmp
    monkeypatch.setattr(sys, "executable", str(env / "bin" / "python"))
    with Workspace(repo) as ws:
        if not ws.bwrap:
            pytest.skip("bubblewrap does not run here")
        assert str(env).startswith("/tmp/")
        r = ws.run("python -c 'import sys; print(sys.prefix)'")
        assert r.exit_code == 0 and r.output.strip() == str(env), r.output
        assert "No such file" in ws.run(f"cat {tmp_path}/repo/notes.txt").output  # the rest of /tmp stays hidden


def test_rbash_blocks_redirection_and_cd(repo):
    with Workspace(repo) as ws:
        assert "restricted" in ws.run("echo x > out.txt").output
        assert "restricted" in ws.run("cd pkg").output
        assert not (ws.root / "out.txt").exists()


def test_protections_are_described_without_bubblewrap(repo):
    with Workspace(repo, use_bwrap=False) as ws:
        text = ws.describe_protections()
        assert "NOT active here" in text and "no network" in text and "bubblewrap" in text
        assert ws.run("echo ok").output == "ok\n"  # still works without bubblewrap


def test_forgotten_workspace_is_cleaned_up(repo):
    import gc

    ws = Workspace(repo)
    base, cgroup = ws.base, ws.cgroup
    del ws
    gc.collect()
    assert not base.exists()
    if cgroup is not None:
        assert not cgroup.folders[0].exists()


def test_apply_to_folder_turned_into_file(repo):
    with Workspace(repo) as ws:
        shutil.rmtree(ws.root / "pkg")
        (ws.root / "pkg").write_text("now a file\n")
        assert "deleted file mode" in ws.diff() and "diff --git a/pkg b/pkg\nnew file mode" in ws.diff()
        assert ws.apply_to()["conflicts"] == []
    assert (repo / "pkg").read_text() == "now a file\n"
