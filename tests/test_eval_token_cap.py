"""eval/token_cap.py: the replies a result cut off at its token cap, generated again with a larger one and scored;
refusals where the figure would not be exact.

Run: .venv/bin/python -m pytest tests/test_eval_token_cap.py -q
"""

import json

import pytest

from eval import token_cap
from eval.token_cap import CapError, check_exact, cut_ids, rescore
from nanoagent.agent.backend import ScriptedBackend
from nanoagent.toolcall import format_tool_call

RIGHT_0 = format_tool_call("calculate_triangle_area", {"base": 10, "height": 5})   # simple_python_0's answer


def result(items, max_tokens=256, temperature=0.0, spec="exports/m-q8_0.gguf"):
    return {"format": "nanoagent.eval", "version": 1, "kind": "toolcall", "label": "m",
            "model": {"spec": spec, "backend": "llamacpp"},
            "settings": {"max_tokens": max_tokens, "temperature": temperature},
            "suites": {"simple_python": {"items": items}}}


STORED = [{"id": "simple_python_0", "correct": False, "kind": "unclosed_tag", "finish_reason": "length",
           "reply": RIGHT_0[:30]},
          {"id": "simple_python_1", "correct": True, "kind": "ok", "finish_reason": "stop"},
          {"id": "simple_python_2", "correct": False, "kind": "wrong_value", "finish_reason": "stop"},
          {"id": "simple_python_3", "correct": False, "kind": "unclosed_tag", "finish_reason": "length"}]


def test_only_replies_that_reached_the_cap_are_picked():
    assert cut_ids(result(STORED)) == {"simple_python": ["simple_python_0", "simple_python_3"]}
    assert cut_ids(result(STORED), ["parallel"]) == {}


def test_cut_replies_are_generated_again_and_the_suite_rescored():
    # item 0 now finishes and is right; item 3 runs to the new cap again (a loop of 600 words)
    backend = ScriptedBackend([RIGHT_0, "word " * 600])
    t = rescore(backend, result(STORED), max_tokens=512)["simple_python"]
    assert (t["n"], t["correct_before"], t["cut"], t["still_cut"], t["now_right"], t["correct_after"]) == \
        (4, 1, 2, 1, 1, 2)
    assert [(r["id"], r["before"], r["after"]) for r in t["items"]] == [
        ("simple_python_0", "unclosed_tag", "ok"), ("simple_python_3", "unclosed_tag", "no_call")]
    assert len(backend.calls) == 2                       # the two replies that stopped were not generated again
    assert t["diverged"] == 0


def test_a_reply_that_does_not_begin_as_stored_is_counted():
    stored = [dict(STORED[0], reply="<tool_call>\n{\"name\": \"other\"")]
    t = rescore(ScriptedBackend([RIGHT_0]), result(stored), max_tokens=512)["simple_python"]
    assert t["diverged"] == 1 and t["items"][0]["same_start"] is False


@pytest.mark.parametrize("change, words", [
    ({"max_tokens": 512}, "not above the result's cap"),
    ({"temperature": 0.7}, "only greedy replies"),
    ({"spec": "exports/other-q8_0.gguf"}, "not exports/m-q8_0.gguf"),
])
def test_a_figure_that_would_not_be_exact_is_refused(change, words):
    with pytest.raises(CapError, match=words):
        check_exact(result(STORED, **change), "exports/m-q8_0.gguf", 512)


def test_the_command_refuses_bad_input_before_loading_a_model(tmp_path, capsys):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(result(STORED)))
    assert token_cap.main([str(path), "--model", "exports/m-q8_0.gguf", "--suites", "parallel"]) == 2
    assert "holds no suite parallel" in capsys.readouterr().err
    assert token_cap.main([str(tmp_path / "none.json"), "--model", "m.gguf"]) == 2
    assert "none.json does not exist" in capsys.readouterr().err
