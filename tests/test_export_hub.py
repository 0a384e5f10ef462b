"""Hub release: the assembled folder, its validation, and the upload path against a stand-in for the Hub API.

The stand-in is a real HTTP server on 127.0.0.1 speaking the few endpoints huggingface_hub's HfApi uses to create a
repo and commit a folder (repos/create, preupload, commit); HfApi is pointed at it with `endpoint=`, so the real
client code runs and nothing leaves the machine. Everything uses the tiny random model (--no-check skips the
llama.cpp parity report, which tests/test_export_gguf.py covers).
"""

import base64
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import nanoagent  # noqa: F401
import pytest

from export.card import REQUIRED_KEYS, missing_keys, read_front_matter
from export.config import HubConfig
from export.hub import check_repo_id, main, release
from export.source import ExportError


class FakeHub(BaseHTTPRequestHandler):
    """Records requests; answers like the Hub for create-repo, preupload (every file 'regular') and commit."""

    state: dict = {}

    def log_message(self, *args):  # keep pytest output clean
        pass

    def _reply(self, code: int, body: dict):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        st = self.state
        st["requests"].append((self.path, self.headers.get("authorization")))
        if self.headers.get("authorization") != "Bearer hf_test_token":
            return self._reply(401, {"error": "Invalid credentials in Authorization header"})
        if self.path == "/api/repos/create":
            payload = json.loads(body)
            st["created"].append(payload)
            return self._reply(200, {"url": f"http://{self.headers['host']}/{payload['organization']}/{payload['name']}"})
        if self.path == "/api/validate-yaml":  # the client checks README.md's front matter before committing
            st["validated"].append(json.loads(body)["content"])
            return self._reply(200, {"errors": [], "warnings": []})
        if "/preupload/" in self.path:
            files = json.loads(body)["files"]
            return self._reply(200, {"files": [{"path": f["path"], "uploadMode": "regular", "shouldIgnore": False}
                                               for f in files]})
        if "/commit/" in self.path:
            for line in body.decode().splitlines():
                item = json.loads(line)
                if item["key"] == "file":
                    st["files"][item["value"]["path"]] = base64.b64decode(item["value"]["content"])
            repo = self.path.split("/api/models/")[1].split("/commit/")[0]
            return self._reply(200, {"commitUrl": f"http://{self.headers['host']}/{repo}/commit/abc123",
                                     "commitOid": "abc123"})
        return self._reply(404, {"error": f"no route {self.path}"})


@pytest.fixture
def fake_hub():
    FakeHub.state = {"requests": [], "created": [], "files": {}, "validated": []}
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeHub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", FakeHub.state
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    """A training run folder as train.dft leaves it: model/ plus config, summary and an eval result."""
    from nanoagent.testing import save_tiny_model

    run = tmp_path_factory.mktemp("run")
    save_tiny_model(run / "model")
    (run / "config.yaml").write_text("loss: sft\nfine_tune: full\nsteps: 30\nbatch_size: 4\nmax_length: 256\n"
                                     "pack: true\n")
    (run / "summary.json").write_text(json.dumps({"steps": 30, "input_tokens": 30720, "supervised_tokens": 4000,
                                                  "train_seconds": 4711.5, "tokens_per_s": 98.2, "resumed_from": None,
                                                  "val_loss_first": 1.9, "val_loss_last": 1.25}))
    (run / "data_stats.json").write_text(json.dumps({"train": {"path": "data/default/train.jsonl", "records": 100,
                                                                "kept": 96, "tokens": 5000, "supervised_tokens": 900}}))
    (run / "loss.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (run / "eval").mkdir()
    (run / "eval" / "toolcall.json").write_text(json.dumps({"bfcl_simple": {"accuracy": 0.42}}))
    (run / "eval" / "toolcall_run.json").write_text(json.dumps({
        "kind": "toolcall", "label": "tiny-gguf", "model": {"backend": "llama-cpp-python"},
        "suites": {"simple_python": {"metrics": {"n": 400, "accuracy": 0.555, "valid_rate": 0.91}},
                   "irrelevance": {"metrics": {"n": 240, "accuracy": 0.7, "valid_rate": 0.0}}}}))
    return run


def _cfg(run_dir, tmp_path, **kw):
    return HubConfig(model=str(run_dir), repo_id="me/tiny-agent", out=str(tmp_path / "rel"), check=False, **kw)


def test_dry_run_builds_a_complete_valid_folder_without_network(run_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr("export.hub.upload", lambda *a, **k: pytest.fail("dry run must not upload"))
    result = release(_cfg(run_dir, tmp_path, dry_run=True), say=lambda m: None)
    folder = tmp_path / "rel"
    assert result["problems"] == [] and not result["uploaded"]
    for f in ("README.md", "tiny-agent-Q8_0.gguf", "model.safetensors", "config.json", "tokenizer.json",
              "training/config.yaml", "training/summary.json", "eval/toolcall.json", "release.json"):
        assert (folder / f).is_file(), f
    card = (folder / "README.md").read_text()
    meta = read_front_matter(card)
    assert missing_keys(meta) == [] and set(REQUIRED_KEYS) <= set(meta)
    assert meta["base_model_relation"] == "finetune"
    from huggingface_hub import ModelCard  # the Hub's own parser reads the metadata and its model-index back
    results = {(r.dataset_config, r.metric_value) for r in ModelCard(card).data.eval_results}
    assert results == {("simple_python", 55.5), ("irrelevance", 70.0)}
    assert "[toolcall.json](eval/toolcall.json)" in card and "mlx_lm.generate" in card and "nanoagent run" in card
    assert "nanoagent serve" in card and "tool_calls" in card and "hf download me/tiny-agent" in card
    assert "| simple_python | 400 | 55.5 (91) | 61.6 |" in card  # the BFCL table, with FunctionGemma beside
    assert "| suite | n | tiny-agent, GGUF | FunctionGemma 270M |" in card  # named for the model, not a path
    assert "![training and validation loss](training/loss.png)" in card
    assert "![BFCL accuracy per suite, against published small models](eval/bfcl.png)" in card
    assert (folder / "eval" / "bfcl.png").read_bytes().startswith(b"\x89PNG")
    import mlx.core as mx
    assert {v.dtype for v in mx.load(str(folder / "model.safetensors")).values()} == {mx.bfloat16}
    assert json.loads((folder / "config.json").read_text())["torch_dtype"] == "bfloat16"


def test_validation_catches_a_missing_file_and_an_incomplete_card(run_dir, tmp_path):
    from export.release import validate

    release(_cfg(run_dir, tmp_path, dry_run=True), say=lambda m: None)
    folder = tmp_path / "rel"
    card = (folder / "README.md").read_text().replace("pipeline_tag: text-generation\n", "")
    (folder / "README.md").write_text(card)
    (folder / "tokenizer.json").unlink()
    problems = validate(folder)
    assert any("tokenizer.json" in p for p in problems)
    assert any("pipeline_tag" in p for p in problems)
    (folder / "tiny-agent-Q8_0.gguf").write_bytes(b"GGUF broken")
    assert any("not a readable GGUF" in p for p in validate(folder))


def test_upload_creates_the_repo_and_commits_every_file(run_dir, tmp_path, fake_hub):
    endpoint, state = fake_hub
    result = release(_cfg(run_dir, tmp_path, endpoint=endpoint, token="hf_test_token"), say=lambda m: None)
    assert result["uploaded"], result
    assert result["commit_url"].endswith("/me/tiny-agent/commit/abc123")
    assert state["created"][0]["name"] == "tiny-agent" and state["created"][0]["organization"] == "me"
    folder = tmp_path / "rel"
    local = {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    assert state["files"] == local  # every file arrived, byte for byte
    assert state["validated"] and "base_model_relation" in state["validated"][0]
    hub_json = json.loads((tmp_path / "rel.hub.json").read_text())
    assert "hf_test_token" not in json.dumps(hub_json)  # the token is never written to disk


def test_bad_token_and_no_token_say_so_and_keep_the_folder(run_dir, tmp_path, fake_hub, monkeypatch):
    endpoint, _ = fake_hub
    result = release(_cfg(run_dir, tmp_path, endpoint=endpoint, token="wrong"), say=lambda m: None)
    assert not result["uploaded"] and "failed" in result["upload_error"] and (tmp_path / "rel" / "README.md").is_file()
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setattr("huggingface_hub.get_token", lambda: None)
    result = release(_cfg(run_dir, tmp_path, endpoint=endpoint), say=lambda m: None)
    assert "no Hugging Face token" in result["upload_error"]
    assert main(["--model", str(run_dir), "--repo-id", "me/tiny-agent", "--out", str(tmp_path / "rel"),
                 "--no-check", "--endpoint", endpoint]) == 5


def test_unreachable_hub_is_reported(run_dir, tmp_path):
    result = release(_cfg(run_dir, tmp_path, endpoint="http://127.0.0.1:9", token="hf_test_token"),
                     say=lambda m: None)
    assert not result["uploaded"] and "network" in result["upload_error"]


@pytest.mark.parametrize("repo_id", [None, "noslash", "a/b/c", "me/bad name", "-me/x", "me/x--y"])
def test_bad_repo_ids_are_refused(repo_id):
    with pytest.raises(ExportError, match="repo id"):
        check_repo_id(repo_id)


def test_bad_inputs_fail_before_any_work(run_dir, tmp_path):
    (tmp_path / "occupied").mkdir()
    (tmp_path / "occupied" / "notes.txt").write_text("mine")
    assert main(["--model", str(run_dir), "--repo-id", "me/x", "--out", str(tmp_path / "occupied"), "--dry-run"]) == 2
    assert (tmp_path / "occupied" / "notes.txt").read_text() == "mine"
    assert main(["--model", str(tmp_path), "--repo-id", "me/x", "--dry-run"]) == 2
    assert main(["--model", str(run_dir), "--repo-id", "bad", "--dry-run"]) == 2


def test_evals_flag_reaches_the_config():
    from export.hub import parse_args

    assert parse_args(["--repo-id", "me/x", "--evals", "a.json", "b.json"]).evals == ["a.json", "b.json"]
    assert parse_args(["--repo-id", "me/x"]).evals == []


def test_model_index_names_each_column():
    from export.card import eval_results
    suites = {"simple_python": {"metrics": {"accuracy": 0.3}}, "parallel": {"metrics": {}}}
    got = eval_results([{"label": "tiny-agent, Q8_0 GGUF", "suites": suites}])
    assert [(r.dataset_config, r.metric_value, r.metric_name) for r in got] == [
        ("simple_python", 30.0, "AST accuracy, tiny-agent, Q8_0 GGUF")]


# ------------------------------------------------------------------ results of another model (issue 80)

def eval_result(spec: str, digest: str | None, accuracy: float = 0.5) -> dict:
    return {"format": "nanoagent-eval", "version": 1, "kind": "toolcall", "label": "x",
            "model": {"spec": spec, "backend": "llama-cpp-python (x-Q8_0.gguf)", "weights_sha256": digest},
            "settings": {}, "suites": {"simple_python": {"metrics": {"n": 10, "accuracy": accuracy,
                                                                     "valid_rate": 1.0}}}}


def test_evals_of_another_model_are_refused_naming_both(run_dir, tmp_path):
    """Issue 80: the card took another model's eval files without a word."""
    other = tmp_path / "other.json"
    other.write_text(json.dumps(eval_result("runs/other/model", "ab" * 32)))
    with pytest.raises(ExportError) as err:
        release(_cfg(run_dir, tmp_path, dry_run=True, evals=[str(other)]), say=lambda m: None)
    message = str(err.value)
    assert "runs/other/model" in message and "abababababab" in message and str(run_dir / "model") in message
    assert not (tmp_path / "rel").exists()  # refused before any work
    assert main(["--model", str(run_dir), "--repo-id", "me/tiny-agent", "--out", str(tmp_path / "rel"),
                 "--no-check", "--dry-run", "--evals", str(other)]) == 2


def test_an_eval_of_the_export_is_of_the_same_model(run_dir, tmp_path):
    """The digest travels: the GGUF export and the release's bfloat16 weights name the run's weights, so an eval
    of either is accepted, and an eval file in the run folder of another model is refused too."""
    from nanoagent.weights_digest import folder_digest, weights_digest

    release(_cfg(run_dir, tmp_path, dry_run=True), say=lambda m: None)
    folder, digest = tmp_path / "rel", folder_digest(run_dir / "model")
    assert weights_digest(folder / "tiny-agent-Q8_0.gguf") == digest == weights_digest(folder)
    assert json.loads((folder / "release.json").read_text())["weights_sha256"] == digest
    ours = tmp_path / "ours.json"
    ours.write_text(json.dumps(eval_result(str(folder / "tiny-agent-Q8_0.gguf"), digest, 0.625)))
    release(_cfg(run_dir, tmp_path, dry_run=True, evals=[str(ours)]), say=lambda m: None)
    card = (folder / "README.md").read_text()
    assert "tiny-agent, Q8_0 GGUF" in card and "62.5" in card and str(tmp_path) not in card.split("## Usage")[0]

    from nanoagent.testing import save_tiny_model

    run = tmp_path / "run2"
    save_tiny_model(run / "model")
    (run / "summary.json").write_text("{}")
    (run / "eval").mkdir()
    (run / "eval" / "base.json").write_text(json.dumps(eval_result("embedded", "cd" * 32)))
    with pytest.raises(ExportError, match="the run folder's .*base.json.*'embedded'"):
        release(_cfg(run, tmp_path, dry_run=True), say=lambda m: None)


def test_an_eval_run_records_the_digest_of_its_weights(run_dir):
    from eval.results import new_run
    from nanoagent.weights_digest import folder_digest

    run = new_run("toolcall", str(run_dir), "MLX in-process", {})
    assert run["model"]["weights_sha256"] == folder_digest(run_dir / "model")
    assert new_run("toolcall", "http://127.0.0.1:9/v1", "endpoint", {})["model"]["weights_sha256"] is None


def test_the_loss_plot_is_drawn_when_the_run_has_none(tmp_path):
    from nanoagent.testing import save_tiny_model

    run = tmp_path / "run"
    save_tiny_model(run / "model")
    rows = [{"kind": "train", "step": i, "loss": 2.0 / i} for i in range(1, 6)] + [
        {"kind": "valid", "step": 5, "val_loss": 0.9}]
    (run / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    release(_cfg(run, tmp_path, dry_run=True), say=lambda m: None)
    card = (tmp_path / "rel" / "README.md").read_text()
    assert (tmp_path / "rel" / "training" / "loss.png").read_bytes().startswith(b"\x89PNG")
    assert "![training and validation loss](training/loss.png)" in card
