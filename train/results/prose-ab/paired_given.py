"""Paired count of the stated optional arguments each prose-ab arm gave, item by item, with a two-sided sign test.

    python train/results/prose-ab/paired_given.py

Reads targeted_ctl.json and targeted_prose.json beside it (targeted_items.py); an argument counts as given when a
call of the expected function holds it (eval.optional_args matches calls by order; this counts any call).
"""
import json
from math import comb
from pathlib import Path

from nanoagent.checker import stated_optional
from nanoagent.suites import load_bfcl

HERE = Path(__file__).resolve().parent
a=json.load(open(HERE / 'targeted_ctl.json')); b=json.load(open(HERE / 'targeted_prose.json'))
for s in ('simple_python','multiple','live_simple'):
    items={i.id:i for i in load_bfcl(s)[0]}
    ra={r['id']:r for r in a['suites'][s]['items']}; rb={r['id']:r for r in b['suites'][s]['items']}
    onlyA=onlyB=both=0
    for iid,it in items.items():
        if iid not in ra: continue
        fns={f['name']:f for f in it.functions}
        for ans in it.answers:
            fn,w=stated_optional(ans,fns)
            for k in w:
                ga=any(c['name']==fn and k in (c.get('arguments') or {}) for c in ra[iid]['calls'] or [])
                gb=any(c['name']==fn and k in (c.get('arguments') or {}) for c in rb[iid]['calls'] or [])
                onlyA+=ga and not gb; onlyB+=gb and not ga; both+=ga and gb
    n=onlyA+onlyB; k=min(onlyA,onlyB)
    p=min(1,2*sum(comb(n,i) for i in range(k+1))/2**n) if n else 1
    print(s,'given by both',both,'only ctl',onlyA,'only prose',onlyB,'two-sided sign test p=%.4f'%p)
