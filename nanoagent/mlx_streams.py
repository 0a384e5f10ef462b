"""MLX's per-thread streams: release them before a thread or the interpreter ends.

MLX (0.32 on) gives every Python thread that runs an op its own stream, and on the CPU each new stream leaves an
OS thread behind when its Python thread ends (measured with mlx 0.32.4: ten short-lived threads that each ran one
op leave ten threads, with or without `clear_streams`). A server that ran each request on a fresh thread grew by a
thread per request, and a process carrying dozens of them into finalisation can abort there after all its work is
done ("terminate called without an active exception", exit 134: how our CI ended once after 855 passing tests).
mlx's maintainers ask callers to call `mx.clear_streams()` last thing on each thread that used MLX, the main
thread included (ml-explore/mlx#4327, #4110). After it the thread can run no MLX op.

So: run MLX on long-lived threads only (the server does all generation on one worker: nanoagent/server.py), call
`release_streams()` last thing on such a thread, and `import nanoagent` registers it for the main thread at exit
(it runs after every exit hook registered after `import nanoagent`, since atexit runs them last in, first out).
"""

from __future__ import annotations

import atexit
import sys


def release_streams() -> None:
    """Destroy the streams MLX made for the calling thread; a no-op when mlx was never imported."""
    mx = sys.modules.get("mlx.core")
    if mx is not None and hasattr(mx, "clear_streams"):
        mx.synchronize()
        mx.clear_streams()


def release_at_exit() -> None:
    atexit.register(release_streams)


__all__ = ["release_at_exit", "release_streams"]
