"""nanoagent/cpu_memory.py: glibc keeps freed blocks (on by default at import), and the switch to leave it alone."""

import subprocess
import sys

import pytest

import nanoagent  # noqa: F401  (its import turns the setting on)
from nanoagent import cpu_memory

LINUX_GLIBC = sys.platform.startswith("linux")


@pytest.mark.skipif(not LINUX_GLIBC, reason="glibc only")
def test_on_at_import_and_idempotent():
    assert cpu_memory.state["status"] == "on"
    assert cpu_memory.keep_freed_memory() is True


def status_in_fresh_process(env_value):
    env = {"PATH": "/usr/bin:/bin"} | ({"NANOAGENT_MALLOC": env_value} if env_value else {})
    out = subprocess.run([sys.executable, "-c", "import nanoagent.cpu_memory as c; c.keep_freed_memory(); "
                          "print(c.state['status'])"], capture_output=True, text=True, env=env, check=True)
    return out.stdout.strip()


def test_environment_switch_leaves_glibc_alone():
    assert status_in_fresh_process("default") == "off (NANOAGENT_MALLOC=default)"
    if LINUX_GLIBC:
        assert status_in_fresh_process(None) == "on"
