"""Build a Hub release folder for a model and upload it: `python -m export.hub`.

    python -m export.hub --model RUN_OR_FOLDER --repo-id USER/NAME [--dry-run] [--out releases/NAME] [--no-check]
    python -m export.hub --model embedded --repo-id me/smollm2-135m-nanoagent --dry-run

Steps: check the inputs (repo id, model folder and architecture, release folder, and that every eval result file is
of this model: export/evals.py refuses another model's by its weights' digest, naming both) before any work;
assemble the release folder (export.release: the Q8_0 GGUF written by export.gguf with its parity report unless
--no-check, the MLX safetensors with config and tokenizer, the model card, the run folder's training records and
eval results, the figures); validate it (files present, card front matter complete, the GGUF loads); print every
file that would be uploaded. `--dry-run` stops there and never touches the network. Otherwise a token (--token,
$HF_TOKEN, or the one saved by `hf auth login`) is required: huggingface_hub creates the repo if needed, uploads the
folder and the commit URL is printed. Without a token, or when the Hub can't be reached, it says exactly that and
where the folder is.
Exit codes: 0 done, 2 bad input, 4 the folder failed validation, 5 no token or the upload failed.

Left out: pull requests, revisions other than main, deleting files already in the repo.
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
from pathlib import Path

import nanoagent  # noqa: F401  (OpenBLAS before mlx)
from export.config import ExportConfig, HubConfig
from export.source import ExportError, resolve_source
from nanoagent import config as layered
from nanoagent.atomic import write_json

REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]{0,95}/[A-Za-z0-9][\w.-]{0,95}$")


class UploadError(RuntimeError):
    """No token, no network or a refused upload; the release folder is still complete on disk."""


def check_repo_id(repo_id: str | None) -> str:
    if not repo_id or not REPO_ID.match(repo_id) or "--" in repo_id or ".." in repo_id:
        raise ExportError(f"--repo-id {repo_id!r} is not a Hub repo id: use USER/NAME (letters, digits, '-', '_', "
                          "'.'), e.g. me/smollm2-135m-agent")
    return repo_id


def find_token(explicit: str | None) -> str | None:
    if explicit:
        return explicit
    if os.environ.get("HF_TOKEN"):
        return os.environ["HF_TOKEN"]
    try:
        from huggingface_hub import get_token

        return get_token()
    except ImportError:
        return None


def upload(folder: Path, cfg: HubConfig, say=print) -> str:
    """Create the repo if needed and upload the folder; the commit URL, or UploadError saying why not."""
    token = find_token(cfg.token)
    if not token:
        raise UploadError(f"no Hugging Face token: set HF_TOKEN, pass --token, or run `hf auth login`; then run "
                          f"this again (the release folder {folder} is complete and was not uploaded)")
    from huggingface_hub import HfApi

    api = HfApi(endpoint=cfg.endpoint, token=token)
    try:
        repo = api.create_repo(cfg.repo_id, repo_type="model", private=cfg.private, exist_ok=True)
        say(f"repo ready: {repo}")
        info = api.upload_folder(repo_id=cfg.repo_id, repo_type="model", folder_path=str(folder),
                                 commit_message=cfg.commit_message)
    except Exception as e:  # network, auth, refusals: the user's next step is the same, so one clear message
        first = str(e).splitlines()[0] if str(e) else ""
        raise UploadError(f"upload to {api.endpoint}/{cfg.repo_id} failed ({type(e).__name__}: {first}). Without "
                          f"network access or a valid write token nothing can be uploaded; the release folder "
                          f"{folder} is complete") from None
    return info.commit_url


def parse_args(argv=None) -> HubConfig:
    return layered.load(HubConfig, argv, description=__doc__.split("\n")[0], prog="python -m export.hub")


def release(cfg: HubConfig, say=print) -> dict:
    """Assemble, validate, and (unless dry run) upload; returns what happened."""
    from export.gguf import export
    from export.release import assemble, check_out_folder, validate

    from export.evals import checked_evals, eval_paths
    from nanoagent.weights_digest import folder_digest

    check_repo_id(cfg.repo_id)
    source = resolve_source(cfg.model)
    out = check_out_folder(Path(cfg.out or Path("releases") / cfg.repo_id.split("/")[-1]).expanduser())
    digest = folder_digest(source.folder)
    evals = checked_evals(eval_paths(cfg, source), source, digest, say)  # another model's results: refused here

    def export_gguf(path: Path) -> dict:
        return export(ExportConfig(model=str(source.folder), out=str(path), type="q8_0", name=cfg.repo_id,
                                   check=cfg.check), say=say)

    manifest = assemble(cfg, source, out, export_gguf, say=say, evals=evals, digest=digest)
    problems = validate(out)
    safe_cfg = dataclasses.replace(cfg, token="***" if cfg.token else None)
    result = {"folder": str(out), "files": manifest["files"], "problems": problems, "uploaded": False}
    say(f"release folder {out}:")
    for rel, info in manifest["files"].items():
        say(f"  {info['bytes'] / 1e6:10.2f} MB  {rel}")
    say(f"  {sum(i['bytes'] for i in manifest['files'].values()) / 1e6:10.2f} MB  in {len(manifest['files'])} files")
    if problems:
        say("validation FAILED:\n  " + "\n  ".join(problems))
    else:
        say("validation: OK (files present, card front matter complete, the GGUF loads)")
        if cfg.dry_run:
            say(f"dry run: would upload these {len(manifest['files'])} files to {cfg.repo_id}; nothing was sent")
        else:
            try:
                result["commit_url"] = upload(out, cfg, say)
                result["uploaded"] = True
                say(f"uploaded: {result['commit_url']}")
            except UploadError as e:
                result["upload_error"] = str(e)
                say(f"not uploaded: {e}")
    write_json(out.parent / f"{out.name}.hub.json", {"config": layered.as_dict(safe_cfg), **result},
               ensure_ascii=False, default=str)
    return result


def main(argv=None) -> int:
    try:
        cfg = parse_args(argv)
        result = release(cfg, say=lambda m: print(m, file=sys.stderr, flush=True))
    except (ExportError, layered.ConfigError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if result["problems"]:
        return 4
    return 5 if "upload_error" in result else 0


if __name__ == "__main__":
    sys.exit(main())
