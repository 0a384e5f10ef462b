"""The `nanoagent` command. `nanoagent run` runs the coding agent on a copy of a folder; `nanoagent serve MODEL`
serves a model over a local OpenAI-compatible API (nanoagent/server.py); `nanoagent specialize` trains a model for
your own tools (it runs `python -m specialize`, which sits on top of the stages).

    nanoagent specialize --tools tools.json --out runs/mytools [--examples examples.jsonl]
    nanoagent serve runs/mytools/model-q8_0.gguf --tools tools.json

    nanoagent run --repo examples/sample_repo "The tests fail. Fix the bug in calc.py."
    nanoagent run --repo PATH --model embedded|FILE.gguf|MLX_FOLDER|http://host:port/v1|scripted:REPLIES.json \\
                  [--apply] [--config agent.yaml] [--max-turns N] [--wall-time S] [--out RUN_FOLDER] "task"

It prints which sandbox protections are active, then each step as it happens (the tool call, a short view of the
result, tokens and seconds), then the final diff and where the trajectory was saved. The original folder is never
touched unless `--apply` writes the diff back. Settings: AgentConfig defaults < YAML (--config) < flags; the
resolved settings are saved as config.yaml in the run folder next to trajectory.json. Exit code: 0 when the model
answered, 1 for any other exit status (budgets, malformed calls, backend error), 2 for bad input.

`--model scripted:FILE` reads a JSON list of reply strings and replays them (tests and demos without a model).
In-process models decode tool calls under the offered tools' grammar by default (`--no-constrain` turns it off;
nanoagent.constrain): a call always names `shell` or `apply_patch` with its required arguments. `serve` applies
the call threshold stored with the model (nanoagent/call_threshold.py) unless `--call-threshold off`; `run` does
not by default, since a coding task always needs the tools. Both stop a reply at its first call that repeats an
earlier one of the same reply (`--no-stop-repeats` turns it off; nanoagent/agent/backends/repeat_stop.py).
Other model specs go to nanoagent.agent.backends.load_backend.

Left out: an interactive chat mode, resuming a run, streaming tokens as they are generated.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import signal
import sys
import threading
import time
from pathlib import Path

import nanoagent  # noqa: F401  (OpenBLAS before any mlx import)
from nanoagent import config as layered

PREVIEW_LINES = 8      # lines of a tool result shown per step
PREVIEW_CHARS = 600


class UsageError(layered.ConfigError):
    """Bad input from the command line; the message says what to fix (a bad --config key or value is a ConfigError
    too, reported the same way)."""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="nanoagent", description="A tiny tool-calling coding agent.",
                                formatter_class=layered.HelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("specialize", help="train a model that calls your own tools (nanoagent specialize --help)",
                   add_help=False, formatter_class=layered.HelpFormatter)
    r = sub.add_parser("run", help="run the agent on a copy of a folder", formatter_class=layered.HelpFormatter)
    r.add_argument("task", help="what the agent should do, in plain words")
    r.add_argument("--repo", required=True, help="folder to work on (copied; git not needed)")
    r.add_argument("--model", default="embedded",
                   help="embedded (default), a .gguf file, an MLX model folder, an OpenAI-compatible URL, "
                        "or scripted:REPLIES.json")
    r.add_argument("--apply", action="store_true", help="write the final diff back into --repo")
    r.add_argument("--config", help="YAML file with AgentConfig fields")
    r.add_argument("--out", help="run folder for trajectory.json and config.yaml (default runs/agent/TIME-PID)")
    r.add_argument("--quiet", action="store_true", help="print only the diff and the summary")
    r.add_argument("--constrain", action=argparse.BooleanOptionalAction, default=None,
                   help="decode tool calls under the tools' grammar, so they always parse and fit the schemas "
                        "(default: on for in-process models, off for an OpenAI-compatible URL)")
    r.add_argument("--call-threshold", default="off",
                   help="P, 'model' (the threshold stored with the model) or 'off' (default: off; a coding task "
                        "always needs the tools, so the agent lets the model open a call whenever it likes)")
    v = sub.add_parser("serve", help="serve a model over a local OpenAI-compatible API",
                       formatter_class=layered.HelpFormatter)
    v.add_argument("model", help="a .gguf file, an MLX model folder, embedded or embedded-gguf")
    v.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    v.add_argument("--port", type=int, default=8080, help="TCP port to listen on")
    v.add_argument("--name", default=None, help="model name the API lists (default: the file or folder name)")
    v.add_argument("--max-tokens", type=int, default=512, help="reply length when a request sets none")
    v.add_argument("--max-tokens-limit", type=int, default=4096,
                   help="the longest reply a request may ask for; longer asks are clamped to it, as they are to the "
                        "room the model's context leaves after the prompt (default 4096)")
    v.add_argument("--read-timeout", type=float, default=10.0,
                   help="seconds a request's headers and body may take to arrive; a slower body gets 408 and its "
                        "connection is closed (default 10)")
    v.add_argument("--queue-timeout", type=float, default=300.0,
                   help="seconds a request may wait for the model before it gets 503 with Retry-After (default 300)")
    v.add_argument("--tools", help="a tool set (OpenAI tools list, MCP tools/list result or OpenAPI 3 file) offered "
                                   "to every request that brings no tools of its own")
    v.add_argument("--constrain", action=argparse.BooleanOptionalAction, default=True,
                   help="decode tool calls under the request's tools' grammar (default on)")
    v.add_argument("--call-threshold", default="model",
                   help="answer in text when the model gives opening a call less than P: a number, 'model' (default: "
                        "the threshold stored with the model by eval.decision --save-threshold, if any) or 'off'")
    for both in (r, v):
        both.add_argument("--stop-repeats", action=argparse.BooleanOptionalAction, default=None,
                          help="stop a reply at its first tool call that repeats an earlier one of the same reply, "
                               "the copy cut off (default: on for in-process models, off for an OpenAI-compatible URL)")
    layered.add_flags(r, _config_class(), skip=("trajectory_path", "system_prompt"))  # the rest: YAML only
    return p


def _config_class():
    from nanoagent.agent.loop import AgentConfig

    return AgentConfig


def resolve_config(args) -> "object":
    """AgentConfig defaults < YAML file (--config) < the flags that were given (nanoagent.config's layering)."""
    cls = _config_class()
    names = {f.name for f in dataclasses.fields(cls)}
    return layered.resolve(cls, args.config, {k: v for k, v in vars(args).items() if k in names})


def load_model(spec: str, constrain: bool | None = None, call_threshold: str | None = None,
               stop_repeats: bool | None = None):
    """The backend for `--model`; `constrain` and `stop_repeats` None: on for in-process models (MLX, GGUF), off
    for a URL; `call_threshold` as nanoagent.call_threshold.resolve_threshold takes it (in-process models only)."""
    if spec.startswith("scripted:"):
        from nanoagent.agent.backend import ScriptedBackend

        path = Path(spec[len("scripted:"):])
        try:
            replies = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError) as e:
            raise UsageError(f"--model {spec}: cannot read a JSON list of replies from {path} ({e})") from None
        if not isinstance(replies, list) or not all(isinstance(x, str) for x in replies):
            raise UsageError(f"--model {spec}: {path} must hold a JSON list of strings")
        return ScriptedBackend(replies)
    try:
        from nanoagent.agent.backends import load_backend
    except ImportError as e:
        raise UsageError(f"--model {spec}: the model backends are not available ({e}); "
                         "use --model scripted:REPLIES.json") from None
    try:
        from nanoagent.agent.backends import backend_kind
        from nanoagent.call_threshold import resolve_threshold

        remote = backend_kind(spec) == "openai"
        if remote and constrain:
            raise UsageError(f"--model {spec}: --constrain needs an in-process model (a .gguf file or an MLX "
                             "model); an OpenAI-compatible server decodes on its own side")
        if remote and stop_repeats:
            raise UsageError(f"--model {spec}: --stop-repeats needs an in-process model (a .gguf file or an MLX "
                             "model); an OpenAI-compatible server decodes on its own side")
        if remote and call_threshold not in (None, "off", "model"):
            raise UsageError(f"--model {spec}: --call-threshold needs an in-process model (a .gguf file or an MLX "
                             "model); an OpenAI-compatible server decodes on its own side")
        threshold = None if remote else resolve_threshold(call_threshold, spec)
        options = {} if remote else {"constrain": constrain is not False, "call_threshold": threshold,
                                     "stop_repeats": stop_repeats is not False}
        return load_backend(spec, **options)
    except (RuntimeError, OSError, ValueError) as e:  # BackendError is a RuntimeError, ThresholdError a ValueError
        raise UsageError(f"--model {spec}: {e}") from None


def _preview(text: str) -> str:
    lines = text.splitlines()
    short = "\n".join(lines[:PREVIEW_LINES])
    if len(short) > PREVIEW_CHARS:
        short = short[:PREVIEW_CHARS] + " ..."
    if len(lines) > PREVIEW_LINES:
        short += f"\n... ({len(lines) - PREVIEW_LINES} more lines)"
    return "\n".join("    " + ln for ln in short.splitlines())


def print_step(step, traj, out=None):
    out = out or sys.stdout
    head = (f"[step {step.index + 1}] tokens: prompt {step.prompt_tokens}, reply {step.completion_tokens}; "
            f"model {step.timings.get('model_s', 0):.2f} s, tools {step.timings.get('tools_s', 0):.2f} s")
    print(head, file=out)
    if step.error:
        print(f"  malformed tool call ({step.error['kind']}): {step.error['message']}", file=out)
    elif not step.tool_calls:
        print("  answer: " + (traj.messages[-1]["content"] or "(empty)")[:PREVIEW_CHARS], file=out)
    for call, result in zip(step.tool_calls, step.results):
        fn = call["function"]
        args = fn["arguments"]
        shown = args.get("cmd") if fn["name"] == "shell" else json.dumps(args, ensure_ascii=False)[:200]
        print(f"  {fn['name']}: {shown}", file=out)
        print(_preview(result["text"]), file=out)
    out.flush()


def cmd_run(args) -> int:
    from nanoagent.agent.loop import ExitStatus, run_agent
    from nanoagent.agent.sandbox import Workspace

    repo = Path(args.repo).expanduser()
    if not repo.exists():
        raise UsageError(f"--repo {args.repo}: no such folder")
    if not repo.is_dir():
        raise UsageError(f"--repo {args.repo}: not a folder (give the folder the agent should work in)")
    if not args.task.strip():
        raise UsageError("the task is empty: say what the agent should do")
    config = resolve_config(args)
    run_dir = Path(args.out or Path("runs") / "agent" / f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}")
    run_dir.mkdir(parents=True, exist_ok=True)
    config.trajectory_path = str(run_dir / "trajectory.json")
    layered.save_resolved(config, run_dir / "config.yaml",
                          {"model": args.model, "repo": str(repo.resolve()), "apply": args.apply})
    backend = load_model(args.model, args.constrain, args.call_threshold, args.stop_repeats)
    with Workspace(repo) as ws:
        print(ws.describe_protections(), flush=True)
        if ws.skipped:
            print(f"not copied (not regular files): {len(ws.skipped)}: {', '.join(ws.skipped[:5])}", flush=True)
        describe = getattr(backend, "describe", None)
        meta = {"model": args.model, "backend": describe() if callable(describe) else type(backend).__name__,
                "repo": str(repo.resolve())}
        traj = run_agent(backend, ws, args.task, config, on_step=None if args.quiet else print_step, meta=meta)
        print("\n=== diff ===")
        print(traj.diff if traj.diff else "(no changes)")
        if args.apply and traj.diff:
            result = ws.apply_to(repo)
            print(f"applied to {repo}: {len(result['applied'])} change(s)")
            if result["conflicts"]:
                print(f"NOT applied (changed in {repo} meanwhile): {', '.join(result['conflicts'])}")
            if result["refused_links"]:
                print(f"NOT applied (symlinks that point outside {repo}; make them by hand if you want them): "
                      f"{', '.join(result['refused_links'])}")
    s = traj.diff_stats
    print(f"exit status: {traj.exit_status} ({traj.exit_message}); {len(traj.steps)} steps, "
          f"{traj.tokens['completion']} tokens generated, {traj.seconds:.1f} s; "
          f"{s.get('files', 0)} file(s) changed")
    print(f"trajectory: {config.trajectory_path}")
    return 0 if traj.exit_status == ExitStatus.ANSWERED.value else 1


def _interrupt(signum, frame):
    raise KeyboardInterrupt  # the loop records "interrupted", saves, and the workspace is cleaned up


def check_serve_limits(args) -> None:
    if args.max_tokens_limit < 1:
        raise UsageError(f"--max-tokens-limit must be at least 1, got {args.max_tokens_limit}")
    if not 1 <= args.max_tokens <= args.max_tokens_limit:
        raise UsageError(f"--max-tokens must be between 1 and --max-tokens-limit ({args.max_tokens_limit}), got "
                         f"{args.max_tokens}")
    for flag, value in (("--read-timeout", args.read_timeout), ("--queue-timeout", args.queue_timeout)):
        if not value > 0 or value == float("inf"):
            raise UsageError(f"{flag} must be a positive number of seconds, got {value}")


def cmd_serve(args) -> int:
    from nanoagent.agent.backends import BackendError, backend_kind
    from nanoagent.server import serve

    try:
        remote = backend_kind(args.model) == "openai"
    except BackendError as e:
        raise UsageError(f"{args.model}: {e}") from None
    if remote:
        raise UsageError(f"{args.model} is already a server; give a .gguf file or an MLX model")
    default_tools = None
    if args.tools:
        from nanoagent.toolsets import ToolSetError, load_toolset

        try:
            default_tools = load_toolset(args.tools).tools
        except ToolSetError as e:
            raise UsageError(f"--tools {args.tools}: {e}") from None
    check_serve_limits(args)
    backend = load_model(args.model, args.constrain, args.call_threshold, args.stop_repeats)
    name = args.name or Path(args.model.rstrip("/")).name
    gate = getattr(backend, "gate", None)
    try:
        httpd = serve(backend, name, args.host, args.port, default_tools=default_tools,
                      max_tokens_default=args.max_tokens, max_tokens_limit=args.max_tokens_limit,
                      read_timeout=args.read_timeout, queue_timeout=args.queue_timeout,
                      ready=lambda url: print(f"serving {name} at {url} (default tools: "
                                              f"{len(default_tools or [])}; constrained tool calls: "
                                              f"{'on' if args.constrain else 'off'}; call threshold: "
                                              f"{gate.threshold if gate else 'off'}; stop at a repeated call: "
                                              f"{'on' if getattr(backend, 'repeat_stop', None) else 'off'}); "
                                              "Ctrl-C stops", flush=True))
    except OSError as e:
        raise UsageError(f"cannot listen on {args.host}:{args.port} ({e}); pick another --port") from None
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        httpd.server_close()
    return 0


def cmd_specialize(argv: list[str]) -> int:
    """`nanoagent specialize ...` is `python -m specialize ...` (the orchestrator sits on top of the stages, so the
    library runs it as a command rather than importing it)."""
    import subprocess

    return subprocess.call([sys.executable, "-m", "specialize", *argv])


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["specialize"]:
        return cmd_specialize(argv[1:])
    args = _parser().parse_args(argv)
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _interrupt) if main_thread else None
    try:
        if args.command == "run":
            return cmd_run(args)
        if args.command == "serve":
            return cmd_serve(args)
    except layered.ConfigError as e:  # UsageError included
        print(f"nanoagent: error: {e}", file=sys.stderr)
        return 2
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, previous)
    return 2


if __name__ == "__main__":
    sys.exit(main())
