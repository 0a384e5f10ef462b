"""nanoagent.mlx_streams: `import nanoagent` releases the main thread's MLX streams at exit, after every other exit
hook, and `release_streams` is safe on a thread that never ran MLX and when mlx was never imported.

Run: .venv/bin/python -m pytest -q tests/test_mlx_streams.py
"""

import subprocess
import sys
import threading

import nanoagent  # noqa: F401  (OpenBLAS before mlx)
from nanoagent.mlx_streams import release_streams

SCRIPT = """
import atexit, nanoagent
import mlx.core as mx
mx.eval(mx.ones(4) + 1)
real = mx.clear_streams
mx.clear_streams = lambda: (print("streams released", flush=True), real())
atexit.register(lambda: print("a later hook", flush=True))
"""


def test_the_main_threads_streams_are_released_last_at_exit():
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["a later hook", "streams released"]


def test_release_is_safe_where_mlx_never_ran():
    import mlx.core  # noqa: F401  (loaded, so release_streams reaches clear_streams on a thread that never used it)

    errors = []

    def fresh():
        try:
            release_streams()
        except Exception as e:  # noqa: BLE001  (reported below)
            errors.append(e)

    thread = threading.Thread(target=fresh)
    thread.start()
    thread.join()
    assert errors == []
    done = subprocess.run([sys.executable, "-c", "import sys, nanoagent; assert 'mlx.core' not in sys.modules"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
