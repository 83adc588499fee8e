#!/usr/bin/env python3
"""Prints Scripts/bench liveness results (JSON lines) as a table: Health/Check latency per service, idle (the
baseline) and saturated, with the saturated p99 as a ratio of the idle one, and the load that saturated it."""
import json
import sys

rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
health = {(r["service"], r["phase"]): r["health"] for r in rows if "health" in r}
load = {r["service"]: r["load"] for r in rows if "load" in r}
services = []
for r in rows:
    if r["service"] not in services:
        services.append(r["service"])

print("| service | phase | probes | not OK | health p50 ms | p99 ms | max ms | p99 vs idle | load calls/s | load p50 ms | load statuses |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for service in services:
    idle = health.get((service, "idle"))
    for phase in ("idle", "saturated"):
        h = health.get((service, phase))
        if not h:
            continue
        latency = h["latency_ms"]
        not_ok = sum(count for code, count in h["statuses"].items() if code != "OK")
        ratio = latency["p99"] / idle["latency_ms"]["p99"] if idle and idle["latency_ms"]["p99"] else float("nan")
        if phase == "saturated" and service in load:
            l = load[service]
            statuses = ", ".join(f"{code} {count}" for code, count in sorted(l["statuses"].items()))
            extra = f'{l["throughput"]:.0f} | {l["latency_ms"]["p50"]:.1f} | {statuses}'
        else:
            extra = "| |"
        print(f'| {service} | {phase} | {h["calls"]} | {not_ok} | {latency["p50"]:.2f} | {latency["p99"]:.2f} | '
              f'{latency["max"]:.2f} | {ratio:.1f}x | {extra} |')
