"""Scratch (session 31): split tails against the same kernel's whole launch where a targets run measured both
(issue13_targets_h100_*.json): measured tail / whole next to the planner's estimated ratio, per launch."""
import json, sys, math, glob
sys.path.insert(0, '.')
sys.path.insert(0, 'benchmarks')
from planner_regret_offline import measured_of
from explainer.gpu import recorded
from explainer.model import planner
from explainer.gpu.launch import parse_launch
data = recorded.load_recorded(); sms = 132
tuned = recorded.load_tuned(device=data["device"]["name"])
rows = recorded.recorded_rows(data, split_k=True); tr = recorded.recorded_rows(tuned, split_k=True)
seen=set(); pairs=[]
for f in sorted(glob.glob('benchmarks/results/issue13_targets_h100_2026-11-2*_s*.json')):
    for r in json.load(open(f)):
        if 'its choice' not in r.get('why',''): continue
        t = measured_of(r)
        key=(r['shape'])
        wh = {}
        for lab, ms in t.items():
            n,S,T,p,red = parse_launch(lab)
            if p or red: continue
            if S==1: wh.setdefault(n,{})['whole']=ms
            elif T: wh.setdefault(n,{})[lab]=ms
        cands = None
        for n, d in wh.items():
            if 'whole' in d and len(d)>1:
                if cands is None:
                    cands = {c.label: (c.estimate_ms or c.predicted_ms) for c in planner.plan(r['M'],r['N'],r['K'],rows,sms,tr)}
                for lab, ms in d.items():
                    if lab=='whole': continue
                    if (key,lab) in seen: continue
                    seen.add((key,lab))
                    e_t, e_w = cands.get(lab), cands.get(n)
                    if e_t and e_w:
                        pairs.append((r['shape'], lab, ms/d['whole'], e_t/e_w))
for p in sorted(pairs, key=lambda p: p[2]/p[3]):
    print(f"{p[0]:>16} {p[1]:28} measured tail/whole {p[2]:.3f} model {p[3]:.3f}  off {p[2]/p[3]:.3f}")
print(len(pairs), 'geomean measured/model', math.exp(sum(math.log(p[2]/p[3]) for p in pairs)/len(pairs)))
print()
import collections
for p in sorted(pairs, key=lambda p: p[2]/p[3]):
    sh=p[0]; d=[int(x) for x in sh.split('x')]; M,N,K = d if len(d)==3 else d*3
    n,S,T,_,_ = parse_launch(p[1])
    c = next(c for c in planner.plan(M,N,K,rows,sms,tr) if c.label==p[1])
    tiles = c.grid[0]*c.grid[1]
    print(f"{sh:>16} {p[1]:28} off {p[2]/p[3]:.3f} meas {p[2]:.3f} res {c.resident} tiles/sm {tiles/132:.2f} whole/(sm*res) {(tiles-T)/(132*c.resident):.2f} Kslice {K//S} phases/slice {c.rung.phases(K)//S}")
