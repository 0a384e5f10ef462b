"""The loop with the real in-process MLX backend on a tiny random model: exact ids, log-probs and the loss mask.

The tiny model writes noise, so the run ends by a budget or an answer; what is checked is that the trajectory's
per-step sampled ids glue into one sequence whose mask covers exactly the sampled tokens.

Run: .venv/bin/python -m pytest -q tests/test_agent_mlx_loop.py
"""

import nanoagent  # noqa: F401  (before mlx)

import pytest

from nanoagent.agent.loop import AgentConfig, run_agent
from nanoagent.agent.sandbox import Workspace


def test_mlx_backend_trajectory_has_exact_ids(tmp_path):
    pytest.importorskip("mlx.core")
    from nanoagent.agent.backends import load_backend
    from nanoagent.testing import save_tiny_model

    folder = save_tiny_model(tmp_path / "tiny")
    backend = load_backend(str(folder))
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.txt").write_text("x\n")
    with Workspace(repo) as ws:
        traj = run_agent(backend, ws, "look around", AgentConfig(max_turns=2, max_tokens_per_turn=12,
                                                                 temperature=1.0, seed=3, max_format_errors=5))
    assert traj.exit_status in ("answered", "max_turns"), traj.exit_message
    for step in traj.steps:
        assert step.completion_ids and len(step.logprobs) == len(step.completion_ids) == len(step.mask)
        assert all(lp <= 0 for lp in step.logprobs)
        assert step.completion_tokens == len(step.completion_ids)
    ids, mask, logprobs = traj.token_sequence()
    assert sum(mask) == sum(len(s.completion_ids) for s in traj.steps)
    assert ids[:len(traj.steps[0].prompt_ids)] == traj.steps[0].prompt_ids
