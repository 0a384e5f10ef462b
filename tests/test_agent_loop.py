"""The agent loop with a scripted model against the real sandbox: turns, malformed calls, budgets, trajectories.

Run: .venv/bin/python -m pytest -q tests/test_agent_loop.py
"""

import nanoagent  # noqa: F401

import json

import pytest

from nanoagent.agent.backend import Completion, ScriptedBackend
from nanoagent.agent.loop import AgentConfig, ExitStatus, run_agent, run_agents
from nanoagent.agent.sandbox import Workspace
from nanoagent.agent.tools import TOOLS
from nanoagent.agent.trajectory import Trajectory
from nanoagent.record import Record
from nanoagent.render import render
from nanoagent.toolcall import format_tool_call


def shell(cmd):
    return format_tool_call("shell", {"cmd": cmd})


FIX = format_tool_call("apply_patch", {"file": "calc.py", "search": "return a - b", "replace": "return a + b"})


@pytest.fixture
def repo(tmp_path):
    r = tmp_path / "repo"
    r.mkdir()
    (r / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    return r


@pytest.fixture
def ws(repo):
    with Workspace(repo) as w:
        yield w


def test_scripted_run_fixes_the_bug_and_saves_everything(ws, tmp_path, repo):
    path = tmp_path / "traj.json"
    seen = []
    backend = ScriptedBackend(["Looking.\n" + shell("cat calc.py"), FIX,
                               shell("python -c 'from calc import add; print(add(2, 3))'"), "Fixed add."])
    traj = run_agent(backend, ws, "fix add", AgentConfig(trajectory_path=str(path)),
                     on_step=lambda step, t: seen.append(json.loads(path.read_text())["steps"][-1]["index"]))
    assert seen == [0, 1, 2, 3]  # saved before on_step saw each step
    assert traj.exit_status == ExitStatus.ANSWERED.value
    assert [m["role"] for m in traj.messages] == ["system", "user", "assistant", "tool", "assistant", "tool",
                                                  "assistant", "tool", "assistant"]
    assert traj.messages[2]["content"] == "Looking." and traj.messages[2]["tool_calls"][0]["function"]["name"] == "shell"
    assert traj.messages[7]["content"].startswith("5\n")
    assert "-    return a - b\n+    return a + b\n" in traj.diff
    assert traj.diff_stats == {"files": 1, "lines_added": 1, "lines_removed": 1}
    assert traj.tool_stats["shell"]["calls"] == 2 and traj.tool_stats["apply_patch"]["calls"] == 1
    assert all({"model_s", "tools_s", "harness_s", "total_s"} <= set(s.timings) for s in traj.steps)
    assert traj.sandbox["fresh copy of the repo"]
    assert (repo / "calc.py").read_text().endswith("a - b\n")  # original untouched
    # the saved file is the trajectory; it loads back and gives a valid canonical record
    loaded = Trajectory.load(path)
    assert loaded.to_dict() == traj.to_dict()
    rec = Record.from_dict(loaded.to_record())
    assert rec.tools == TOOLS and rec.meta["exit_status"] == "answered" and rec.meta["diff"] == traj.diff
    # backend saw the growing conversation, tool results as tool turns
    assert backend.calls[1][-1]["role"] == "tool" and "return a - b" in backend.calls[1][-1]["content"]


def test_malformed_call_gets_parser_error_and_loop_goes_on(ws):
    backend = ScriptedBackend(['<tool_call>\n{"name": "shell", "arguments": {"cmd": "ls"}\n',  # unclosed
                               '<tool_call>\n{"name": "shell", "arguments": {cmd: ls}}\n</tool_call>',  # not JSON
                               '<tool_call>\n{"name": "rm_rf", "arguments": {}}\n</tool_call>',  # unknown
                               shell("echo ok"), "done"])
    traj = run_agent(backend, ws, "list", AgentConfig(max_format_errors=4))
    assert traj.exit_status == "answered"
    kinds = [s.error["kind"] if s.error else None for s in traj.steps]
    assert kinds == ["unclosed_tag", "not_json", "unknown_tool", None, None]
    assert traj.messages[3] == {"role": "tool", "content": "Error: " + traj.steps[0].error["message"]}
    assert "never closed" in traj.messages[3]["content"]
    assert "Available tools: apply_patch, shell" in traj.messages[7]["content"]
    assert traj.tool_stats["malformed"] == {"calls": 3, "errors": 3, "seconds": 0.0}


def test_repeated_malformed_calls_end_the_run(ws):
    traj = run_agent(ScriptedBackend(["<tool_call>{bad}</tool_call>"] * 5), ws, "x", AgentConfig(max_format_errors=3))
    assert traj.exit_status == "format_errors" and len(traj.steps) == 3


def test_repeated_command_warns_from_the_nth_in_a_row(ws):
    same = shell("echo hi")
    script = [same, same, shell("  echo hi "), same, FIX, same, same, shell("echo other"), "done"]
    traj = run_agent(ScriptedBackend(script), ws, "x", AgentConfig(repeat_warning=3, max_turns=20))
    warned = [s.results[0].get("repeated") if s.results else None for s in traj.steps]
    # the 3rd and 4th identical commands warn (spaces at the ends don't make a new command); apply_patch and another
    # command break the streak
    assert warned == [None, None, 3, 4, None, None, None, None, None]
    results = [m["content"] for m in traj.messages if m["role"] == "tool"]
    assert "same command 3 times in a row" in results[2] and "Try something else" in results[2]
    assert results[2].startswith("hi")  # the real output comes first
    assert "same command 4 times" in results[3]
    assert not any("times in a row" in r for r in results[:2] + results[4:])
    off = run_agent(ScriptedBackend([same] * 4 + ["done"]), ws, "x", AgentConfig(repeat_warning=0))
    assert not any("times in a row" in m["content"] for m in off.messages if m["role"] == "tool")
    two = run_agent(ScriptedBackend([same] * 2 + ["done"]), ws, "x", AgentConfig(repeat_warning=2))
    assert "same command 2 times in a row" in two.messages[-2]["content"]


def test_budgets_turns_tokens_wall_time(ws):
    loop = [shell("echo hi")] * 10
    assert run_agent(ScriptedBackend(loop), ws, "x", AgentConfig(max_turns=3)).exit_status == "max_turns"
    traj = run_agent(ScriptedBackend(loop), ws, "x", AgentConfig(token_budget=12))
    assert traj.exit_status == "max_tokens" and "budget 12" in traj.exit_message
    traj = run_agent(ScriptedBackend(loop), ws, "x", AgentConfig(context_limit=60))
    assert traj.exit_status == "max_tokens" and "context limit" in traj.exit_message
    traj = run_agent(ScriptedBackend([shell("sleep 5")] * 3), ws, "x", AgentConfig(wall_time=1.5))
    assert traj.exit_status == "timeout" and traj.seconds < 4


def test_backend_error_and_script_exhausted(ws):
    traj = run_agent(ScriptedBackend([shell("echo hi")]), ws, "x", AgentConfig())
    assert traj.exit_status == "backend_error" and "ScriptExhausted" in traj.exit_message
    assert len(traj.steps) == 1


def test_one_call_per_turn_unless_parallel(ws):
    two = shell("echo one") + "\n" + shell("echo two")
    traj = run_agent(ScriptedBackend([two, "done"]), ws, "x", AgentConfig())
    assert len(traj.steps[0].results) == 1 and "Only the first of 2 tool calls" in traj.messages[3]["content"]
    traj = run_agent(ScriptedBackend([two, "done"]), ws, "x", AgentConfig(parallel_tool_calls=True))
    assert [m["content"].split("\n")[0] for m in traj.messages if m["role"] == "tool"] == ["one", "two"]


def test_token_ids_and_mask_with_a_real_tokenizer(ws, tiny_tok):
    backend = ScriptedBackend([shell("echo hi"), "done"], tokenizer=tiny_tok)
    traj = run_agent(backend, ws, "say hi", AgentConfig())
    ids, mask, _ = traj.token_sequence()
    full, full_mask = render(Record.from_dict(traj.to_record()), tiny_tok)
    # the per-step sampled ids, glued with the prompts, are exactly the rendered conversation and its loss mask
    assert ids == full[:len(ids)] and mask == full_mask[:len(ids)]
    assert sum(mask) == sum(len(s.completion_ids) for s in traj.steps)
    assert traj.steps[0].prompt_tokens == len(traj.steps[0].prompt_ids)


class BatchBackend:
    """Counts batch calls; answers every conversation in lockstep."""

    def __init__(self):
        self.batches = []

    def complete_batch(self, conversations, tools, *, max_tokens, temperature, seed):
        self.batches.append(len(conversations))
        out = []
        for msgs in conversations:
            turn = sum(m["role"] == "assistant" for m in msgs)
            out.append(Completion(text=shell("echo hi") if turn == 0 else "done", completion_tokens=3))
        return out


def test_run_agents_batches_rollouts(repo, tmp_path):
    wss = [Workspace(repo) for _ in range(3)]
    try:
        backend = BatchBackend()
        trajs = run_agents(backend, wss, "x", AgentConfig(), paths=[tmp_path / f"r{i}.json" for i in range(3)])
    finally:
        for w in wss:
            w.close()
    assert backend.batches == [3, 3]
    assert [t.exit_status for t in trajs] == ["answered"] * 3
    assert Trajectory.load(tmp_path / "r2.json").meta["rollout"] == 2


def test_empty_task_is_refused(ws):
    with pytest.raises(ValueError, match="task is empty"):
        run_agent(ScriptedBackend(["x"]), ws, "  ", AgentConfig())
