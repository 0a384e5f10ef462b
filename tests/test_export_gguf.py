"""GGUF export on the tiny random llama: exact round trip, metadata, llama.cpp parity, bad input, atomic writes.

Run: .venv/bin/python -m pytest tests/test_export_gguf.py -q
The tiny model (nanoagent.testing) makes every export take a fraction of a second; tests/test_export_embedded.py
does the few checks only the real 135M model proves.
"""

import json
import os
import re

import nanoagent  # noqa: F401  (OpenBLAS before mlx)
import numpy as np
import pytest

from export.gguf import main
from export.source import ExportError, resolve_source
from nanoagent.config import ConfigError
from nanoagent.gguf_writer import permute_rows, write_gguf
from nanoagent.gguf_import import _unpermute

TEXTS = ["hello there, 12345 cats", "<|im_start|>user\nweather in Paris?<|im_end|>\n<|im_start|>assistant\n",
         "def f(x):\n\treturn {\"a\": x}  # ünïcödé 🙂"]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    from export.source import load_source
    from nanoagent.testing import save_tiny_model

    folder = save_tiny_model(tmp_path_factory.mktemp("tiny") / "model")
    src = resolve_source(str(folder))
    model, tok, weights = load_source(src)
    return src, model, tok, weights


@pytest.fixture(scope="module")
def exported(tiny, tmp_path_factory):
    src, _, tok, weights = tiny
    out = tmp_path_factory.mktemp("gguf")
    return {q: write_gguf(weights, src.config, tok, out / f"tiny-{q}.gguf", q, progress=False)["path"]
            for q in ("f32", "f16", "q8_0")}


def _reader(path):
    from gguf import GGUFReader

    return GGUFReader(path)


def test_permutation_is_the_inverse_of_the_importers():
    rng = np.random.default_rng(0)
    for n_head, head_dim, cols in [(9, 64, 576), (3, 64, 576), (4, 16, 64), (1, 2, 3)]:
        w = rng.standard_normal((n_head * head_dim, cols)).astype(np.float32)
        p = permute_rows(w, n_head)
        assert not np.array_equal(p, w) or head_dim == 2 and n_head == 1
        np.testing.assert_array_equal(np.asarray(_unpermute(p, n_head)), w)


def test_f32_round_trip_through_the_importer_is_exact(tiny, exported, tmp_path, monkeypatch):
    """export (F32) -> nanoagent.models.load(gguf) -> the very same weights, config and tokenizer."""
    from mlx.utils import tree_flatten

    from nanoagent.models import load
    from nanoagent.render import backend_tokenizer

    monkeypatch.setenv("NANOAGENT_CACHE", str(tmp_path / "cache"))
    src, _, tok, weights = tiny
    model2, tok2 = load(exported["f32"])
    back = {k: np.asarray(v) for k, v in tree_flatten(model2.parameters())}
    assert set(back) == set(weights)
    for k in weights:
        np.testing.assert_array_equal(back[k], weights[k], err_msg=k)
    from nanoagent.models import resolve_model_path

    cfg2 = json.loads((resolve_model_path(exported["f32"]) / "config.json").read_text())
    for key in ("hidden_size", "num_hidden_layers", "intermediate_size", "num_attention_heads",
                "num_key_value_heads", "head_dim", "rope_theta", "vocab_size", "tie_word_embeddings",
                "eos_token_id", "bos_token_id", "pad_token_id"):
        assert cfg2[key] == src.config[key], key
    a, b = backend_tokenizer(tok), backend_tokenizer(tok2)
    assert a.get_vocab() == b.get_vocab()
    for text in TEXTS:
        assert a.encode(text, add_special_tokens=False).ids == b.encode(text, add_special_tokens=False).ids


def test_metadata_and_tensor_layout(exported, tiny):
    from nanoagent.render import CHAT_TEMPLATE

    _, _, tok, weights = tiny
    r = _reader(exported["q8_0"])
    meta = {name: f.contents() for name, f in r.fields.items()}
    assert meta["general.architecture"] == "llama" and meta["general.file_type"] == 7
    assert meta["tokenizer.ggml.model"] == "gpt2" and meta["tokenizer.ggml.pre"] == "smollm"
    assert meta["tokenizer.ggml.add_bos_token"] is False
    assert meta["tokenizer.chat_template"] == CHAT_TEMPLATE
    assert meta["tokenizer.ggml.eos_token_id"] == 2 and meta["tokenizer.ggml.padding_token_id"] == 2
    types = meta["tokenizer.ggml.token_type"]
    assert types[:3] == [3, 3, 3] and set(types[3:]) == {1}
    assert len(meta["tokenizer.ggml.tokens"]) == weights["model.embed_tokens.weight"].shape[0]
    assert meta["tokenizer.ggml.merges"][0] == "Ġ t"
    by_name = {t.name: t for t in r.tensors}
    assert "output.weight" not in by_name  # tied embeddings: token_embd serves as the output
    assert all(t.tensor_type.name == "F32" for n, t in by_name.items() if "norm" in n)
    assert all(t.tensor_type.name == "Q8_0" for n, t in by_name.items() if "norm" not in n)
    assert {t.tensor_type.name for t in _reader(exported["f16"]).tensors} == {"F16", "F32"}


def test_quantized_weights_stay_within_rounding(exported, tiny):
    """F16 within half-precision rounding; Q8_0 within half a step (amax/127 per block of 32) plus the float16
    rounding of the block scale."""
    from gguf.quants import dequantize

    _, _, _, weights = tiny
    src = weights["model.layers.1.mlp.down_proj.weight"]
    for q, tol in (("f16", 1e-3), ("q8_0", None)):
        t = next(t for t in _reader(exported[q]).tensors if t.name == "blk.1.ffn_down.weight")
        got = dequantize(t.data, t.tensor_type).reshape(src.shape)
        blocks = np.abs(src).reshape(src.shape[0], -1, 32).max(-1, keepdims=True)
        bound = np.repeat(blocks / 127 * 0.65, 32, -1).reshape(src.shape) if tol is None else tol * np.abs(src) + 1e-7
        assert np.all(np.abs(got - src) <= bound + 1e-6), q


def test_untied_model_gets_an_output_tensor(tmp_path):
    from export.source import load_source
    from nanoagent.testing import save_tiny_model

    folder = save_tiny_model(tmp_path / "untied", tie_word_embeddings=False)
    src = resolve_source(str(folder))
    _, tok, weights = load_source(src)
    path = write_gguf(weights, src.config, tok, tmp_path / "u.gguf", "f32", progress=False)["path"]
    names = {t.name for t in _reader(path).tensors}
    assert "output.weight" in names and "token_embd.weight" in names


def test_embedding_type_sets_only_the_vocabulary_matrices(tiny, tmp_path):
    """--embedding-type f16 on a Q8_0 export: token_embd (and an untied output) F16, every other matrix Q8_0."""
    from export.source import load_source
    from nanoagent.testing import save_tiny_model

    src, _, tok, weights = tiny
    res = write_gguf(weights, src.config, tok, tmp_path / "t.gguf", "q8_0", progress=False, embedding_type="f16")
    types = {t.name: t.tensor_type.name for t in _reader(res["path"]).tensors}
    assert types.pop("token_embd.weight") == "F16" and res["embedding_type"] == "f16"
    assert {t for n, t in types.items() if "norm" not in n} == {"Q8_0"} and not res["fallback_f16"]
    untied = resolve_source(str(save_tiny_model(tmp_path / "untied", tie_word_embeddings=False)))
    _, tok2, weights2 = load_source(untied)
    res = write_gguf(weights2, untied.config, tok2, tmp_path / "u.gguf", "q8_0", progress=False, embedding_type="f16")
    types = {t.name: t.tensor_type.name for t in _reader(res["path"]).tensors}
    assert types["token_embd.weight"] == types["output.weight"] == "F16" and types["blk.0.ffn_down.weight"] == "Q8_0"
    assert write_gguf(weights, src.config, tok, tmp_path / "d.gguf", "q8_0", progress=False)["embedding_type"] == "q8_0"


def test_llama_cpp_runs_the_file_with_our_tokens_and_logits(exported, tiny):
    llama_cpp = pytest.importorskip("llama_cpp")
    import mlx.core as mx

    from nanoagent.render import backend_tokenizer

    _, model, tok, _ = tiny
    ours = backend_tokenizer(tok)
    # F32 with a float32 KV cache (llama.cpp's default cache is F16) must match MLX to float rounding: measured 1.8e-6.
    for q, atol, kv in (("f32", 1e-4, {"type_k": 0, "type_v": 0}), ("f32", 5e-3, {}), ("f16", 2e-2, {}),
                        ("q8_0", 1e-1, {})):  # logits are O(2); a wrong permutation or tensor is off by O(1)
        llm = llama_cpp.Llama(exported[q], logits_all=True, n_ctx=512, n_threads=1, verbose=False, **kv)
        for text in TEXTS:
            ids = llm.tokenize(text.encode(), add_bos=False, special=True)
            assert ids == ours.encode(text, add_special_tokens=False).ids, (q, text)
        ids = ours.encode(TEXTS[1], add_special_tokens=False).ids
        llm.eval(ids)
        ref = np.asarray(llm.scores[: len(ids)])
        mine = np.asarray(model(mx.array([ids]))[0])
        assert np.abs(ref - mine).max() < atol and np.abs(ref - mine).mean() < atol / 4, q
        llm.close()


def test_a_missing_permutation_is_caught(tiny, tmp_path, monkeypatch):
    """The logits check can fail: without llama.cpp's Q/K row order the file runs but computes something else."""
    llama_cpp = pytest.importorskip("llama_cpp")
    import mlx.core as mx

    import nanoagent.gguf_writer as writer

    src, model, tok, weights = tiny
    monkeypatch.setattr(writer, "permute_rows", lambda w, n_head: w)
    path = write_gguf(weights, src.config, tok, tmp_path / "bad.gguf", "f32", progress=False)["path"]
    llm = llama_cpp.Llama(path, logits_all=True, n_ctx=512, n_threads=1, verbose=False)
    ids = tok.encode(TEXTS[1], add_special_tokens=False)
    llm.eval(ids)
    diff = np.abs(np.asarray(llm.scores[: len(ids)]) - np.asarray(model(mx.array([ids]))[0]))
    llm.close()
    assert diff.max() > 0.1


def test_cli_refuses_an_amx_llama_build_before_writing(tiny, tmp_path, capsys, monkeypatch):
    llama_cpp = pytest.importorskip("llama_cpp")
    monkeypatch.setattr(llama_cpp, "llama_print_system_info", lambda: b"CPU : AVX512 = 1 | AMX_INT8 = 1 | ")
    monkeypatch.delenv("NANOAGENT_LLAMA_AMX", raising=False)
    out = tmp_path / "t.gguf"
    assert main(["--model", str(tiny[0].folder), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "AMX" in err and "scripts/setup.sh" in err and "--no-check" in err
    assert not out.exists()


def test_cli_writes_file_report_and_config_and_parity_passes(tiny, tmp_path, capsys):
    pytest.importorskip("llama_cpp")
    src = tiny[0]
    out = tmp_path / "sub" / "t.gguf"
    assert main(["--model", str(src.folder), "--out", str(out), "--tool-tokens", "8"]) == 0
    err = capsys.readouterr().err
    assert "greedy next-token agreement" in err and "parity: PASS" in err
    assert re.search(r"parity: 100%.* 19/19 ", err)  # one bar: 8 prompts, 4 greedy replies, the text, 6 chats
    record = json.loads((tmp_path / "sub" / "t.export.json").read_text())
    assert record["config"]["type"] == "q8_0" and record["export"]["bytes"] == out.stat().st_size
    p = record["parity"]
    assert p["next_token"]["rate"] >= 0.98 and p["perplexity"]["relative_diff"] < 0.01
    assert p["tool_calls"]["same_parse"] == p["tool_calls"]["total"]
    assert p["chat_format"]["jinja_identical"] == p["chat_format"]["total"]
    assert oct(out.stat().st_mode & 0o777) == oct(0o666 & ~_umask())
    assert main(["--model", str(src.folder), "--out", str(out), "--embedding-type", "F16", "--no-check"]) == 0
    assert json.loads((tmp_path / "sub" / "t.export.json").read_text())["config"]["embedding_type"] == "f16"
    assert next(t for t in _reader(out).tensors if t.name == "token_embd.weight").tensor_type.name == "F16"


def _umask():
    m = os.umask(0)
    os.umask(m)
    return m


def test_config_yaml_then_flags(tiny, tmp_path):
    from export.gguf import parse_args

    (tmp_path / "c.yaml").write_text(f"model: {tiny[0].folder}\ntype: f16\ncheck: false\n")
    cfg = parse_args(["--config", str(tmp_path / "c.yaml"), "--type", "f32"])
    assert cfg.type == "f32" and cfg.check is False and cfg.model == str(tiny[0].folder)
    (tmp_path / "bad.yaml").write_text("typo_key: 1\n")
    with pytest.raises(ConfigError, match="typo_key"):
        parse_args(["--config", str(tmp_path / "bad.yaml")])
    assert main(["--config", str(tmp_path / "bad.yaml")]) == 2  # bad input: exit 2, as for the export's own checks


@pytest.fixture
def no_work(monkeypatch):
    """Bad input must be refused before the model is loaded."""
    monkeypatch.setattr("export.source.load_source", lambda *a: pytest.fail("loaded the model despite bad input"))


def test_bad_input_fails_before_work(tiny, tmp_path, no_work, capsys):
    folder = str(tiny[0].folder)
    (tmp_path / "empty").mkdir()
    (tmp_path / "afile").write_text("x")
    mistral = tmp_path / "mistral"
    mistral.mkdir()
    cfg = json.loads((tiny[0].folder / "config.json").read_text())
    (mistral / "config.json").write_text(json.dumps({**cfg, "model_type": "mistral"}))
    cases = [
        (["--model", str(tmp_path / "empty"), "--out", str(tmp_path / "a.gguf")], "not a model folder"),
        (["--model", str(mistral), "--out", str(tmp_path / "a.gguf")], "'mistral' is not supported"),
        (["--model", folder, "--out", str(tmp_path / "a.gguf"), "--type", "q4_k"], "q4_k"),
        (["--model", folder, "--out", str(tmp_path / "a.gguf"), "--embedding-type", "q6_k"],
         "--embedding-type 'q6_k' is not supported"),
        (["--model", folder, "--out", str(tmp_path / "afile" / "x.gguf")], "cannot create"),
        (["--model", folder, "--out", str(tmp_path)], "is a folder"),
        (["--model", folder, "--out", str(tmp_path / "x.bin")], "must end in .gguf"),
        (["--model", str(tmp_path / "missing"), "--out", str(tmp_path / "a.gguf")], "not found"),
    ]
    for argv, message in cases:
        assert main(argv) == 2, argv
        assert message in capsys.readouterr().err, argv
    assert not (tmp_path / "a.gguf").exists()


def test_failed_export_leaves_no_partial_file(tiny, tmp_path, monkeypatch):
    src, _, tok, weights = tiny
    out = tmp_path / "keep.gguf"
    out.write_bytes(b"the previous good file")
    calls = {"n": 0}
    import nanoagent.gguf_writer as writer

    real = writer.encode_tensor

    def boom(w, q):
        calls["n"] += 1
        if calls["n"] == 5:
            raise RuntimeError("disk full (simulated)")
        return real(w, q)

    monkeypatch.setattr(writer, "encode_tensor", boom)
    with pytest.raises(RuntimeError, match="disk full"):
        write_gguf(weights, src.config, tok, out, "q8_0", progress=False)
    assert out.read_bytes() == b"the previous good file"
    assert [p.name for p in tmp_path.iterdir()] == ["keep.gguf"]  # no temporary file left behind


def test_unsupported_tokenizers_are_refused(tiny):
    from tokenizers import Tokenizer, models, pre_tokenizers

    from nanoagent.gguf_vocab import pre_tokenizer_name, tokenizer_metadata

    assert pre_tokenizer_name({"type": "ByteLevel", "add_prefix_space": False, "use_regex": True}) == "gpt2"
    with pytest.raises(ExportError, match="no llama.cpp equivalent"):
        pre_tokenizer_name({"type": "Whitespace"})
    wp = Tokenizer(models.WordPiece({"[UNK]": 0, "a": 1}, unk_token="[UNK]"))
    wp.pre_tokenizer = pre_tokenizers.Whitespace()
    with pytest.raises(ExportError, match="byte-level BPE"):
        tokenizer_metadata(wp, 2)
    with pytest.raises(ExportError, match="does not belong"):
        tokenizer_metadata(tiny[2], 10)


def test_the_agent_backend_runs_the_exported_file(exported, tiny):
    """nanoagent's LlamaCppBackend on the file with our tokenizer: its tokenizer probe matches and it generates."""
    pytest.importorskip("llama_cpp")
    from nanoagent.agent.backends import load_backend

    backend = load_backend(exported["q8_0"], n_ctx=512, n_threads=1, tokenizer=tiny[2])
    try:
        c = backend.complete([{"role": "user", "content": "hi"}], [], max_tokens=4, temperature=0.0, seed=0)
        assert c.completion_tokens >= 1 and len(c.prompt_ids) > 3
    finally:
        backend.close()


# Regression: tokenizer_for_gguf() once passed a Path where read_metadata wants a reader, so every GGUF but
# the embedded one crashed `nanoagent run --model FILE.gguf`.
def test_the_agent_backend_rebuilds_the_tokenizer_from_the_exported_file(exported):
    pytest.importorskip("llama_cpp")
    from nanoagent.agent.backends import load_backend

    load_backend(exported["q8_0"], n_ctx=512, n_threads=1).close()


def test_a_greedy_reply_that_parts_at_a_near_tie_passes_one_that_parts_at_a_clear_choice_fails():
    """quality-cpu-b34m's Q8_0 called get_weather where MLX declined, from a first token whose MLX top-2 margin was
    0.08: rounding carried through greedy decoding, as the next-token check allows. A clear choice that differs fails."""
    from export.config import ExportConfig
    from export.gguf import verdict

    def report(margin):
        case = {"same_parse": False, "divergence_margin": margin}
        return {"next_token": {"rate": 0.97, "max_disagreement_margin": 0.3}, "perplexity": {"relative_diff": 0.002},
                "tool_calls": {"cases": [case, {"same_parse": True, "divergence_margin": None}], "total": 2}}

    cfg = ExportConfig(type="q8_0")
    assert verdict(report(0.33), cfg) == []
    assert verdict(report(2.5), cfg) == ["greedy tool-call parses differ on 1/2 prompts where the replies part at "
                                         "a clear choice (MLX top-2 margin > 1.0)"]
    assert len(verdict(report(None), cfg)) == 1  # a report without the margin keeps the strict rule
