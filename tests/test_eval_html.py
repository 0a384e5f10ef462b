"""eval/html.py and eval/html_trajectories.py: the report page and the trajectory viewer, parsed and in a browser.

Run: .venv/bin/python -m pytest tests/test_eval_html.py -q -s      (-s prints the screenshot's path)

Small fixture folders (a train run, an eval results folder with one tool-calling run of 2 suites x 3 items, a
pipeline folder with a missing marker, a trajectory of 2 steps, a GRPO JSONL with one broken line) are rendered
and the HTML is parsed with html.parser for its table rows and turns. The browser tests run Debian's chromium
headless (`apt-get install chromium`; skipped with the reason when /usr/bin/chromium is missing): a screenshot that
must not be blank, and the DOM after load, which shows that the filter script ran and hid the right rows.
"""

import ast
import json
import subprocess
import time
from html.parser import HTMLParser
from pathlib import Path

import pytest

from eval.html import PIPELINE_STAGES, line_chart, main

CHROMIUM = Path("/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[1]


class Dom(HTMLParser):
    """Counts what the tests look at: rows per table id, elements per class, hidden rows, texts by element id."""

    def __init__(self, text: str):
        super().__init__()
        self.rows, self.classes, self.hidden, self.texts = {}, {}, 0, {}
        self._table, self._text_id = [], None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self._table.append(a.get("id") or f"table{sum(1 for _ in self.rows)}")
            self.rows.setdefault(self._table[-1], 0)
        if tag == "tr" and self._table:
            self.rows[self._table[-1]] += 1
            self.hidden += "hidden" in a
        for c in (a.get("class") or "").split():
            self.classes[c] = self.classes.get(c, 0) + 1
        if a.get("id"):
            self._text_id = a["id"]
            self.texts[a["id"]] = ""

    def handle_endtag(self, tag):
        if tag == "table" and self._table:
            self._table.pop()

    def handle_data(self, data):
        if self._text_id:
            self.texts[self._text_id] += data
            self._text_id = None


def item(i, suite, kind, correct):
    return {"id": f"{suite}_{i}", "expect": "calls", "has_call": True, "valid": kind in ("ok", "wrong_value"),
            "correct": correct, "kind": kind, "message": "", "calls": [],
            "reply": f"<tool_call>{{\"name\": \"f{i}\"}}</tool_call> <script>alert({i})</script>"}


def make_eval(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    suites = {}
    for suite, kinds in (("simple_python", ["ok", "not_json", "wrong_value"]),
                         ("irrelevance", ["ok", "ok", "unexpected_call"])):
        items = [item(i, suite, k, k == "ok") for i, k in enumerate(kinds)]
        suites[suite] = {"metrics": {"n": 3, "call_rate": 1.0, "valid_rate": 2 / 3, "accuracy": kinds.count("ok") / 3,
                                     "accuracy_ci95": [0.0, 1.0], "kinds": {k: kinds.count(k) for k in kinds}},
                         "dropped": {}, "items": items}
    run = {"format": "nanoagent-eval", "version": 1, "kind": "toolcall", "label": "tiny <b>run</b>",
           "created": "2026-01-01T00:00:00+00:00", "model": {"spec": "embedded", "backend": "mlx"},
           "settings": {}, "machine": {}, "suites": suites, "throughput": {}}
    (folder / "toolcall_tiny.json").write_text(json.dumps(run))
    (folder / "notes.json").write_text("{}")  # not an eval result: named on the page
    return folder


def make_train(folder: Path) -> Path:
    folder.mkdir(parents=True)
    rows = [{"kind": "train", "step": s, "loss": 2.0 - 0.1 * s} for s in range(1, 6)]
    rows += [{"kind": "valid", "step": 5, "val_loss": 1.5, "val_ce": 1.4}, {"kind": "checkpoint", "step": 5}]
    (folder / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows) + "{broken\n")
    (folder / "config.yaml").write_text("loss: sft\nsteps: 5\n")
    (folder / "summary.json").write_text(json.dumps({"steps": 5, "validity_before": 0.0, "validity_after": 0.5}))
    (folder / "validity.json").write_text(json.dumps({"before": {"validity": 0.0, "accuracy": 0.0, "examples": []},
                                                      "after": {"validity": 0.5, "accuracy": 0.25}}))
    return folder


def make_trajectory(task="fix the <bug>", reward=None) -> dict:
    long_output = "x" * 2000
    return {"task": task, "version": 1, "exit_status": "answered", "exit_message": "done",
            "messages": [{"role": "system", "content": "You are an agent."}, {"role": "user", "content": task},
                         {"role": "assistant", "content": "",
                          "tool_calls": [{"type": "function", "function": {"name": "shell",
                                                                           "arguments": {"command": "ls"}}}]},
                         {"role": "tool", "name": "shell", "content": long_output},
                         {"role": "assistant", "content": "All fixed."}],
            "tools": [], "tokens": {"prompt": 300, "completion": 40, "context": 200},
            "steps": [{"index": 0, "reply": "...", "prompt_tokens": 120, "completion_tokens": 30,
                       "results": [{"name": "shell", "ok": True, "text": long_output, "seconds": 0.1}]},
                      {"index": 1, "reply": "All fixed.", "prompt_tokens": 180, "completion_tokens": 10}],
            "diff": "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n", "diff_stats": {"files": 1}}


def render(tmp_path, *args) -> tuple[str, Path]:
    out = tmp_path / f"page{time.monotonic_ns()}.html"
    assert main([*args, "--out", str(out)]) == 0
    return out.read_text(), out


def test_eval_results_tables_and_escaping(tmp_path):
    text, _ = render(tmp_path, "report", str(make_eval(tmp_path / "results")))
    dom = Dom(text)
    assert dom.rows["items"] == 1 + 6                                  # header + 2 suites x 3 items
    assert text.count('data-suite="simple_python"') == 3 and text.count('data-kind="ok"') == 3
    assert "<script>alert" not in text and "&lt;script&gt;alert(0)" in text
    assert "tiny &lt;b&gt;run&lt;/b&gt;" in text and "notes.json" in text  # escaped label; the skipped file named
    assert "66.7" in text and "33.3" in text                           # accuracy per suite, in %


def test_train_run_curves_and_missing_files(tmp_path):
    text, _ = render(tmp_path, "report", str(make_train(tmp_path / "run")))
    assert text.count("<svg") == 1 and "<polyline" in text
    for name in ("data_stats.json", "loss.png", "model"):               # named as missing
        assert f"<code>{name}</code>" in text
    assert "1 broken lines" in text and "validity.json" in text


def test_grpo_run_reward_curves(tmp_path):
    run = tmp_path / "grpo"
    (run / "trajectories").mkdir(parents=True)
    (run / "trajectories" / "step_0000001.jsonl").write_text("")
    rows = [{"kind": "train", "step": s, "loss": 0.1, "reward_mean": 0.1 * s, "reward_tests_mean": 0.0,
             "valid_call_rate": 0.5, "test_pass_rate": 0.0, "zero_adv_share": 1.0} for s in (1, 2)]
    (run / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (run / "eval.json").write_text(json.dumps({"before": {"test_pass_rate": 0.0, "rows": []}}))
    text, _ = render(tmp_path, "report", str(run))
    assert "GRPO run" in text and text.count("<svg") == 3 and "<title>reward</title>" in text
    assert "test_pass_rate" in text and "python -m eval.html trajectories" in text


def test_chart_axes_have_round_ticks_that_cover_the_data():
    import re
    svg = line_chart({"loss": [(s, 1.29 - s * 0.0074) for s in range(151)]}, "loss")
    labels = re.findall(r'font-size="10" text-anchor="(?:end|middle)">([^<]+)</text>', svg)
    ys = [float(v) for v in labels if "." in v or v in ("0", "1")]
    assert "150" in labels and "37.5" not in labels  # whole steps on x, the last step reached
    assert min(ys) <= 0.18 and max(ys) >= 1.29 and all(round(v * 4, 6).is_integer() for v in ys), labels


def test_pipeline_folder_names_missing_stages(tmp_path):
    out = tmp_path / "pipeline"
    make_train(out / "sft")
    make_eval(out / "eval")
    (out / "done").mkdir()
    (out / "done" / "sft.json").write_text(json.dumps({"stage": "sft", "status": "done", "seconds": 3.0}))
    text, _ = render(tmp_path, "report", str(out))
    assert "done/grpo.json" in text and "not run" in text
    assert Dom(text).rows["items"] == 7


def test_pipeline_stages_match_the_pipeline():
    tree = ast.parse((ROOT / "pipeline.py").read_text())
    stages = next(ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign)
                  and getattr(n.targets[0], "id", "") == "STAGES")
    assert tuple(stages) == PIPELINE_STAGES


def test_trajectory_turns(tmp_path):
    path = tmp_path / "trajectory.json"
    path.write_text(json.dumps(make_trajectory()))
    text, _ = render(tmp_path, "trajectories", str(path))
    dom = Dom(text)
    assert dom.classes["turn"] == 5 and dom.classes["assistant"] == 2 and dom.classes["tool"] == 1
    assert "all 2000 characters" in text and "120 prompt + 30 completion" in text
    assert "fix the &lt;bug&gt;" in text and "class=add" in text and "class=del" in text


def test_jsonl_with_a_broken_line(tmp_path):
    path = tmp_path / "step_0000001.jsonl"
    recs = [{"task": "t1", "rollout": i, "reward": 0.5 * i, "advantage": 0.1, "parts": {"tests": 0.0},
             "error": None, "trajectory": make_trajectory(f"task {i}")} for i in range(2)]
    crashed = {"task": "t1", "rollout": 2, "reward": 0.0, "advantage": 0.0, "parts": {}, "error": "timed out"}
    path.write_text(json.dumps(recs[0]) + "\n{not json\n" + json.dumps(recs[1]) + "\n" + json.dumps(crashed) + "\n")
    text, _ = render(tmp_path, "trajectories", str(path))
    assert text.count("<section class=trajectory>") == 3 and Dom(text).classes["turn"] == 10
    assert "1 skipped" in text and "step_0000001.jsonl:2 (not JSON)" in text
    assert "timed out" in text and "href='#t2'" in text


def test_missing_path_exits_2(tmp_path, capsys):
    assert main(["report", str(tmp_path / "nope")]) == 2
    assert main(["trajectories", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "does not exist" in err[0]


def chromium(*args, timeout=60) -> subprocess.CompletedProcess:
    cmd = [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
           "--disable-dev-shm-usage", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


@pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium (apt-get install chromium)")
def test_browser_screenshot_and_filter(tmp_path):
    _, page = render(tmp_path, "report", str(make_eval(tmp_path / "results")))
    shot = tmp_path / "report.png"
    r = chromium(f"--screenshot={shot}", "--window-size=1200,900", page.as_uri())
    assert shot.is_file(), r.stderr[-2000:]
    assert shot.stat().st_size > 10_000
    print(f"\nscreenshot: {shot}")
    dom = Dom(chromium("--dump-dom", page.as_uri()).stdout)
    assert dom.rows["items"] == 7 and dom.hidden == 0
    assert dom.texts["f-count"] == "6 of 6 items shown"              # set by the script after load
    dom = Dom(chromium("--dump-dom", page.as_uri() + "?suite=irrelevance&kind=ok").stdout)
    assert dom.rows["items"] == 7 and dom.hidden == 4                 # 2 of 6 shown: irrelevance items that are ok
    assert dom.texts["f-count"] == "2 of 6 items shown"
