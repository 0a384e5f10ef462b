"""eval.toolcall end to end: scripted replies scored into metrics and a versioned result file, backend failures
recorded per item, the batched MLX path on a tiny random llama, bad input refused before the model loads, and
eval.report rendering the runs.

Run: .venv/bin/python -m pytest -q tests/test_eval_toolcall.py
"""

import json

import nanoagent  # noqa: F401
import pytest

from eval import report, toolcall
from eval.results import label_for, load_runs
from nanoagent import scoring
from nanoagent.agent.backend import Completion, ScriptedBackend
from nanoagent.stats import bootstrap_ci
from nanoagent.suites import load_valid
from nanoagent.toolcall import format_tool_call

TOOLS = [{"type": "function", "function": {"name": "get_weather", "description": "weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]


@pytest.fixture
def valid_file(tmp_path):
    rows = [{"messages": [{"role": "user", "content": f"Weather in {c}?"},
                          {"role": "assistant", "content": "", "tool_calls": [
                              {"function": {"name": "get_weather", "arguments": {"city": c}}}]}],
             "tools": TOOLS, "meta": {"id": c}} for c in ("Paris", "Rome", "Oslo")]
    rows.append({"messages": [{"role": "user", "content": "Hi!"}, {"role": "assistant", "content": "Hello."}],
                 "tools": TOOLS, "meta": {"id": "hi"}})
    path = tmp_path / "valid.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


REPLIES = [format_tool_call("get_weather", {"city": "Paris"}),      # right
           format_tool_call("get_weather", {"city": "Lyon"}),       # valid, wrong value
           "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}",  # unclosed: invalid
           "Hello there!"]                                           # right: no call


def test_run_suite_scores_and_summarises(valid_file):
    items, _ = load_valid(valid_file)
    result = scoring.run_suite(ScriptedBackend(REPLIES), items, max_tokens=32)
    m = result["metrics"]
    assert [o["correct"] for o in result["items"]] == [True, False, False, True]
    assert m["n"] == 4 and m["accuracy"] == 0.5 and m["call_rate"] == 0.75 and m["valid_rate"] == 0.5
    assert m["kinds"] == {"ok": 2, "wrong_value": 1, "unclosed_tag": 1}
    lo, hi = m["accuracy_ci95"]
    assert 0 <= lo < 0.5 < hi <= 1


def test_bootstrap_interval_narrows_with_more_items():
    small, big = bootstrap_ci([1, 0] * 5), bootstrap_ci([1, 0] * 200)
    assert small[0] < big[0] < 0.5 < big[1] < small[1]
    assert bootstrap_ci([]) is None and bootstrap_ci([1, 1, 1]) == (1.0, 1.0)


def test_a_threshold_declines_exactly_the_items_below_it(valid_file):
    """at_threshold: an item whose first-token call probability is below the threshold becomes a reply with no
    call (the calls it made are gone; a no-call item is right), the others keep their outcome."""
    items, _ = load_valid(valid_file)
    result = scoring.run_suite(ScriptedBackend(REPLIES), items, max_tokens=32)
    assert scoring.at_threshold(items, result["items"], 0.5) is None  # no p_call from a scripted backend
    for o, p in zip(result["items"], (0.9, 0.2, 0.5, 0.1)):
        o["p_call"] = p
    view = scoring.at_threshold(items, result["items"], 0.5)
    assert [o.get("declined", False) for o in view] == [False, True, False, True]
    assert [o["kind"] for o in view] == ["ok", "no_call", "unclosed_tag", "ok"]
    assert [o["correct"] for o in view] == [True, False, False, True]
    assert not view[1]["has_call"] and view[1]["calls"] == [] and view[0] is result["items"][0]
    metrics = scoring.summarize(view, 0.0)
    assert metrics["accuracy"] == 0.5 and metrics["mean_completion_tokens"] is None  # declined lengths unknown
    result["items"][3] = {**result["items"][3], "kind": "backend_error", "correct": False, "p_call": None}
    assert scoring.at_threshold(items, result["items"], 0.5)[3]["kind"] == "backend_error"  # fails the same way


class Flaky:
    """Fails on the second prompt, like a prompt longer than the context."""

    def __init__(self):
        self.n = 0

    def complete(self, messages, tools, *, max_tokens, temperature, seed):
        self.n += 1
        if self.n == 2:
            raise RuntimeError("prompt too long")
        return Completion(text="Hello.", completion_tokens=2)


def test_a_backend_failure_is_recorded_on_its_item(valid_file):
    items, _ = load_valid(valid_file)
    result = scoring.run_suite(Flaky(), items)
    kinds = [o["kind"] for o in result["items"]]
    assert kinds[1] == "backend_error" and "prompt too long" in result["items"][1]["message"]
    assert len(kinds) == 4


def test_batched_mlx_path_on_a_tiny_model(valid_file, tiny_tok):
    from nanoagent.testing import tiny_llama, tok_vocab_size

    model = tiny_llama(tok_vocab_size(tiny_tok))
    ticks = []  # train.dft's validity bar: one tick per batch, of its size
    result = scoring.evaluate_model(model, tiny_tok, f"valid:{valid_file}", limit=None, max_tokens=6, batch_size=3,
                                    progress=ticks.append)
    assert result["metrics"]["n"] == 4 and len(result["items"]) == 4 and ticks == [3, 1]
    assert all(o["completion_tokens"] <= 6 and o["kind"] != "backend_error" for o in result["items"])
    rows = [json.loads(line) for line in valid_file.read_text().splitlines()]
    again = scoring.evaluate_model(model, tiny_tok, rows, limit=2, max_tokens=6, batch_size=1)
    assert again["metrics"]["n"] == 2 and [o["reply"] for o in again["items"]] == \
        [o["reply"] for o in result["items"][:2]]   # greedy: batched and one-by-one agree


def test_main_writes_a_versioned_result_and_the_report_renders(valid_file, tmp_path, monkeypatch):
    import nanoagent.agent.backends as backends

    monkeypatch.setattr(backends, "load_backend", lambda spec, **kw: ScriptedBackend(list(REPLIES)))
    out = tmp_path / "results"
    for label in ("base", "dft"):
        assert toolcall.main(["--model", "embedded", "--suites", f"valid:{valid_file}", "--out-dir", str(out),
                              "--label", label, "--name", f"toolcall_{label}"]) == 0
    (out / "notes.json").write_text("{}")
    runs, skipped = load_runs(out)
    assert [r["label"] for r in runs] == ["base", "dft"] and len(skipped) == 1
    run = runs[0]
    assert run["format"] == "nanoagent-eval" and run["version"] == 1 and run["kind"] == "toolcall"
    assert run["machine"]["python"] and run["settings"]["suites"] == [f"valid:{valid_file}"]
    assert run["suites"][f"valid:{valid_file}"]["items"][0]["id"] == "Paris"

    readme = tmp_path / "README.md"
    readme.write_text("intro\n<!-- eval-table:start -->\nold\n<!-- eval-table:end -->\nrest\n")
    assert report.main(["--results", str(out), "--out", str(tmp_path / "rep"), "--readme", str(readme)]) == 0
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "| base |" in md and "| dft |" in md and "50.0" in md
    assert (tmp_path / "rep" / "toolcall_accuracy.png").stat().st_size > 1000
    text = readme.read_text()
    assert text.startswith("intro\n") and text.endswith("rest\n") and "old" not in text and "| dft |" in text

    # the quality block: suites as rows, one column per run, the interval, rates, target and anchors
    readme.write_text("x\n<!-- quality-table:start -->\nold\n<!-- quality-table:end -->\ny\n")
    assert report.main(["--results", str(out), "--out", str(tmp_path / "rep"), "--quality-readme", str(readme)]) == 0
    rows = readme.read_text().splitlines()
    assert rows[2].startswith("| suite | n | base | dft | target | FunctionGemma 270M |")
    assert rows[4] == (f"| valid:{valid_file} | 4 | " + "50.0 (0.0-100.0); valid 50%, calls 75% | " * 2 + "- | - | - | - |")
    assert "old" not in readme.read_text() and rows[-1] == "y"
    # --labels picks the runs and orders the columns as listed, whatever order they were made in
    assert report.main(["--results", str(out), "--out", str(tmp_path / "rep"), "--quality-readme", str(readme),
                        "--labels", "dft,base"]) == 0
    assert readme.read_text().splitlines()[2].startswith("| suite | n | dft | base | target |")
    readme.write_text("no markers\n")
    assert report.main(["--results", str(out), "--out", str(tmp_path / "rep"), "--quality-readme", str(readme)]) == 2


def test_report_errors(tmp_path, capsys):
    assert report.main(["--results", str(tmp_path / "none")]) == 2
    assert "does not exist" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert report.main(["--results", str(tmp_path / "empty")]) == 2
    assert "no eval results" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["--suites", "simple_rust"], "unknown suite 'simple_rust'"),
    (["--suites", "valid:/no/such.jsonl"], "does not exist"),
    (["--limit", "x"], "not a valid int"),
    (["--suites", "valid", "--config", "/no/such.yaml"], "config file"),
])
def test_bad_input_fails_before_the_model_loads(argv, message, capsys):
    assert toolcall.main(argv) == 2
    assert message in capsys.readouterr().err


def test_unknown_yaml_key_names_the_closest(tmp_path, capsys):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("max_token: 5\n")
    assert toolcall.main(["--config", str(cfg)]) == 2
    assert "did you mean 'max_tokens'" in capsys.readouterr().err


def test_a_model_that_cannot_load_is_a_clear_error(valid_file, capsys):
    assert toolcall.main(["--model", "/no/such/model.gguf", "--suites", f"valid:{valid_file}"]) == 2
    assert "could not load model" in capsys.readouterr().err


def test_report_keeps_each_suites_latest_result_per_label():
    def run(created, suites, label="base"):
        return {"kind": "toolcall", "label": label, "created": created, "_path": f"/r/{created}.json",
                "suites": {s: {"metrics": {"accuracy": acc, "n": 4}} for s, acc in suites.items()}}

    runs = [run("1", {"simple_python": 0.1, "multiple": 0.2}), run("2", {"simple_python": 0.5}),
            run("3", {"multiple": 0.9}, label="dft")]
    merged = report.latest(runs)
    base = next(r for r in merged if r["label"] == "base")
    assert base["suites"]["simple_python"]["metrics"]["accuracy"] == 0.5  # the newer run wins on its suite
    assert base["suites"]["multiple"]["metrics"]["accuracy"] == 0.2      # the older run's other suite stays
    assert base["_files"] == ["1.json", "2.json"] and base["created"] == "2"
    assert next(r for r in merged if r["label"] == "dft")["_files"] == ["3.json"]


@pytest.mark.parametrize("kind", ["not-a-gguf", "folder-without-weights"])
def test_an_unloadable_model_is_one_clean_error(tmp_path, capsys, kind):
    from eval import coding

    if kind == "not-a-gguf":
        model = tmp_path / "x.gguf"
        model.write_text("not a gguf")
    else:
        model = tmp_path / "m"
        model.mkdir()
        (model / "config.json").write_text('{"model_type": "llama"}')
    assert toolcall.main(["--model", str(model), "--suites", "simple_python", "--limit", "1",
                          "--out-dir", str(tmp_path / "o")]) == 2
    assert coding.main(["--model", str(model), "--limit", "1", "--out-dir", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.count("error: could not load model") == 2 and "Traceback" not in err


def test_call_threshold_needs_an_in_process_model(capsys):
    assert toolcall.main(["--model", "http://127.0.0.1:9/v1", "--suites", "simple_python@2",
                          "--call-threshold", "0.7"]) == 2
    assert "--call-threshold needs an in-process model" in capsys.readouterr().err


def test_gguf_replies_are_generated_one_at_a_time(tmp_path, monkeypatch):
    """The GGUF backend can batch (GRPO's rollouts), but eval keeps one reply at a time: every committed GGUF
    figure was made that way, and llama.cpp's batched kernels round differently."""
    pytest.importorskip("llama_cpp")
    from nanoagent.agent.backends.llamacpp import LlamaCppBackend

    batched = []
    real = LlamaCppBackend.complete_batch
    monkeypatch.setattr(LlamaCppBackend, "complete_batch", lambda self, *a, **k: batched.append(1) or
                        real(self, *a, **k))
    assert toolcall.main(["--model", "embedded-gguf", "--suites", "simple_python@2", "--max-tokens", "4",
                          "--batch-size", "8", "--out-dir", str(tmp_path), "--bootstrap-samples", "10"]) == 0
    assert not batched
    run = json.loads(next(tmp_path.glob("*.json")).read_text())
    assert run["suites"]["simple_python"]["metrics"]["n"] == 2


def test_resume_keeps_finished_suites_and_runs_only_the_rest(valid_file, tmp_path, monkeypatch, capsys):
    import nanoagent.agent.backends as backends

    second = tmp_path / "second.jsonl"
    second.write_text(valid_file.read_text())
    served = []

    def scripted(spec, **kw):
        backend = ScriptedBackend(list(REPLIES) * 2)
        real = backend.complete
        backend.complete = lambda *a, **k: served.append(1) or real(*a, **k)
        return backend

    monkeypatch.setattr(backends, "load_backend", scripted)
    out = tmp_path / "results"
    base = ["--model", "embedded", "--out-dir", str(out), "--name", "whole"]
    assert toolcall.main(base + ["--suites", f"valid:{valid_file}"]) == 0  # as if cut off after one suite
    first = json.loads((out / "whole.json").read_text())
    served.clear()
    both = f"valid:{second},valid:{valid_file}"
    assert toolcall.main(base + ["--suites", both, "--resume"]) == 0
    assert len(served) == 4 and "1 of 2 suites already done" in capsys.readouterr().err  # only the second suite ran
    run = json.loads((out / "whole.json").read_text())
    assert run["complete"] and list(run["suites"]) == [f"valid:{second}", f"valid:{valid_file}"]
    assert run["suites"][f"valid:{valid_file}"] == first["suites"][f"valid:{valid_file}"]
    assert run["created"] == first["created"]

    # what can't be continued is refused before any work, and says what to do
    assert toolcall.main(base + ["--suites", both, "--resume", "--max-tokens", "64"]) == 2
    assert "max_tokens: 128 there, 64 here" in capsys.readouterr().err
    assert toolcall.main(base + ["--suites", f"valid:{second}", "--resume"]) == 2
    assert "add them to --suites" in capsys.readouterr().err
    assert toolcall.main(["--model", "embedded", "--suites", both, "--resume"]) == 2
    assert "--resume needs --name" in capsys.readouterr().err
    assert json.loads((out / "whole.json").read_text()) == run  # nothing lost
    assert run["model"]["weights_sha256"]  # the weights it scored (nanoagent/weights_digest.py)
    (out / "other.json").write_text(json.dumps({**run, "model": {**run["model"], "weights_sha256": "0" * 64}}))
    assert toolcall.main(["--model", "embedded", "--out-dir", str(out), "--name", "other", "--suites", both,
                          "--resume"]) == 2  # the same spec holds other weights now (retrained, say)
    assert "other weights than embedded holds now" in capsys.readouterr().err

    # a kept suite must hold the items asked for now: another sample of it is refused
    part = ["--model", "embedded", "--out-dir", str(out), "--name", "part"]
    assert toolcall.main(part + ["--suites", f"valid:{valid_file}@2"]) == 0
    assert toolcall.main(part + ["--suites", f"valid:{valid_file}@3,valid:{second}", "--resume"]) == 2
    assert "scored other items of valid:" in capsys.readouterr().err

    # a run made with a call threshold records the number it resolved to, and continues with the same flag
    thr = ["--model", "embedded", "--out-dir", str(out), "--name", "thr", "--call-threshold", "0.5"]
    assert toolcall.main(thr + ["--suites", f"valid:{valid_file}"]) == 0
    assert toolcall.main(thr + ["--suites", both, "--resume"]) == 0, capsys.readouterr().err


@pytest.mark.parametrize("spec,label", [("exports/quality-cpu-obj-q8_0.gguf", "quality-cpu-obj-q8_0"),
                                        ("runs/dft-1/model/", "model"), ("x.GGUF", "x"), (".gguf", ".gguf"),
                                        ("https://host:8080/v1", "host-8080"), ("HuggingFaceTB/SmolLM2", "SmolLM2")])
def test_a_results_default_label_is_the_model_name_without_gguf(spec, label):
    """A GGUF's result file was labelled 'NAME.gguf' (toolcall_NAME.gguf_<time>.json), unlike every committed label."""
    assert label_for(spec) == label
