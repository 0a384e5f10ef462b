"""The two-tool coding agent: tools, sandboxed workspace, the linear loop, trajectories.

The pieces, one file each:
    tools.py       SHELL_SPEC, APPLY_PATCH_SPEC, TOOLS and the functions behind them (always return a string)
    sandbox.py     Workspace: a fresh copy of a folder, commands under bubblewrap/rbash/rlimits, diff(), apply_to()
    cgroup.py      a throwaway cgroup per workspace (process and memory caps, kill everything) where writable
    diff.py        the complete unified diff between two folders (new, deleted, renamed, binary, mode changes)
    backend.py     the Backend protocol the loop calls, Completion, ScriptedBackend for tests
    loop.py        AgentConfig, run_agent(backend, workspace, task, config) -> Trajectory, ExitStatus, run_agents
    trajectory.py  Trajectory / Step: what a run did, saved as JSON after every step; to_record()

Model backends (MLX, llama-cpp-python, OpenAI-compatible) live in nanoagent/agent/backends/.
The `nanoagent run` command is nanoagent/cli.py.
"""
