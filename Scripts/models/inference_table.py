#!/usr/bin/env python3
"""Prints Scripts/bench inference results (JSON lines from plantguide-bench and onnxruntime_bench.py, each tagged
with its kernel path "isa" and its "round") as one block per path: per model and batch size, each engine's median
over the rounds of its p50, p90 and p99 and throughput, and the median over the rounds of its p50 over onnxruntime's
in the same round (with the lowest and highest of those ratios, the rounds' spread). The end-to-end rows (models
starting with "identify"/"bare") follow each block, compared with the bare round trip.
"""
import json
import statistics
import sys

rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]


def aligned(table, left_columns):
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    for row in table:
        print("  ".join(cell.rjust(width) if i >= left_columns else cell.ljust(width)
                        for i, (cell, width) in enumerate(zip(row, widths))))


def median(values):
    return statistics.median(values) if values else float("nan")


for isa in dict.fromkeys(r.get("isa", "-") for r in rows):
    block = [r for r in rows if r.get("isa", "-") == isa]
    rounds = sorted({r.get("round", 1) for r in block})
    print(f"\n## path: {isa} (PLANTGUIDE_INFERENCE_ISA={isa}; {len(rounds)} round{'s' if len(rounds) != 1 else ''})")
    models = [r for r in block if not r["model"].startswith(("identify", "bare"))]
    keys = list(dict.fromkeys((r["model"], r["batch"], r["engine"]) for r in models))
    ort = {(r["model"], r["batch"], r.get("round", 1)): r for r in models if r["engine"] == "onnxruntime"}
    table = [("model", "batch", "engine", "p50 ms", "p90 ms", "p99 ms", "images/s", "p50 × ORT", "rounds' × ORT")]
    for model, batch, engine in keys:
        runs = [r for r in models if (r["model"], r["batch"], r["engine"]) == (model, batch, engine)]
        ratios = [r["p50_ms"] / ort[(model, batch, r.get("round", 1))]["p50_ms"]
                  for r in runs if (model, batch, r.get("round", 1)) in ort]
        label = engine + (f" ({runs[0]['blas']})" if "blas" in runs[0] else "")
        spread = f"{min(ratios):.2f}-{max(ratios):.2f}" if ratios and engine != "onnxruntime" else "-"
        table.append((model, str(batch), label, f"{median([r['p50_ms'] for r in runs]):.2f}",
                      f"{median([r['p90_ms'] for r in runs]):.2f}", f"{median([r['p99_ms'] for r in runs]):.2f}",
                      f"{median([r['images_per_s'] for r in runs]):.0f}", f"{median(ratios):.2f}" if ratios else "-", spread))
    aligned(table, 3)

    end_to_end = [r for r in block if r["model"].startswith(("identify", "bare"))]
    if end_to_end:
        print()
        table = [("end to end over RPC", "calls", "p50 ms", "p90 ms", "p99 ms", "p50 − bare ms", "p50 × libjpeg-turbo")]
        bare = median([r["p50_ms"] for r in end_to_end if r["model"].startswith("bare")])
        # The baseline: the same service with every JPEG left to libjpeg-turbo, in the same rounds.
        baseline = [r["p50_ms"] for r in end_to_end if "libjpeg-turbo" in r["model"]]
        for model in dict.fromkeys(r["model"] for r in end_to_end):
            runs = [r for r in end_to_end if r["model"] == model]
            p50 = median([r["p50_ms"] for r in runs])
            extra = f"{p50 - bare:.2f}" if not model.startswith("bare") else "-"
            ratio = f"{p50 / median(baseline):.2f}" if baseline and not model.startswith("bare") else "-"
            table.append((model, str(sum(r["runs"] for r in runs)), f"{p50:.2f}", f"{median([r['p90_ms'] for r in runs]):.2f}",
                          f"{median([r['p99_ms'] for r in runs]):.2f}", extra, ratio))
        aligned(table, 1)
