"""The progress bar of long steps (nanoagent/progress.py): on stderr with a count, redrawn between updates so a
slow item still shows time passing, and nothing at all when disabled.

Run: .venv/bin/python -m pytest tests/test_progress.py -q
"""

import threading
import time

from nanoagent.progress import progress_bar


def test_the_bar_counts_and_is_redrawn_while_an_item_takes_long(capsys):
    with progress_bar(3, "call threshold", unit="prompt", redraw_s=0.01) as bar:
        bar.update(1)
        time.sleep(0.1)  # a slow item: the bar is redrawn meanwhile
        bar.update(2)
    err = capsys.readouterr().err
    assert "call threshold" in err and "1/3" in err and "3/3" in err and "prompt" in err
    assert err.count("1/3") >= 3  # drawn at the update, then again while the next item ran
    assert not [t for t in threading.enumerate() if t.name.startswith("progress:")]  # the redraw thread ended


def test_a_disabled_bar_shows_nothing(capsys):
    with progress_bar(2, "validity before", disable=True) as bar:
        bar.update(2)
    assert capsys.readouterr().err == ""
