# Measuring helper for bench/sweep.sh: are two metrics.json results the same run by run (wall time aside)?
# usage: python3 bench/same_result.py DIR_A DIR_B
import json,sys
def canon(p):
    r=json.load(open(p+'/metrics.json'))
    runs={}
    for run in r['runs']:
        run=dict(run); run.pop('seconds',None); run.pop('Seconds',None)
        cur=run.get('curves') or {}
        run['curves']={k:v for k,v in cur.items() if k.split('/')[-1] not in ('SPS','seconds')}
        runs[(run['method'],run['seed'])]=json.dumps(run,sort_keys=True)
    return runs, json.dumps(r.get('summary'),sort_keys=True), r
a,sa,ra=canon(sys.argv[1]); b,sb,rb=canon(sys.argv[2])
diff=[k for k in a if a[k]!=b.get(k)]
print(len(a),"runs;", "identical" if not diff and len(a)==len(b) and sa==sb else f"DIFFER {diff[:5]} summary_same={sa==sb}")
