# Measuring helper for bench/sweep.sh and scripts/bitcheck.sh: are two metrics.json results the same run by run
# (wall time aside: Seconds, the SPS/seconds curves, final sps and *seconds metrics)?
# usage: python3 bench/same_result.py DIR_A DIR_B
import json,sys
def canon(p):
    r=json.load(open(p+'/metrics.json'))
    runs={}
    for run in r['runs']:
        run=dict(run); run.pop('seconds',None); run.pop('Seconds',None)
        cur=run.get('curves') or {}
        run['curves']={k:v for k,v in cur.items() if k.split('/')[-1] not in ('SPS','seconds')}
        # wall-time finals (steps per second, training seconds) differ between any two runs
        run['final']={k:v for k,v in (run.get('final') or {}).items() if not (k.split('/')[-1].lower()=='sps' or k.endswith('seconds'))}
        runs[(run['method'],run['seed'])]=json.dumps(run,sort_keys=True)
    wall=lambda k: k.split('/')[-1].lower()=='sps' or k.endswith('seconds')
    r['summary']={m:{k:v for k,v in ks.items() if not wall(k)} for m,ks in (r.get('summary') or {}).items()}
    return runs, json.dumps(r['summary'],sort_keys=True), r
a,sa,ra=canon(sys.argv[1]); b,sb,rb=canon(sys.argv[2])
diff=[k for k in a if a[k]!=b.get(k)]
def maxdiff(x,y):
    # largest absolute difference between two summaries' numbers (None when their shapes differ)
    if isinstance(x,dict) and isinstance(y,dict):
        if x.keys()!=y.keys(): return None
        ds=[maxdiff(x[k],y[k]) for k in x]
        return None if None in ds else max(ds,default=0.0)
    if isinstance(x,list) and isinstance(y,list):
        if len(x)!=len(y): return None
        ds=[maxdiff(u,v) for u,v in zip(x,y)]
        return None if None in ds else max(ds,default=0.0)
    if isinstance(x,(int,float)) and isinstance(y,(int,float)): return abs(x-y)
    return 0.0 if x==y else None
if diff or len(a)!=len(b):
    print(len(a),"runs;",f"DIFFER {diff[:5]}")
elif sa==sb:
    print(len(a),"runs; identical")
else:
    d=maxdiff(ra.get('summary'),rb.get('summary'))
    # runs bit for bit; the summary's intervals may move in the last digits when the t quantile's code changes
    print(len(a),"runs; runs identical; summary", "DIFFERS in shape" if d is None else f"max |diff| {d:.1e}")
