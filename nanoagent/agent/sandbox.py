"""A sandboxed workspace: a fresh copy of a folder where the agent's commands run, and the diff it leaves.

`Workspace(repo)` copies `repo` twice into a new temporary folder (`pristine/`, kept for the diff, and `work/`,
where commands run; any folder works, no git needed). `run(cmd, timeout)` runs one shell command in `work/`:

- under rbash (`bash -r` where there is no rbash): no `cd`, no `/` in command names, no redirections;
- in its own process group, killed as a whole (SIGKILL) on timeout, on endless output and when the command ends
  (background leftovers never outlive the command);
- with a scrubbed environment (PATH, HOME and TMPDIR inside the sandbox's own tmp/, locale; no tokens or keys);
- with resource limits per process: CPU seconds, file size, address space, number of processes (RLIMIT_NPROC,
  which the kernel ignores for root);
- on Linux where cgroups can be written (root): in a throwaway cgroup capping processes and memory for all the
  command's processes together, all killed at the end (cgroup.py);
- on Linux with bubblewrap: only system folders, the Python in use and a few /etc files are visible, read-only
  (`visible_paths`); home folders, other projects, keys and /etc's secrets do not exist inside; work/ and tmp/ are
  the only writable places; no network, private PID/IPC/UTS namespaces, all capabilities dropped, and where user
  namespaces are allowed the commands run as an unprivileged user (uid 65534).
Output (stdout and stderr merged) is read up to CAPTURE_LIMIT bytes, then cut deterministically to OUTPUT_LIMIT
characters keeping the head and the tail. `protections()` says which of these are active here.

Usage:
    with Workspace("examples/sample_repo") as ws:
        print(ws.run("python -m pytest -q").text())
        print(ws.diff()); ws.apply_to("examples/sample_repo")

Left out: disk quotas (file size is capped per file, not in total), seccomp filters, containment of `setsid`
escapes where there is neither bubblewrap nor a cgroup.
"""

from __future__ import annotations

import os
import selectors
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import weakref
from dataclasses import asdict, dataclass
from pathlib import Path

from nanoagent.agent.cgroup import CGroup
from nanoagent.agent.diff import scan, tree_changes, unified_diff

OUTPUT_LIMIT = 4000          # characters of command output the model sees (head and tail halves kept)
CAPTURE_LIMIT = 1 << 20      # bytes read from a command before it is stopped as endless output
DEFAULT_TIMEOUT = 30.0       # seconds per command
LEFTOVER_GRACE = 0.2         # seconds to drain output after the shell exits, before its group is killed


@dataclass
class Limits:
    """Resource limits for every command (per process, as setrlimit applies them)."""
    cpu_seconds: int = 60
    file_size_bytes: int = 64 << 20
    memory_bytes: int = 4 << 30          # address space
    extra_processes: int = 256           # RLIMIT_NPROC: over what this user already runs
    max_processes: int = 256             # cgroup pids.max: all the workspace's processes together


@dataclass
class CommandResult:
    cmd: str
    output: str                  # stdout+stderr, already cut to OUTPUT_LIMIT
    exit_code: int | None        # None when the harness killed the command
    seconds: float
    timed_out: bool = False
    output_overflow: bool = False    # stopped after CAPTURE_LIMIT bytes
    truncated: bool = False          # the output was cut to OUTPUT_LIMIT
    output_chars: int = 0            # characters before cutting

    def text(self, timeout: float | None = None) -> str:
        """The result as the model reads it: output, then one status line in brackets."""
        body = self.output if self.output.endswith("\n") or not self.output else self.output + "\n"
        if self.timed_out:
            status = (f"[command timed out after {timeout or self.seconds:g} s and was killed with all its processes; "
                      "run something shorter or limit it, e.g. `timeout 5 cmd` or `head -n 50`]")
        elif self.output_overflow:
            status = (f"[command stopped: it printed more than {CAPTURE_LIMIT} bytes; show less output, e.g. pipe "
                      "it through `head -n 50` or `tail -n 50`]")
        else:
            status = f"[exit code {self.exit_code}{_signal_note(self.exit_code)}]"
        return body + status

    def to_dict(self) -> dict:
        return asdict(self)


def _signal_note(code: int | None) -> str:
    if code is None:
        return ""
    sig = -code if code < 0 else code - 128 if 128 < code < 160 else 0
    notes = {signal.SIGXFSZ: "file size limit reached", signal.SIGXCPU: "CPU time limit reached",
             signal.SIGKILL: "killed", signal.SIGSEGV: "crashed", signal.SIGABRT: "aborted"}
    if sig in notes:
        return f": {signal.Signals(sig).name}, {notes[sig]}"
    return ""


def cut_output(text: str, limit: int = OUTPUT_LIMIT) -> tuple[str, bool]:
    """Keep the first and last limit/2 characters of text with a note of what was cut; deterministic."""
    if len(text) <= limit:
        return text, False
    half = limit // 2
    cut = len(text) - 2 * half
    note = f"\n[... {cut} characters cut from the middle; output was {len(text)} characters ...]\n"
    return text[:half] + note + text[-half:], True


def _count_processes(uid: int) -> int | None:
    if sys.platform.startswith("linux"):
        n = 0
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    n += os.stat(f"/proc/{name}").st_uid == uid
                except OSError:
                    pass
        return n
    try:
        out = subprocess.run(["ps", "-U", str(uid), "-o", "pid="], capture_output=True, text=True, timeout=5)
        return len(out.stdout.split())
    except (OSError, subprocess.SubprocessError):
        return None


def _cleanup(owned: dict):
    base, cgroup = owned["base"], owned["cgroup"]
    if cgroup is not None:
        cgroup.remove()
    for dirpath, dirnames, _ in os.walk(base):  # the agent may have made folders read-only
        for name in dirnames:
            try:
                os.chmod(os.path.join(dirpath, name), 0o700)
            except OSError:
                pass
    shutil.rmtree(base, ignore_errors=True)


_BWRAP_OK: dict[int, tuple[bool, bool]] = {}  # per effective uid: (bubblewrap works, with a user namespace)
AGENT_UID = 65534  # "nobody": the agent's user inside the sandbox where a user namespace is allowed
# Host paths the agent sees, read-only: programs, libraries, the interpreter, and the few /etc files they read.
# Home folders, other projects, keys, shell histories and /etc's secrets are not bound, so they do not exist inside.
SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt")
ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime", "nsswitch.conf", "passwd",
             "group", "hosts", "ssl", "ca-certificates", "mime.types", "gitconfig", "python3", "os-release")


def visible_paths() -> list[str]:
    """The read-only binds of the sandbox: system folders, the /etc files programs need, and the Python in use
    (its environment and the installation it was made from, wherever they live, a home folder included)."""
    pythons = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    pythons.add(Path(sys.executable).resolve().parent.parent)
    return list(SYSTEM_PATHS) + [f"/etc/{name}" for name in ETC_FILES] + sorted(str(p) for p in pythons)


def points_outside(link_path: str, link_text: str) -> bool:
    """Does a symlink at `link_path` (relative to the repo root) holding `link_text` lead outside the repo?"""
    if os.path.isabs(link_text):
        return True
    resolved = os.path.normpath(os.path.join(os.path.dirname(link_path), link_text))
    return resolved == ".." or resolved.startswith("../")


class Workspace:
    """A fresh copy of `repo` with a sandbox to run commands in. Close it (or use `with`) to delete the copies."""

    def __init__(self, repo: str | Path, *, limits: Limits | None = None, use_bwrap: bool | None = None,
                 use_cgroup: bool = True, base_dir: str | Path | None = None):
        repo = Path(repo).expanduser()
        if not repo.exists():
            raise FileNotFoundError(f"repo {str(repo)!r} does not exist: pass the folder the agent should work on")
        if not repo.is_dir():
            raise NotADirectoryError(f"repo {str(repo)!r} is not a folder: pass the folder the agent should work on")
        self.repo = repo.resolve()
        self.limits = limits or Limits()
        self.base = Path(tempfile.mkdtemp(prefix="nanoagent-", dir=base_dir)).resolve()
        self.pristine, self.root, self.tmp = self.base / "pristine", self.base / "work", self.base / "tmp"
        self.skipped: list[str] = []  # sockets, fifos, devices: not copied
        # cleanup even when the owner forgets close() (runs at garbage collection or interpreter exit)
        self._owned: dict = {"base": self.base, "cgroup": None}
        self._finalizer = weakref.finalize(self, _cleanup, self._owned)
        try:
            self._copy(self.pristine, record=True)
            self._copy(self.root, record=False)
        except (OSError, shutil.Error) as e:
            self.close()
            raise OSError(f"could not copy repo {str(self.repo)!r} into the workspace: {e}") from None
        self.tmp.mkdir()
        self.cgroup = None
        if use_cgroup and sys.platform.startswith("linux"):
            self.cgroup = self._owned["cgroup"] = CGroup.create(self.limits.max_processes, self.limits.memory_bytes)
        self.rbash = shutil.which("rbash")
        self._userns = False
        want_bwrap = sys.platform.startswith("linux") if use_bwrap is None else use_bwrap
        self.bwrap = shutil.which("bwrap") if want_bwrap else None
        if self.bwrap and not self._bwrap_works():
            self.bwrap = None

    # --- setup -------------------------------------------------------------------------------------------------
    def _copy(self, dest: Path, record: bool):
        def ignore(folder, names):
            bad = []
            for n in names:
                p = os.path.join(folder, n)
                if not (os.path.islink(p) or os.path.isdir(p) or os.path.isfile(p)):
                    bad.append(n)
                    if record:
                        self.skipped.append(os.path.relpath(p, self.repo))
            return bad

        shutil.copytree(self.repo, dest, symlinks=True, ignore=ignore)

    def _bwrap_works(self) -> bool:
        """Does bubblewrap run here, and can it also map the agent to an unprivileged user (a user namespace)?
        Found once per effective uid; sets `self._userns`."""
        key = os.geteuid()
        if key not in _BWRAP_OK:
            _BWRAP_OK[key] = (False, False)
            for userns in (True, False):
                self._userns = userns
                try:
                    r = subprocess.run(self._limited(self._argv("true"), None), env=self._env(), cwd=self.root,
                                       capture_output=True, timeout=20)
                except (OSError, subprocess.SubprocessError):
                    continue
                if r.returncode == 0:
                    _BWRAP_OK[key] = (True, userns)
                    break
        works, self._userns = _BWRAP_OK[key]
        return works

    def protections(self) -> dict[str, bool]:
        """Which protections are active for commands in this workspace."""
        bw = bool(self.bwrap)
        return {
            "fresh copy of the repo": True,
            "restricted shell (rbash)": True,
            "process group killed on timeout": True,
            "scrubbed environment": True,
            "per-process limits (CPU, file size, memory)": True,
            "process count limit": self.cgroup is not None or os.geteuid() != 0,
            "cgroup (all processes capped and killed together)": self.cgroup is not None,
            "read-only file system outside the workspace": bw,
            "host files hidden (home, other projects, /etc secrets)": bw,
            "unprivileged user (user namespace)": bw and self._userns,
            "no network": bw,
            "private process namespace": bw,
        }

    def describe_protections(self) -> str:
        p = self.protections()
        on = [k for k, v in p.items() if v]
        off = [k for k, v in p.items() if not v]
        text = "sandbox: " + ", ".join(on)
        if off:
            text += ". NOT active here: " + ", ".join(off)
            if not self.bwrap:
                text += " (install bubblewrap on Linux for the file system, network and process isolation)"
        return text

    def _env(self) -> dict[str, str]:
        # the interpreter's folder as the sandbox sees it: visible_paths binds resolved paths, so a virtual environment
        # reached through a symlink (a worktree's .venv -> the checkout's) must be named by its real path
        bin_dir = str(Path(os.path.dirname(sys.executable)).resolve())
        return {
            "PATH": f"{bin_dir}:/usr/local/bin:/usr/bin:/bin", "HOME": str(self.tmp), "TMPDIR": str(self.tmp),
            "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TERM": "dumb", "NO_COLOR": "1", "PAGER": "cat",
            "GIT_PAGER": "cat", "USER": "agent", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1",
            "PYTEST_ADDOPTS": "-p no:cacheprovider", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
        }

    def _argv(self, cmd: str) -> list[str]:
        shell = [self.rbash, "-c", cmd] if self.rbash else ["bash", "-r", "-c", cmd]
        if not self.bwrap:
            return shell
        # a fresh /tmp first, then the read-only binds: an interpreter or virtual environment that lives under /tmp
        # (a throwaway clone, a CI runner's checkout) is bound on top of it rather than hidden by it
        argv = [self.bwrap, "--tmpfs", "/tmp"]
        for path in visible_paths():  # system and interpreter paths, read-only; nothing else of the host
            argv += ["--ro-bind-try", path, path]
        argv += ["--dir", str(self.base),
                 "--bind", str(self.root), str(self.root), "--bind", str(self.tmp), str(self.tmp),
                 "--dev", "/dev", "--proc", "/proc", "--unshare-net", "--unshare-pid", "--unshare-ipc",
                 "--unshare-uts", "--die-with-parent", "--cap-drop", "ALL", "--chdir", str(self.root)]
        if self._userns:
            argv += ["--unshare-user", "--uid", str(AGENT_UID), "--gid", str(AGENT_UID)]
        return argv + shell

    def _limited(self, argv: list[str], nproc: int | None) -> list[str]:
        """`argv` behind a tiny bash prologue that sets the rlimits and joins the cgroup, then execs it.

        Done in the child's own shell rather than with a Python preexec_fn: a preexec_fn forces a real fork() of this
        process, whose pthread_atfork handlers (OpenBLAS 0.3.21's thread shutdown) can deadlock an MLX process that
        has run BLAS work. Without it, subprocess uses vfork and no handler runs.
        """
        lim = self.limits
        lines = []
        for flag, value in (("-t", lim.cpu_seconds), ("-f", lim.file_size_bytes and lim.file_size_bytes // 1024),
                            ("-v", lim.memory_bytes and lim.memory_bytes // 1024), ("-c", 0), ("-u", nproc)):
            if value is not None:
                lines.append(f"ulimit {flag} {int(value)} 2>/dev/null")  # macOS refuses -v; the rest still apply
        if self.cgroup is not None:
            for folder in self.cgroup.folders:
                lines.append(f"echo $$ > {shlex.quote(str(folder / 'cgroup.procs'))}")
        lines.append('exec "$@"')
        return [shutil.which("bash") or "/bin/bash", "-c", "; ".join(lines), "nanoagent-limits", *argv]

    # --- running commands ----------------------------------------------------------------------------------------
    def run(self, cmd: str, timeout: float = DEFAULT_TIMEOUT) -> CommandResult:
        """Run one shell command in the workspace; never raises for what the command does."""
        start = time.monotonic()
        running = _count_processes(os.getuid()) if os.geteuid() != 0 else None  # root: the kernel ignores it
        nproc = running + self.limits.extra_processes if running is not None else None
        proc = subprocess.Popen(self._limited(self._argv(cmd), nproc), cwd=self.root, env=self._env(),
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                start_new_session=True)
        try:
            buf, timed_out, overflow = self._read(proc, start + timeout)
        finally:  # also on Ctrl-C: nothing the command started outlives it
            self._kill_group(proc)
            proc.wait()
            if self.cgroup is not None:
                self.cgroup.kill_all()
        text, truncated = cut_output(buf.decode("utf-8", "replace"))
        return CommandResult(cmd=cmd, output=text, exit_code=None if (timed_out or overflow) else proc.returncode,
                             seconds=round(time.monotonic() - start, 4), timed_out=timed_out,
                             output_overflow=overflow, truncated=truncated, output_chars=len(buf))

    def _read(self, proc, deadline: float) -> tuple[bytes, bool, bool]:
        fd = proc.stdout.fileno()
        buf = bytearray()
        exited_at = None
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while True:
                now = time.monotonic()
                if now >= deadline:
                    return bytes(buf), True, False
                if exited_at is None and proc.poll() is not None:
                    exited_at = now
                if exited_at is not None and now - exited_at > LEFTOVER_GRACE:
                    break  # the shell is done; leftovers holding the pipe get killed
                if sel.select(min(deadline - now, 0.05)):
                    chunk = os.read(fd, 1 << 16)
                    if not chunk:  # every writer closed the pipe: the shell is exiting
                        try:
                            proc.wait(timeout=max(0.0, deadline - time.monotonic()))
                        except subprocess.TimeoutExpired:
                            return bytes(buf), True, False
                        break
                    buf += chunk
                    if len(buf) > CAPTURE_LIMIT:
                        return bytes(buf[:CAPTURE_LIMIT]), False, True
        proc.stdout.close()
        return bytes(buf), False, False

    @staticmethod
    def _kill_group(proc):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if proc.stdout and not proc.stdout.closed:
            proc.stdout.close()

    # --- results -------------------------------------------------------------------------------------------------
    def diff(self) -> str:
        """The complete git-style diff from the pristine copy to the workspace."""
        return unified_diff(self.pristine, self.root)

    def apply_to(self, target: str | Path | None = None) -> dict:
        """Write the workspace's changes into `target` (default: the original repo).

        A file that changed in the target since the copy was taken is left alone and listed under "conflicts". A
        symlink the agent made or changed that points outside the repo (an absolute path, or up past its root) is
        not written, and listed under "refused_links".
        """
        target = Path(target or self.repo)
        current, _ = scan(target)
        pristine, _ = scan(self.pristine)
        done, conflicts, refused = [], [], []

        def unchanged(p: str) -> bool:
            a, b = current.get(p), pristine.get(p)
            return (a is None and b is None) or (a is not None and b is not None and a.kind == b.kind
                                                 and a.data() == b.data())

        changes = []
        for ch in tree_changes(self.pristine, self.root):
            if ch.new is not None and ch.new.kind == "link" and points_outside(ch.path, os.readlink(ch.new.path)):
                refused.append(f"{ch.path} -> {os.readlink(ch.new.path)}")
            elif all(unchanged(p) for p in {ch.old_path, ch.path} - {None}):
                changes.append(ch)
            else:
                conflicts.append(ch.path)
        for ch in changes:  # removals first, so a folder can turn into a file and back
            if ch.kind in ("delete", "rename"):
                (target / ch.old_path).unlink()
                parent = (target / ch.old_path).parent
                while parent != target and parent.is_dir() and not any(parent.iterdir()):
                    parent.rmdir()  # the workspace has no such empty folder either
                    parent = parent.parent
        for ch in changes:
            if ch.new is not None:
                dest = target / ch.path
                dest.parent.mkdir(parents=True, exist_ok=True)
                if dest.is_symlink() or dest.is_file():
                    dest.unlink()
                if ch.new.kind == "link":
                    os.symlink(os.readlink(ch.new.path), dest)
                else:
                    shutil.copyfile(ch.new.path, dest)
                    os.chmod(dest, ch.new.mode & 0o777)
            done.append(f"{ch.kind} {ch.path}")
        return {"applied": done, "conflicts": conflicts, "refused_links": refused}

    def close(self):
        self._finalizer()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
