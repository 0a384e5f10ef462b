"""A throwaway Linux control group per workspace: caps the number of processes (and memory) of all its commands.

Why: RLIMIT_NPROC counts processes per user and the kernel never applies it to root, so a fork bomb run as root
is only stopped by a pids cgroup. Where cgroups can be written (root on Linux, cgroup v2 or v1 `pids`), each
Workspace makes `nanoagent-<id>` with `pids.max` (and a memory cap), every command joins it before exec, and
`kill_all()` kills every process in it, including ones that escaped the process group with `setsid`.

Usage (what sandbox.py does):
    cg = CGroup.create(max_pids=256, max_memory=4 << 30)   # None where cgroups can't be written
    command prologue: echo $$ > FOLDER/cgroup.procs for FOLDER in cg.folders  (then exec)
    cg.kill_all(); cg.remove()

Left out: CPU shares and I/O limits, delegation for non-root users (systemd-run --user --scope would do it).
"""

from __future__ import annotations

import os
import signal
import time
import uuid
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")


def _own_v1(controller: str) -> Path | None:
    """This process's own cgroup folder for a v1 controller."""
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, ctrls, path = line.split(":", 2)
            if controller in ctrls.split(","):
                return CGROUP_ROOT / controller / path.lstrip("/")
    except OSError:
        pass
    return None


class CGroup:
    def __init__(self, folders: list[Path], what: list[str]):
        self.folders = folders  # one per hierarchy (v2: one; v1: pids and maybe memory)
        self.what = what        # e.g. ["pids.max=256", "memory=4096 MiB"]

    @classmethod
    def create(cls, max_pids: int, max_memory: int | None) -> "CGroup | None":
        name = f"nanoagent-{uuid.uuid4().hex[:12]}"
        folders, what = [], []
        try:
            v2 = CGROUP_ROOT / "cgroup.controllers"
            if v2.exists() and "pids" in v2.read_text().split():
                folder = CGROUP_ROOT / name
                folder.mkdir()
                folders.append(folder)
                (folder / "pids.max").write_text(str(max_pids))
                what.append(f"processes <= {max_pids}")
                if max_memory and (folder / "memory.max").exists():
                    (folder / "memory.max").write_text(str(max_memory))
                    what.append(f"memory <= {max_memory >> 20} MiB")
                return cls(folders, what)
            pids = _own_v1("pids")
            if pids is None or not pids.exists():
                return None
            folder = pids / name
            folder.mkdir()
            folders.append(folder)
            (folder / "pids.max").write_text(str(max_pids))
            what.append(f"processes <= {max_pids}")
            mem = _own_v1("memory")
            if max_memory and mem is not None and mem.exists():
                try:
                    (mem / name).mkdir()
                    folders.append(mem / name)
                    (mem / name / "memory.limit_in_bytes").write_text(str(max_memory))
                    what.append(f"memory <= {max_memory >> 20} MiB")
                except OSError:
                    pass
            return cls(folders, what)
        except OSError:
            for f in folders:
                try:
                    f.rmdir()
                except OSError:
                    pass
            return None

    def join(self):
        """Move the calling process into the group (called in the child before exec)."""
        pid = str(os.getpid())
        for f in self.folders:
            (f / "cgroup.procs").write_text(pid)

    def pids(self) -> list[int]:
        try:
            return [int(p) for p in (self.folders[0] / "cgroup.procs").read_text().split()]
        except OSError:
            return []

    def kill_all(self, wait: float = 2.0):
        """SIGKILL every process in the group, repeating until it is empty (a fork bomb keeps forking)."""
        deadline = time.monotonic() + wait
        while True:
            pids = self.pids()
            if not pids or time.monotonic() > deadline:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            time.sleep(0.01)

    def remove(self):
        self.kill_all()
        for f in self.folders:
            for _ in range(50):
                try:
                    f.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:  # busy while the last killed processes are reaped
                    time.sleep(0.02)
