"""The model card's usage section: commands and code that work as written against the released files.

    text = usage_section("me/tiny-agent", "tiny-agent-Q8_0.gguf")     # markdown
    code = snippets("me/tiny-agent", "tiny-agent-Q8_0.gguf")          # {"openai": python source, ...}

Blocks: download with `hf download` (huggingface_hub's CLI; `huggingface-cli` is gone from current releases),
`nanoagent serve` with the official OpenAI client (calls come back as `tool_calls`), llama-cpp-python (which
renders the tools with the GGUF's chat template but returns the call as `<tool_call>` text in `content`: the card
says so and parses it with nanoagent's parser), MLX and the nanoagent laptop agent. tests/test_export_card.py runs the
Python blocks: the OpenAI one against `nanoagent serve`, the llama-cpp-python one on a GGUF.

Left out: llama.cpp's own server (whether it turns this chat template's `<tool_call>` text into `tool_calls` depends
on its version, and nothing here checks it).
"""

from __future__ import annotations

TOOLS = '''tools = [{"type": "function", "function": {
    "name": "get_weather", "description": "Current weather in a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]
messages = [{"role": "user", "content": "What's the weather in Lisbon?"}]'''


def snippets(repo_id: str, gguf_name: str) -> dict[str, str]:
    """Each usage block's code, by name (bash: download, serve, mlx, agent; Python: openai, llama_cpp)."""
    return {
        "download": f"pip install -U huggingface_hub\nhf download {repo_id} {gguf_name} --local-dir .",
        "serve": f"nanoagent serve {gguf_name} --port 8080",
        "openai": f'''from openai import OpenAI

client = OpenAI(base_url="http://127.0.0.1:8080/v1", api_key="none")
{TOOLS}
reply = client.chat.completions.create(model="{gguf_name}", messages=messages, tools=tools)
message = reply.choices[0].message
print(message.tool_calls or message.content)
# [ChatCompletionMessageFunctionToolCall(id='call_...', function=Function(arguments='{{"city": "Lisbon"}}',
#   name='get_weather'), type='function')]''',
        "llama_cpp": f'''from llama_cpp import Llama
from nanoagent.toolcall import parse

llm = Llama(model_path="{gguf_name}", n_ctx=2048, verbose=False)
{TOOLS}
reply = llm.create_chat_completion(messages=messages, tools=tools, temperature=0, max_tokens=256)
text = reply["choices"][0]["message"]["content"]
print(text)  # <tool_call>\\n{{"name": "get_weather", "arguments": {{"city": "Lisbon"}}}}\\n</tool_call>
print(parse(text, tools).tool_calls)
# [{{'type': 'function', 'function': {{'name': 'get_weather', 'arguments': {{'city': 'Lisbon'}}}}}}]''',
        "mlx": f'mlx_lm.generate --model {repo_id} --prompt "What is the capital of France?"',
        "agent": f'nanoagent run --model {gguf_name} --repo PATH/TO/REPO "fix the failing test"',
    }


def usage_section(repo_id: str, gguf_name: str) -> str:
    code = snippets(repo_id, gguf_name)
    return "\n".join([
        "## Usage\n",
        f"Download the GGUF (huggingface_hub's `hf` command):\n\n```bash\n{code['download']}\n```\n",
        "### With `nanoagent serve` and any OpenAI client\n",
        "`nanoagent serve` (this project's server, installed with nanoagent) decodes tool calls under the request's "
        "tools' schemas and returns them as OpenAI `tool_calls`, streamed as `tool_calls` deltas with "
        "`stream=True`:\n",
        f"```bash\n{code['serve']}\n```\n",
        f"```python\n{code['openai']}\n```\n",
        "### With llama-cpp-python\n",
        "llama-cpp-python renders the tools with the GGUF's chat template, but returns the model's call as "
        "`<tool_call>` text in `message[\"content\"]`: its `tool_calls` stays empty. Parse the text with nanoagent's "
        "parser (`nanoagent.toolcall.parse`, which also checks the call against the tool's schema and raises "
        "`ToolCallError` when it is broken), or use `nanoagent serve` above, which returns `tool_calls`.\n",
        f"```python\n{code['llama_cpp']}\n```\n",
        "### With MLX\n",
        f"The safetensors (bfloat16) load with mlx-lm:\n\n```bash\n{code['mlx']}\n```\n",
        "### The nanoagent laptop agent\n",
        f"```bash\n{code['agent']}\n```\n",
    ])
