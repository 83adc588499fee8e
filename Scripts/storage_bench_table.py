#!/usr/bin/env python3
"""Prints Scripts/bench storage's table: each call's p50 and p99 on SQLite and on PostgreSQL, PostgreSQL's over
SQLite's, and the targets of issue 23 (search p99 at most 5 ms on PostgreSQL; every other figure within 2x of
SQLite's). Usage: storage_bench_table.py RESULTS.jsonl"""
import json
import sys


def main():
    rows = {}
    order = []
    for line in open(sys.argv[1]):
        result = json.loads(line)
        call, backend = result["impl"].rsplit(" [", 1)
        if call not in rows:
            order.append(call)
        rows.setdefault(call, {})[backend.rstrip("]")] = result
    print("| call | SQLite p50 | p99 | PostgreSQL p50 | p99 | PostgreSQL / SQLite p50 | p99 | target |")
    print("|---|---|---|---|---|---|---|---|")
    missed = 0
    for call in order:
        sqlite, postgres = rows[call].get("sqlite"), rows[call].get("postgres")
        if not sqlite or not postgres:
            continue
        ratio50 = postgres["p50_us"] / max(sqlite["p50_us"], 0.001)
        ratio99 = postgres["p99_us"] / max(sqlite["p99_us"], 0.001)
        if "no target" in call:
            print("| %s | %s | %s | %s | %s | %.2fx | %.2fx | - |" % (
                call, ms(sqlite["p50_us"]), ms(sqlite["p99_us"]), ms(postgres["p50_us"]), ms(postgres["p99_us"]), ratio50, ratio99))
            continue
        if call.startswith("search"):
            met = postgres["p99_us"] <= 5_000
            target = "p99 ≤ 5 ms: %s" % ("met" if met else "MISSED")
        else:
            met = ratio50 <= 2 and ratio99 <= 2
            target = "≤ 2x: %s" % ("met" if met else "MISSED")
        missed += not met
        print("| %s | %s | %s | %s | %s | %.2fx | %.2fx | %s |" % (
            call, ms(sqlite["p50_us"]), ms(sqlite["p99_us"]), ms(postgres["p50_us"]), ms(postgres["p99_us"]), ratio50, ratio99, target))
    print()
    targeted = [call for call in order if "no target" not in call]
    print("%d of %d calls meet their target" % (len(targeted) - missed, len(targeted)))


def ms(microseconds):
    return "%.2f ms" % (microseconds / 1000) if microseconds >= 100 else "%.0f µs" % microseconds


if __name__ == "__main__":
    main()
