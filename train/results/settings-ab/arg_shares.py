"""How many arguments a call gives, and how many of them are optional, in BFCL answers and in a data build's
single-call rows.   python arg_shares.py data/default/train.jsonl
"""
import json, collections, sys
from nanoagent.bfcl_data import load
def hist(c):
    n=sum(c.values()); return {k: round(100*v/n,1) for k,v in sorted(c.items())}
for cat in ['simple_python','multiple','live_simple']:
    nargs=collections.Counter(); nopt=collections.Counter()
    for it in load(cat):
        gt=it.answers[0]; (name, params), = gt.items()
        f=[f for f in it.functions if f['name']==name][0]
        req=set(f.get('parameters',{}).get('required',[]))
        must=[p for p,v in params.items() if "" not in v]
        nargs[min(len(must),5)]+=1; nopt[min(sum(p not in req for p in must),3)]+=1
    print(cat, 'args given', hist(nargs), 'optional given', hist(nopt))
nargs=collections.Counter(); nopt=collections.Counter(); n=0
for line in open(sys.argv[1]):
    r=json.loads(line); m=[x for x in r['messages'] if x['role']=='assistant' and x.get('tool_calls')]
    if not m or len(m[0]['tool_calls'])!=1: continue
    call=m[0]['tool_calls'][0]['function']; tools={t['function']['name']:t['function'] for t in r.get('tools',[])}
    if call['name'] not in tools: continue
    req=set(tools[call['name']].get('parameters',{}).get('required',[]))
    a=call['arguments'] if isinstance(call['arguments'],dict) else json.loads(call['arguments'])
    nargs[min(len(a),5)]+=1; nopt[min(sum(p not in req for p in a),3)]+=1; n+=1
print('train single-call rows', n, 'args given', hist(nargs), 'optional given', hist(nopt))
