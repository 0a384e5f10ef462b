"""Which weights a result is of: one digest per model, recorded by every eval run and checked by the Hub release.

    weights_digest("runs/x")            # sha256 of runs/x/model's weights
    weights_digest("x-Q8_0.gguf")       # the digest of the folder export.gguf made it from, else the file's own
    weights_digest("http://host/v1")    # None: an endpoint's weights are not on this machine

A model folder's digest is the sha256 over its `*.safetensors` files (each name and its bytes, in name order): the
weights alone, not the config or the tokenizer. Copies that change the bytes but not the model carry the digest of
what they were made from, so that an eval of any of them names the same model:
- a GGUF written by export.gguf, in its metadata (`nanoagent.source_weights`);
- the release's bfloat16 safetensors (export/release.py), in each file's header metadata (same key);
- a folder converted from a GGUF (the embedded model's cache), as its manifest's `source_sha256`, which is the
  GGUF's own digest: `embedded` and `embedded-gguf` are one model.
Any other GGUF is its own file's sha256.

Left out: Hub ids (their weights may not be on this machine; evaluate a local copy to get a digest).
"""

from __future__ import annotations

import hashlib
import json
import struct
from pathlib import Path

KEY = "nanoagent.source_weights"  # GGUF metadata key and safetensors header metadata key
CHUNK = 1 << 20


def folder_digest(folder: str | Path) -> str | None:
    """The digest of a model folder's weights (see the module docstring); None when it has no safetensors."""
    folder = Path(folder)
    files = sorted(folder.glob("*.safetensors"))
    if not files:
        return None
    recorded = {safetensors_metadata(f).get(KEY) for f in files}
    if len(recorded) == 1 and None not in recorded:
        return recorded.pop()
    converted = _manifest_source(folder)
    if converted:
        return converted
    h = hashlib.sha256()
    for f in files:
        h.update(f.name.encode() + b"\0")
        with f.open("rb") as stream:
            while block := stream.read(CHUNK):
                h.update(block)
    return h.hexdigest()


def gguf_digest(path: str | Path) -> str:
    """The digest recorded in a GGUF by export.gguf, or the file's own sha256."""
    from nanoagent.gguf_import import open_gguf
    from nanoagent.models import sha256_file

    field = open_gguf(path).fields.get(KEY)
    return str(field.contents()) if field is not None else sha256_file(Path(path))


def weights_digest(spec: str | Path) -> str | None:
    """The digest of the weights a model spec names, or None when they are not here (an endpoint, a Hub id, a spec
    that names nothing, an unreadable file): a result without a digest is still a result."""
    from nanoagent.models import EMBEDDED, ModelLoadError, classify, embedded_gguf

    try:
        found = classify(spec)
        if found.kind in (EMBEDDED, "embedded-gguf"):
            return gguf_digest(embedded_gguf())
        if found.kind == "gguf":
            return gguf_digest(found.path)
        if found.kind == "folder":
            return folder_digest(found.path)
    except (ModelLoadError, OSError, ValueError):
        return None
    return None


def safetensors_metadata(path: str | Path) -> dict:
    """The `__metadata__` of a safetensors file's header ({} when there is none or the header is unreadable)."""
    try:
        with Path(path).open("rb") as f:
            (size,) = struct.unpack("<Q", f.read(8))
            if size > 100 * CHUNK:
                return {}
            header = json.loads(f.read(size))
    except (OSError, ValueError, struct.error):
        return {}
    meta = header.get("__metadata__") if isinstance(header, dict) else None
    return meta if isinstance(meta, dict) else {}


def _manifest_source(folder: Path) -> str | None:
    from nanoagent.models import MANIFEST

    try:
        return json.loads((folder / MANIFEST).read_text()).get("source_sha256")
    except (OSError, ValueError, AttributeError):
        return None
