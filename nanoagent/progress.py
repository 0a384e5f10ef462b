"""A progress bar for a long step: tqdm on stderr with a count and an ETA, redrawn every few seconds between updates,
so a step whose items each take minutes (a batch of replies on a loaded CPU) still shows its elapsed time.

    with progress_bar(len(items), "call threshold", unit="prompt") as bar:
        rows = call_probabilities(model, tokenizer, items, progress=bar.update)

Left out: nested bars, bars from worker processes.
"""

from __future__ import annotations

import sys
import threading
from contextlib import contextmanager

REDRAW_S = 5.0  # seconds between redraws while no item finishes


@contextmanager
def progress_bar(total: int, desc: str, unit: str = "item", disable: bool = False, redraw_s: float = REDRAW_S):
    """A tqdm bar of `total` items (to stderr, even when it is not a terminal: logs show the step too); `disable`
    shows nothing."""
    from tqdm import tqdm

    bar = tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, disable=disable, dynamic_ncols=True)
    stop = threading.Event()

    def redraw():
        while not stop.wait(redraw_s):
            bar.refresh()

    thread = None if disable else threading.Thread(target=redraw, name=f"progress: {desc}", daemon=True)
    if thread is not None:
        thread.start()
    try:
        yield bar
    finally:
        stop.set()
        if thread is not None:
            thread.join()
        bar.close()
