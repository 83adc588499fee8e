#!/usr/bin/env python3
"""Prints Benchmarks/rpc-ab.sh's JSON lines as a table: each build and placement's p50 and calls/s per round, and
both against the C ping-pong of the same round. Usage: Benchmarks/rpc-ab-table.py RESULTS [BASE_NAME [CUR_NAME]]"""
import json
import sys
from collections import defaultdict

base_name = sys.argv[2] if len(sys.argv) > 2 else "base"
cur_name = sys.argv[3] if len(sys.argv) > 3 else "HEAD"
rows = [json.loads(line) for line in open(sys.argv[1]) if line.startswith("{")]
runs = defaultdict(list)
for row in rows:
    runs[(row["payload"], row["inflight"], row["impl"])].append(row)
order = ["c-zmq", "base-pool", "cur-pool", "base-io", "cur-io"]
names = {"c-zmq": "C (libzmq)", "base-pool": base_name + " pool", "cur-pool": cur_name + " pool",
         "base-io": base_name + " I/O thread", "cur-io": cur_name + " I/O thread"}
print("payload  in flight  build / placement   p50 µs (rounds)       calls/s (rounds)       calls/s % of C   p50 × C")
print("-------  ---------  ------------------  --------------------  ---------------------  ---------------  ---------")
for key in sorted(runs, key=lambda k: (k[0], k[1], order.index(k[2]))):
    payload, inflight, impl = key
    mine, c = runs[key], runs[(payload, inflight, "c-zmq")]
    rate = [r["calls"] / r["seconds"] for r in mine]
    c_rate = [r["calls"] / r["seconds"] for r in c]
    share = "  ".join(f"{100 * a / b:4.0f}%" for a, b in zip(rate, c_rate))
    ratio = "  ".join(f"{r['p50_us'] / b['p50_us']:4.2f}" for r, b in zip(mine, c))
    size = "64 B" if payload == 64 else "64 KiB"
    print(f"{size:7}  {inflight:9}  {names[impl]:18}  " + "  ".join(f"{r['p50_us']:9.1f}" for r in mine)
          + "  " + "  ".join(f"{x:10.0f}" for x in rate) + f"   {share}   {ratio}")
