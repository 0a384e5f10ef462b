"""The OpenBLAS preload: active on Linux when the library is there, off on request, a warning when too late."""

import json
import os
import subprocess
import sys

import pytest

import nanoagent.blas as blas

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the preload is for Linux CPU only")


def run(code, **env):
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, **env}, capture_output=True, text=True,
                         check=True)
    return out


@linux_only
def test_loaded_in_this_process_when_available():
    if blas.find_openblas() is None:
        pytest.skip("OpenBLAS is not installed here (scripts/setup.sh installs it)")
    assert blas.state["status"] == "loaded"
    maps = open("/proc/self/maps").read()
    assert "libopenblas" in maps


@linux_only
def test_can_be_switched_off():
    out = run("import nanoagent, nanoagent.blas as b, json; print(json.dumps(b.state))", NANOAGENT_OPENBLAS="off")
    assert json.loads(out.stdout)["status"] == "disabled by NANOAGENT_OPENBLAS"


@linux_only
def test_importing_mlx_first_warns():
    out = run("import mlx.core, nanoagent, nanoagent.blas as b; print(b.state['status'])")
    assert out.stdout.strip().startswith("too late") and "import nanoagent first" in out.stderr


@linux_only
def test_missing_library_warns_with_install_hint():
    out = run("import nanoagent", NANOAGENT_OPENBLAS="/nonexistent/libopenblas.so.0")
    assert "apt-get install libopenblas0-pthread" in out.stderr
