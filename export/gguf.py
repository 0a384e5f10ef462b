"""Export a model to a GGUF that llama.cpp runs, then prove it matches the source: `python -m export.gguf`.

    python -m export.gguf --model RUN_OR_FOLDER --out FILE.gguf [--type q8_0|f16|f32] [--embedding-type f16]
        [--no-check] [--config X.yaml]
    python -m export.gguf --model embedded --out smollm2-135m-q8_0.gguf

Order of work: every input is checked first (the type, the model folder and its architecture, that the output can
be written), then the model is loaded with nanoagent.models.load, written by nanoagent.gguf_writer (atomically: a failed
export leaves no file under the final name), and unless --no-check the parity report of export.parity runs:
llama.cpp on the new file against MLX on the source. Its summary is printed at the end, and the resolved config, the
export facts and the full report go to FILE.export.json beside the GGUF. Exit codes: 0 ok, 2 bad input, 3 the file
was written but parity is below the thresholds in export.config. A call threshold stored with the source model
(nanoagent/call_threshold.py) travels in the GGUF's metadata, so `nanoagent serve FILE.gguf` applies it; so does
its prompt format (nanoagent/prompt_format.py), with the chat template that renders it, and the digest of the
source's weights (nanoagent/weights_digest.py), so an eval of the file is known to be of that model.

`--embedding-type f16` writes the token embedding (a tied model's output layer too) as F16 and the rest as Q8_0:
most of a Q8_0 file's perplexity gap is there (export/README.md has the measurements).

Left out: quantization types other than Q8_0/F16/F32 (run llama.cpp's llama-quantize on the F16 or F32 file).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import nanoagent  # noqa: F401  (OpenBLAS before mlx)
from export.config import MAX_DISAGREEMENT_MARGIN, MIN_AGREEMENT, ExportConfig
from export.source import ExportError, resolve_source
from nanoagent import config as layered
from nanoagent.atomic import write_json
from nanoagent.gguf_writer import check_type


def check_output(out: str | Path) -> Path:
    """The output path, or ExportError when it can't be written (checked before any work)."""
    out = Path(out).expanduser()
    if out.is_dir():
        raise ExportError(f"--out {out} is a folder; give a file name such as {out / 'model-q8_0.gguf'}")
    if out.suffix != ".gguf":
        raise ExportError(f"--out {out} must end in .gguf")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ExportError(f"--out {out}: cannot create its folder {out.parent} ({e.strerror})") from None
    if not os.access(out.parent, os.W_OK) or (out.exists() and not os.access(out, os.W_OK)):
        raise ExportError(f"--out {out}: {out.parent} is not writable; choose another output path")
    return out


def parse_args(argv=None) -> ExportConfig:
    return layered.load(ExportConfig, argv, description=__doc__.split("\n")[0], prog="python -m export.gguf")


def verdict(report: dict, cfg: ExportConfig) -> list[str]:
    """The checks that failed (empty when all pass)."""
    need = cfg.min_agreement if cfg.min_agreement is not None else MIN_AGREEMENT[cfg.type]
    failed = []
    if report["next_token"]["rate"] < need:
        failed.append(f"next-token agreement {report['next_token']['rate']:.4f} < {need}")
    if report["next_token"]["max_disagreement_margin"] > MAX_DISAGREEMENT_MARGIN:
        failed.append(f"a next-token disagreement is not a near tie (MLX top-2 margin "
                      f"{report['next_token']['max_disagreement_margin']:.2f} > {MAX_DISAGREEMENT_MARGIN})")
    if report["perplexity"]["relative_diff"] > cfg.max_ppl_diff:
        failed.append(f"perplexity difference {report['perplexity']['relative_diff']:.4%} > {cfg.max_ppl_diff:.2%}")
    tc = report["tool_calls"]
    # a reply that parts from MLX's at a near tie (its first differing token within MAX_DISAGREEMENT_MARGIN) is the
    # rounding the next-token check allows, carried through greedy decoding; one that parts at a clear choice is not
    bugs = [c for c in tc["cases"] if not c["same_parse"]
            and (c.get("divergence_margin") is None or c["divergence_margin"] > MAX_DISAGREEMENT_MARGIN)]
    if bugs:
        failed.append(f"greedy tool-call parses differ on {len(bugs)}/{tc['total']} prompts where the replies part "
                      f"at a clear choice (MLX top-2 margin > {MAX_DISAGREEMENT_MARGIN})")
    return failed


def export(cfg: ExportConfig, say=print) -> dict:
    """Check inputs, write the GGUF, run the parity report; returns the record written to FILE.export.json."""
    cfg.type = check_type(cfg.type)
    if cfg.embedding_type is not None:
        cfg.embedding_type = check_type(cfg.embedding_type, "--embedding-type")
    source = resolve_source(cfg.model)
    out = check_output(cfg.out or Path("exports") / f"{source.name}-{cfg.type.upper()}.gguf")
    cfg.out = str(out)
    if cfg.check:
        try:
            import llama_cpp  # noqa: F401
        except ImportError:
            raise ExportError("the parity check needs llama-cpp-python (pip install llama-cpp-python); "
                              "or pass --no-check to only write the file") from None
        from nanoagent.agent.backends.common import BackendError
        from nanoagent.agent.backends.llamacpp import check_no_amx

        try:  # before writing anything: an AMX build would segfault in the check
            check_no_amx()
        except BackendError as e:
            raise ExportError(f"{e}; or pass --no-check to only write the file") from None

    from export.source import load_source
    from nanoagent.gguf_writer import write_gguf
    from nanoagent.call_threshold import stored_threshold
    from nanoagent.prompt_format import stored_format
    from nanoagent.weights_digest import folder_digest

    say(f"export: {source.folder} -> {out} ({cfg.type})")
    start = time.perf_counter()
    model, tokenizer, weights = load_source(source)
    load_s = time.perf_counter() - start
    threshold = stored_threshold(source.folder)
    fmt = stored_format(source.folder)
    digest = folder_digest(source.folder)
    result = write_gguf(weights, source.config, tokenizer, out, cfg.type, name=cfg.name or source.name,
                        call_threshold=threshold, embedding_type=cfg.embedding_type, prompt_format=fmt,
                        source_weights=digest)
    result.update(call_threshold=threshold, prompt_format=fmt.name, source_weights=digest)
    export_s = time.perf_counter() - start
    del weights
    result.update(load_seconds=round(load_s, 2), export_seconds=round(export_s, 2), source=str(source.folder),
                  run_dir=str(source.run_dir) if source.run_dir else None)
    if result["fallback_f16"]:
        say(f"note: {len(result['fallback_f16'])} matrices have rows that are not whole Q8_0 blocks and were "
            f"written as F16: {', '.join(result['fallback_f16'][:5])}")
    say(f"wrote {out}: {result['bytes'] / 1e6:.1f} MB in {export_s:.1f} s ({result['tensor_types']})")
    record = {"export": result}
    if cfg.check:
        from export.parity import parity_report, summary_lines

        say("parity: llama.cpp on the exported file vs MLX on the source ...")
        report = parity_report(out, model, tokenizer, cfg.tool_tokens)
        failed = verdict(report, cfg)
        record.update(parity=report, parity_failed=failed)
        for line in summary_lines(report):
            say("  " + line)
        say("parity: PASS" if not failed else "parity: FAIL: " + "; ".join(failed))
        if failed and cfg.type == "q8_0" and result["embedding_type"] == "q8_0":
            say("  hint: --embedding-type f16 keeps the output layer out of Q8_0, where most of the perplexity gap "
                "comes from (+27 MB for the 135M model; measurements in export/README.md)")
    write_json(out.with_suffix(".export.json"), {"config": layered.as_dict(cfg), **record},
               ensure_ascii=False, default=str)
    return record


def main(argv=None) -> int:
    try:
        cfg = parse_args(argv)
        record = export(cfg, say=lambda m: print(m, file=sys.stderr, flush=True))
    except (ExportError, layered.ConfigError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 3 if record.get("parity_failed") else 0


if __name__ == "__main__":
    sys.exit(main())
