"""Re-predict a sample of the GEMM sweep's points and compare with the H100 and the old model."""
import json, sys, time
sys.path.insert(0, "/work/main/benchmarks")
from pathlib import Path
from tune_sweeps import SWEEPS, ROOT
from perfcalc.tune import Sweep, space_from, tune
sw = SWEEPS[0]
hw = {r["point"]: r for r in json.load(open(ROOT/"benchmarks/hw/tune_h100/tune_times.json"))["rows"] if r["sweep"]=="gemm_tiled" and r["status"]=="ok"}
old = {}
for line in open(ROOT/"benchmarks/tune_results/gemm_tiled.jsonl").read().splitlines()[1:]:
    for r in json.loads(line)["rows"]:
        if r["status"]=="ok": old[r["point"]] = r
pts = sorted(set(hw)&set(old))
step = int(sys.argv[1]) if len(sys.argv)>1 else 40
chosen = pts[::step]
best = min(hw, key=lambda p: hw[p]["median_s"]); pick = min(old, key=lambda p: old[p]["time_s"])
chosen = sorted(set(chosen)|{best,pick})
arrays = tuple(f"{a}=float32:{c}" for a, c in sw["arrays"].items())
spec = Sweep(str(ROOT/sw["file"]), sw["kernel"], ",".join(sw["grid"]), ",".join(sw["block"]), ("h100-sxm",), arrays, {"N": "1024"}, constants={"N": "1024"})
res = []
for p in chosen:
    r = old[p]; axes = {k: r[k] for k in ("BM","BN","BK","TM","TN")}
    space = space_from([f"{k}={v}" for k,v in axes.items()])
    rep = tune(spec, space, workers=1)
    row = [x for x in rep.rows if x["status"]=="ok"]
    t = row[0]["time_s"] if row else None
    res.append((p, axes, hw[p]["median_s"], r["time_s"], t))
    print(p, axes, f"hw {hw[p]['median_s']*1e6:.1f} old {r['time_s']*1e6:.1f} new {t*1e6 if t else float('nan'):.1f}", "BEST" if p==best else "", "PICK" if p==pick else "", flush=True)
