"""The catalogue of named sources: where each lives on the Hub, its known configs and splits, its adapter, fixture.

A recipe names sources by the keys of `SOURCES`; `synthetic` is the generated source (data_recipes.synthetic)
and has no Hub id. Known configs/splits let a recipe with a typo fail before any download starts.

Left out: discovering configs and splits from the Hub at run time (that needs the network; a recipe that names a
config or split outside this table must set `check_split: false` on the entry, and the Hub then decides).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures"


@dataclass(frozen=True)
class Source:
    name: str
    hub: str | None                     # Hugging Face dataset id
    config: str | None                  # default config (None: the dataset has one)
    split: str                          # default split
    splits: dict = field(default_factory=dict)  # config -> known splits
    tools: bool = True                  # rows offer tools (for the summary only)

    @property
    def fixture(self) -> Path:
        return FIXTURES / f"{self.name}.jsonl"


ORCA_SPLITS = ["creative_content", "text_modification", "struct2text_flow", "rc", "rag", "text_extraction", "mcq",
               "follow_up", "analytical_reasoning", "fermi", "fs_cot_flow", "code_", "brain_teaser",
               "text_classification", "open_domain_qa"]

SOURCES: dict[str, Source] = {s.name: s for s in [
    Source("xlam", "Salesforce/xlam-function-calling-60k", None, "train", {None: ["train"]}),
    Source("smoltalk_apigen", "HuggingFaceTB/smoltalk", "apigen-80k", "train", {"apigen-80k": ["train", "test"]}),
    Source("smoltalk_magpie", "HuggingFaceTB/smoltalk", "smol-magpie-ultra", "train",
           {"smol-magpie-ultra": ["train", "test"]}, tools=False),
    Source("smoltalk2_agents", "HuggingFaceTB/smoltalk2", "SFT", "smolagents_toolcalling_traces_think",
           {"SFT": ["smolagents_toolcalling_traces_think"]}),
    Source("hermes_v1", "NousResearch/hermes-function-calling-v1", "func_calling_singleturn", "train",
           {c: ["train"] for c in ["func_calling_singleturn", "func_calling", "glaive_func_calling",
                                   "json_mode_agentic", "json_mode_singleturn"]}),
    Source("hermes_thinking", "Jofthomas/hermes-function-calling-thinking-V1", None, "train", {None: ["train"]}),
    Source("chatml_fc", "Locutusque/function-calling-chatml", None, "train", {None: ["train"]}),
    Source("orca_agentinstruct", "microsoft/orca-agentinstruct-1M-v1", "default", "code_",
           {"default": ORCA_SPLITS}, tools=False),
    Source("gsm8k_decomposed", "weijie210/gsm8k_decomposed", None, "train", {None: ["train", "test"]}, tools=False),
    Source("synthetic", None, None, "train", {None: ["train"]}),
]}
