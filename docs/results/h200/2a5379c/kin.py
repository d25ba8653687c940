"""Make records as if measured on another device: kin.py IN OUT NAME PARAMS MS [ID]."""
import json, sys
src, dst, name, params, ms = sys.argv[1:6]
d = json.load(open(src))
pt = {k: int(v) for k, v in (kv.split("=") for kv in params.split(","))}
for p in d["problems"]:
    p["key"]["device"]["name"] = name
    if len(sys.argv) > 6:
        p["id"] = sys.argv[6]
    for r in p["runs"]:
        e = r["evaluations"][0]
        e.update(params=pt, outcome="ok", ms=float(ms), times=[float(ms)], seq=1, order=1)
        r["evaluations"] = [e]
json.dump(d, open(dst, "w"))
