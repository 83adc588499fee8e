#!/usr/bin/env python3
"""Prints Scripts/bench kernels results (JSON lines from Benchmarks/c/packed_gemm_bench.c, each tagged with its
"round") as one table: per shape and kernel path, the median over the rounds of p50 and p90 and the GFLOPS at that
p50, and the p50 over the baseline path's in the same round (the first path measured: the CPU's best), as the median
and the lowest and highest over the rounds.
"""
import json
import statistics
import sys

rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
paths = list(dict.fromkeys(r["isa"] for r in rows))
baseline = paths[0]
table = [["layer", "m", "k", "n", "path", "p50 µs", "p90 µs", "GFLOPS", f"p50 × {baseline}", "rounds' ×"]]
for layer in dict.fromkeys(r["layer"] for r in rows):
    for isa in paths:
        mine = [r for r in rows if r["layer"] == layer and r["isa"] == isa]
        base = {r["round"]: r["p50_us"] for r in rows if r["layer"] == layer and r["isa"] == baseline}
        ratios = [r["p50_us"] / base[r["round"]] for r in mine if r["round"] in base]
        p50 = statistics.median(r["p50_us"] for r in mine)
        first = mine[0]
        table.append([layer, str(first["m"]), str(first["k"]), str(first["n"]), isa, f"{p50:.1f}",
                      f"{statistics.median(r['p90_us'] for r in mine):.1f}", f"{2 * first['m'] * first['k'] * first['n'] / p50 / 1e3:.1f}",
                      f"{statistics.median(ratios):.2f}", "-" if isa == baseline else f"{min(ratios):.2f}-{max(ratios):.2f}"])
widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
for row in table:
    print("  ".join(cell.ljust(width) if i in (0, 4) else cell.rjust(width) for i, (cell, width) in enumerate(zip(row, widths))))
