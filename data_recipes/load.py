"""Raw rows of a recipe entry: from the Hub (`datasets.load_dataset`), a local JSONL/Parquet file, or the fixture.

Every path goes through `datasets.load_dataset` (`"json"`/`"parquet"` builders for files), so fixtures and
local files reach the adapters with the same Arrow-shaped rows as a Hub download (missing keys as None).

Network: `hub_status(timeout)` probes the Hub endpoint once with a short timeout (and honours HF_HUB_OFFLINE /
HF_DATASETS_OFFLINE); when it is unreachable the build says so once and every Hub entry uses its fixture.
A Hub load that fails for another reason (a gated dataset, a renamed split) also falls back to the fixture and
the reason is reported in the stats: the build never hangs or dies on the network.

Left out: streaming; `take` slices the split (`train[:N]`) so big sources stay small.
"""

from __future__ import annotations

import concurrent.futures
import os
import socket
from pathlib import Path
from urllib.parse import urlparse

from data_recipes.recipe import SourceEntry
from data_recipes.sources import SOURCES

_TRUE = {"1", "true", "yes", "on"}


def hub_status(timeout: float = 3.0) -> tuple[bool, str]:
    """(reachable, why not). Never blocks longer than `timeout` (DNS included)."""
    for var in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"):
        if os.environ.get(var, "").strip().lower() in _TRUE:
            return False, f"{var} is set"
    endpoint = os.environ.get("HF_ENDPOINT", "https://huggingface.co")
    url = urlparse(endpoint)
    host, port = url.hostname or "huggingface.co", url.port or (443 if url.scheme == "https" else 80)

    def probe():
        with socket.create_connection((host, port), timeout=timeout):
            return True

    pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
    try:
        pool.submit(probe).result(timeout=timeout)
        return True, ""
    except concurrent.futures.TimeoutError:
        return False, f"no answer from {host} within {timeout:g}s"
    except OSError as e:
        return False, f"{host}: {e.strerror or type(e).__name__}"
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def _quiet_datasets():
    import datasets

    datasets.disable_progress_bars()
    datasets.logging.set_verbosity_error()
    return datasets


class SourceFileError(ValueError):
    """A local source file that can't be read; the message names it and the cause."""


def load_file(path: str | Path, take: int | None = None):
    datasets = _quiet_datasets()
    path = Path(path)
    builder = "parquet" if path.suffix == ".parquet" else "json"
    split = "train" if take is None else f"train[:{take}]"
    try:
        return datasets.load_dataset(builder, data_files=str(path), split=split)
    except Exception as e:  # datasets wraps the cause (bad bytes, bad JSON, bad parquet) in a generic error
        cause = e.__cause__ or e
        raise SourceFileError(f"{path} could not be read as {builder.upper()} ({type(cause).__name__}: "
                              f"{str(cause).splitlines()[0][:200] if str(cause) else ''}); give a JSONL, JSON or "
                              "Parquet file of rows in the source's schema") from None


def load_hub(entry: SourceEntry, take: int | None = None):
    import datasets  # its own progress bars stay on: a Hub download is the long step here
    src = SOURCES[entry.id]
    config = entry.config if entry.config is not None else src.config
    split = entry.split if entry.split is not None else src.split
    if take is not None:
        split = f"{split}[:{take}]"
    return datasets.load_dataset(entry.hub or src.hub, config, split=split)


def load_rows(entry: SourceEntry, hub_ok: bool):
    """(dataset, origin, note): a `datasets.Dataset` (rows as dicts by index/slice, `len()`); origin is "hub",
    "file" or "fixture"; note says why a fixture replaced the Hub."""
    src = SOURCES[entry.id]
    if entry.path and entry.path != "fixture":
        return load_file(entry.path, entry.take), "file", ""
    if entry.path == "fixture" or not hub_ok:
        return load_file(src.fixture, entry.take), "fixture", "" if entry.path == "fixture" else "hub unreachable"
    try:
        return load_hub(entry, entry.take), "hub", ""
    except Exception as e:  # a gated/renamed/missing dataset must not stop the build: report and use the fixture
        note = f"hub load failed ({type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''})"
        return load_file(src.fixture, entry.take), "fixture", note


class SyntheticRows:
    """Rows of data_recipes.synthetic made on demand, by index, so the workers generate them in parallel."""

    def __init__(self, n: int, seed: int, kinds=None, prose_schema: float = 0.0, settings: float | None = None,
                 settings_stated: float | None = None):
        self.n, self.seed, self.kinds, self.prose_schema = n, seed, kinds, prose_schema
        self.settings, self.settings_stated = settings, settings_stated

    def __len__(self) -> int:
        return self.n

    def rows(self, start: int, end: int) -> list[dict]:
        from data_recipes import synthetic

        if hasattr(synthetic, "example"):  # row i depends only on (i, seed): any slice, any process
            mix = synthetic.check_kinds(self.kinds)
            return [synthetic.example(i, self.seed, mix, self.prose_schema, self.settings, self.settings_stated)[0]
                    for i in range(start, end)]
        return list(synthetic.generate(self.n, self.seed, kinds=self.kinds, prose_schema=self.prose_schema,
                                       settings=self.settings, settings_stated=self.settings_stated))[start:end]


def rows_slice(data, start: int, end: int) -> list:
    """Rows start..end of a list, synthetic rows, or a `datasets.Dataset` (made into dicts here, in the worker)."""
    if isinstance(data, list):
        return data[start:end]
    if isinstance(data, SyntheticRows):
        return data.rows(start, end)
    cols = data[start:end]
    names = list(cols)
    return [dict(zip(names, values)) for values in zip(*(cols[n] for n in names))]
