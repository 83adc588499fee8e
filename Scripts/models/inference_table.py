#!/usr/bin/env python3
"""Prints Scripts/bench inference results (JSON lines from plantguide-bench and onnxruntime_bench.py) as a table:
per model and batch size, each engine's latency percentiles and throughput, with ratios against onnxruntime
measured in the same run. Rows whose engine is "plantguide" and model starts with "identify"/"bare" are the
end-to-end rows, compared with the bare round trip.
"""
import json
import sys

rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
table = [("model", "batch", "engine", "p50 ms", "p90 ms", "p99 ms", "images/s", "p50 × ORT", "images/s × ORT")]
reference = {(r["model"], r["batch"]): r for r in rows if r["engine"] == "onnxruntime"}
for r in rows:
    if r["model"].startswith(("identify", "bare")):
        continue
    ort = reference.get((r["model"], r["batch"]))
    ratio = f"{r['p50_ms'] / ort['p50_ms']:.2f}" if ort and r is not ort else ("1.00" if ort else "-")
    throughput = f"{r['images_per_s'] / ort['images_per_s']:.2f}" if ort and r is not ort else ("1.00" if ort else "-")
    table.append((r["model"], str(r["batch"]), r["engine"] + (f" ({r['blas']})" if "blas" in r else ""),
                  f"{r['p50_ms']:.2f}", f"{r['p90_ms']:.2f}", f"{r['p99_ms']:.2f}", f"{r['images_per_s']:.0f}", ratio, throughput))
widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
for row in table:
    print("  ".join(cell.rjust(width) if i > 2 else cell.ljust(width) for i, (cell, width) in enumerate(zip(row, widths))))

end_to_end = [r for r in rows if r["model"].startswith(("identify", "bare"))]
if end_to_end:
    bare = next((r for r in end_to_end if r["model"].startswith("bare")), None)
    print()
    table = [("end to end over RPC", "calls", "p50 ms", "p90 ms", "p99 ms", "p50 − bare ms")]
    for r in end_to_end:
        extra = f"{r['p50_ms'] - bare['p50_ms']:.2f}" if bare and r is not bare else "-"
        table.append((r["model"], str(r["runs"]), f"{r['p50_ms']:.2f}", f"{r['p90_ms']:.2f}", f"{r['p99_ms']:.2f}", extra))
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    for row in table:
        print("  ".join(cell.rjust(width) if i > 0 else cell.ljust(width) for i, (cell, width) in enumerate(zip(row, widths))))
