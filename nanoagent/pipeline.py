"""The main job, end to end on the embedded defaults: the README's first command runs this.

    python -m nanoagent.pipeline [--model SPEC] [--max-tokens N]

Today it is the foundation's smoke run: load the model (converting the embedded GGUF on first use), show it a
tool-calling conversation rendered by our one renderer, generate greedily, and print the reply, the parsed tool call
(or the parser's error, which is what the agent loop would send back to the model) and the generation speed.
Later stages (data, training, eval, export) join this same command as they land.
"""

from __future__ import annotations

import argparse
import sys
import time

import nanoagent  # noqa: F401  (OpenBLAS before mlx)
from nanoagent.models import EMBEDDED, ModelLoadError, load
from nanoagent.record import Record
from nanoagent.render import render_prompt
from nanoagent.toolcall import ToolCallError, parse

DEMO_RECORD = {
    "messages": [
        {"role": "system", "content": "You are a helpful assistant with access to tools."},
        {"role": "user", "content": "What's the weather like in Paris right now, in celsius?"},
    ],
    "tools": [
        {"type": "function", "function": {
            "name": "get_weather", "description": "Get the current weather for a city.",
            "parameters": {"type": "object", "properties": {
                "city": {"type": "string", "description": "City name, e.g. Berlin"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
                "required": ["city"]}}},
        {"type": "function", "function": {
            "name": "convert_currency", "description": "Convert an amount between two currencies.",
            "parameters": {"type": "object", "properties": {
                "amount": {"type": "number"}, "from": {"type": "string"}, "to": {"type": "string"}},
                "required": ["amount", "from", "to"]}}},
    ],
}


def run_demo(model_spec: str = EMBEDDED, max_tokens: int = 96) -> dict:
    from mlx_lm import stream_generate
    from mlx_lm.sample_utils import make_sampler

    start = time.perf_counter()
    model, tokenizer = load(model_spec)
    load_s = time.perf_counter() - start
    record = Record.from_dict(DEMO_RECORD)
    prompt = render_prompt(record.messages, record.tools, tokenizer)
    print(f"model: {model_spec} (loaded in {load_s:.1f} s)")
    print(f"user: {record.messages[-1]['content']}")
    print(f"tools offered: {', '.join(sorted(record.tool_names()))}  (prompt: {len(prompt)} tokens)")
    text, last = "", None
    for last in stream_generate(model, tokenizer, prompt, max_tokens=max_tokens, sampler=make_sampler(temp=0.0)):
        text += last.text
    print(f"\nreply:\n{text.strip()}\n")
    result = {"reply": text, "generation_tps": last.generation_tps, "prompt_tps": last.prompt_tps,
              "tokens": last.generation_tokens, "tool_calls": [], "error": None}
    try:
        reply = parse(text, record.tools)
        result["tool_calls"] = reply.tool_calls
        if reply.tool_calls:
            for call in reply.tool_calls:
                print(f"parsed tool call: {call['function']['name']}({call['function']['arguments']})")
        else:
            print("parsed tool call: none (the model answered in plain text)")
    except ToolCallError as e:
        result["error"] = f"{e.kind}: {e}"
        print(f"tool call parse error ({e.kind}): {e}")
    print(f"generation: {last.generation_tokens} tokens at {last.generation_tps:.1f} tokens/s "
          f"(prompt {last.prompt_tokens} tokens at {last.prompt_tps:.1f} tokens/s, "
          f"peak memory {last.peak_memory:.2f} GB)")
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=EMBEDDED, help="embedded (default), a model folder, a .gguf, or a Hub id")
    parser.add_argument("--max-tokens", type=int, default=96)
    args = parser.parse_args(argv)
    try:
        run_demo(args.model, args.max_tokens)
    except ModelLoadError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
