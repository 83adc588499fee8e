#!/usr/bin/env python3
"""Prints Scripts/bench gateway's results (JSON lines labelled "USE-CASE KIND [CALL]") as a table, then the
issue's three targets against what was measured in the same run.

Scripts/gateway_bench_table.py RESULTS

- list: one bare call (collection ListPlants); the gateway may add at most 0.3 ms at p50, 1 in flight.
- detail: two calls made in parallel (the plant; its schedule with its open tasks); the gateway's p50 may be at
  most 1.5x the slowest of them.
- save: four calls made one after the other; shown next to their sum (no target).
- HTTP throughput at 64 in flight at least 60% of the RPC front's, for each use case.
- sign-in (CreateSession, one Argon2id check) on its own; and list and detail over RPC while 50 sign-ins a second
  go on (labelled "... signins rpc"): their p99 at most 1.2x the same call's without them, measured in the same run.
"""
import json
import sys

rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]


def rate(r):
    return r["calls"] / r["seconds"] if r["seconds"] else 0.0


def find(case, kind, inflight):
    return [r for r in rows if r["impl"].split(" ")[:2] == [case, kind] and r["inflight"] == inflight]


def composed(case, inflight):
    """The bare calls' p50: the slowest for calls made in parallel (detail), the sum for calls in sequence."""
    parts = [r["p50_us"] for r in find(case, "bare", inflight)]
    if not parts:
        return None
    return max(parts) if case == "detail" else sum(parts)


def print_table(table):
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    for index, row in enumerate(table):
        print("  ".join(cell.ljust(widths[i]) if i < 3 else cell.rjust(widths[i]) for i, cell in enumerate(row)))
        if index == 0:
            print("  ".join("-" * w for w in widths))


table = [("use case", "in flight", "path", "p50 µs", "p99 µs", "calls/s", "p50 - bare µs", "p50 × bare")]
for case in ("list", "detail", "save"):
    for inflight in sorted({r["inflight"] for r in rows}):
        bare = composed(case, inflight)
        for r in [r for r in rows if r["impl"].startswith(case + " ") and r["inflight"] == inflight and "signins" not in r["impl"]]:
            kind = r["impl"].split(" ")[1]
            name = " ".join(r["impl"].split(" ")[1:])
            compare = ("%.0f" % (r["p50_us"] - bare), "%.2f" % (r["p50_us"] / bare)) if kind != "bare" and bare else ("", "")
            table.append((case, str(inflight), name, "%.1f" % r["p50_us"], "%.1f" % r["p99_us"], "%.0f" % rate(r)) + compare)
print_table(table)
print()
print("bare: the service calls the use case makes, straight to each service; for detail the slowest of the two")
print("(made in parallel), for save the sum of the four (made in sequence).")
print()


def target(what, measured, goal, met):
    return (what, measured, goal, "yes" if met else "NO")


checks = [("target", "measured", "goal", "met")]
rpc_list, bare_list = find("list", "rpc", 1), find("list", "bare", 1)
if rpc_list and bare_list:
    added = rpc_list[0]["p50_us"] - bare_list[0]["p50_us"]
    checks.append(target("list, 1 in flight: p50 the gateway adds (RPC)", "%.0f µs" % added, "≤ 300 µs", added <= 300))
http_list = find("list", "http", 1)
if http_list and bare_list:
    added = http_list[0]["p50_us"] - bare_list[0]["p50_us"]
    checks.append(target("list, 1 in flight: p50 the gateway adds (HTTP)", "%.0f µs" % added, "≤ 300 µs", added <= 300))
for inflight in sorted({r["inflight"] for r in rows}):
    slowest = composed("detail", inflight)
    for kind in ("rpc", "http"):
        detail = find("detail", kind, inflight)
        if detail and slowest:
            ratio = detail[0]["p50_us"] / slowest
            checks.append(target("detail, %d in flight (%s): p50 × slowest part" % (inflight, kind.upper()), "%.2f" % ratio, "≤ 1.5",
                                 ratio <= 1.5))
for case in ("list", "detail", "save"):
    rpc, http = find(case, "rpc", 64), find(case, "http", 64)
    if rpc and http and rate(rpc[0]):
        share = 100 * rate(http[0]) / rate(rpc[0])
        checks.append(target("%s, 64 in flight: HTTP calls/s of RPC's" % case, "%.0f%%" % share, "≥ 60%", share >= 60))
signin = [r for r in rows if r["impl"].startswith("signin ")]
loaded = [r for r in rows if "signins" in r["impl"]]
if signin or loaded:
    print()
    print("sign-in, and list and detail while 50 sign-ins a second go on (each sign-in one Argon2id check, m=19 MiB t=2):")
    table = [("call", "in flight", "p50 µs", "p99 µs", "calls/s", "p99 × unloaded")]
    for r in signin:
        table.append((r["impl"], str(r["inflight"]), "%.1f" % r["p50_us"], "%.1f" % r["p99_us"], "%.0f" % rate(r), ""))
    for r in loaded:
        case = r["impl"].split(" ")[0]
        unloaded = find(case, "rpc", r["inflight"])
        ratio = r["p99_us"] / unloaded[0]["p99_us"] if unloaded and unloaded[0]["p99_us"] else None
        table.append((r["impl"], str(r["inflight"]), "%.1f" % r["p50_us"], "%.1f" % r["p99_us"], "%.0f" % rate(r),
                      "%.2f" % ratio if ratio else ""))
        if ratio:
            checks.append(target("%s, %d in flight, under 50 sign-ins/s: p99 × unloaded" % (case, r["inflight"]), "%.2f" % ratio, "≤ 1.2",
                                 ratio <= 1.2))
    print_table(table)
    print()
print_table(checks)
