import json, sys
from collections import defaultdict
rows = [json.loads(l) for l in open(sys.argv[1])]
agg = defaultdict(list)
for r in rows: agg[(r['payload'], r['inflight'], r['impl'])].append(r)
order = ['c-zmq', 'base-pool', 'cur-pool', 'base-io', 'cur-io']
print("payload  in flight  build / placement   p50 µs (round 1, 2)   calls/s (round 1, 2)   calls/s % of C   p50 × C")
print("-------  ---------  ------------------  --------------------  ---------------------  ---------------  ---------")
names = {'c-zmq': 'C (libzmq)', 'base-pool': 'c1f3b29 pool', 'cur-pool': 'HEAD pool', 'base-io': 'c1f3b29 I/O thread', 'cur-io': 'HEAD I/O thread'}
for key in sorted(agg, key=lambda k: (k[0], k[1], order.index(k[2]))):
    p, i, impl = key
    rs, cs = agg[key], agg[(p, i, 'c-zmq')]
    rate = [r['calls'] / r['seconds'] for r in rs]
    crate = [c['calls'] / c['seconds'] for c in cs]
    pct = "  ".join(f"{100 * a / b:4.0f}%" for a, b in zip(rate, crate))
    ratio = "  ".join(f"{r['p50_us'] / c['p50_us']:4.2f}" for r, c in zip(rs, cs))
    size = "64 B" if p == 64 else "64 KiB"
    print(f"{size:7}  {i:9}  {names[impl]:18}  " + "  ".join(f"{r['p50_us']:9.1f}" for r in rs)
          + "  " + "  ".join(f"{x:10.0f}" for x in rate) + f"   {pct}   {ratio}")
