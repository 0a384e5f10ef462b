"""One adapter per source: a pure function `row -> canonical record dict` that raises `convert.Drop(reason)`.

`ADAPTERS` maps the source names used in recipes to those functions; `data_recipes.sources` adds where each
source lives (Hub id, config, split, fixture). The modules group sources that share a schema family:
xlam (xLAM-60k), smoltalk (SmolTalk apigen-80k and smol-magpie-ultra, SmolTalk2 smolagents traces),
hermes (Hermes function-calling v1, its thinking variant, function-calling-chatml), plain (orca-agentinstruct,
gsm8k_decomposed).

Left out: the synthetic source (data_recipes.synthetic) writes canonical records itself and needs no adapter.
"""

from data_recipes.adapters.hermes import chatml_fc, hermes_thinking, hermes_v1
from data_recipes.adapters.plain import gsm8k_decomposed, orca_agentinstruct
from data_recipes.adapters.smoltalk import smoltalk2_agents, smoltalk_apigen, smoltalk_magpie
from data_recipes.adapters.xlam import xlam

ADAPTERS = {
    "xlam": xlam,
    "smoltalk_apigen": smoltalk_apigen,
    "smoltalk_magpie": smoltalk_magpie,
    "smoltalk2_agents": smoltalk2_agents,
    "hermes_v1": hermes_v1,
    "hermes_thinking": hermes_thinking,
    "chatml_fc": chatml_fc,
    "orca_agentinstruct": orca_agentinstruct,
    "gsm8k_decomposed": gsm8k_decomposed,
}
