#!/usr/bin/env python3
"""Prints Scripts/bench identification-scaling results (lines "MODEL<TAB>INSTANCES<TAB>loadtest JSON") as a table
with throughput relative to one instance of the same model."""
import json
import sys

rows = []
for line in open(sys.argv[1]):
    if line.strip():
        model, instances, payload = line.split("\t", 2)
        rows.append((model, int(instances), json.loads(payload)))
base = {model: r["throughput"] for model, n, r in rows if n == 1}
table = [("model", "instances", "calls", "calls/s", "× 1 instance", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms", "max ms", "statuses")]
for model, n, r in rows:
    latency = r["latency_ms"]
    table.append((model, str(n), str(r["calls"]), f"{r['throughput']:.1f}", f"{r['throughput'] / base[model]:.2f}" if model in base else "-",
                  *(f"{latency[k]:.1f}" for k in ("p50", "p90", "p99", "p99.9", "max")),
                  ", ".join(f"{k} {v}" for k, v in sorted(r["statuses"].items()))))
widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
for row in table:
    print("  ".join(cell.rjust(width) if 0 < i < 10 else cell.ljust(width) for i, (cell, width) in enumerate(zip(row, widths))))
