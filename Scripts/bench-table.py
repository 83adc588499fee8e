#!/usr/bin/env python3
"""Prints Scripts/bench results (JSON lines) as a table with ratios against baselines of the same run.

Scripts/bench-table.py RESULTS                              rpc: ratios against c-zmq and grpc-swift-2
Scripts/bench-table.py --baseline NAME RESULTS              ratios against the implementation NAME only
"""
import json
import sys

args = sys.argv[1:]
baseline = None
if args[:1] == ["--baseline"]:
    baseline, args = args[1], args[2:]
rows = [json.loads(line) for line in open(args[0]) if line.strip()]
by_key = {(r["impl"], r["payload"], r["inflight"]): r for r in rows}
order = []
for r in rows:
    if r["impl"] not in order:
        order.append(r["impl"])


def rate(r):
    return r["calls"] / r["seconds"] if r["seconds"] else 0.0


def size(n):
    return "64 KiB" if n == 65536 else "%d B" % n


if baseline:
    header = ("in flight", "call", "request", "p50 µs", "p99 µs", "p99.9 µs", "calls/s", "p50 × bare", "calls/s % of bare")
else:
    header = ("payload", "in flight", "implementation", "p50 µs", "p99 µs", "p99.9 µs", "calls/s",
              "p50 ×C", "calls/s % of C", "calls/s × gRPC")
table = [header]
for inflight in sorted({r["inflight"] for r in rows}):
    for payload in sorted({r["payload"] for r in rows}):
        c = by_key.get(("c-zmq", payload, inflight))
        grpc = by_key.get(("grpc-swift-2", payload, inflight))
        for impl in order:
            r = by_key.get((impl, payload, inflight))
            if not r:
                continue
            measures = ("%.1f" % r["p50_us"], "%.1f" % r["p99_us"], "%.1f" % r["p999_us"], "%.0f" % rate(r))
            if baseline:
                base = next((b for b in rows if b["impl"] == baseline and b["inflight"] == inflight), None)
                p50 = "%.2f" % (r["p50_us"] / base["p50_us"]) if base and base["p50_us"] else "-"
                share = "%.0f%%" % (100 * rate(r) / rate(base)) if base and rate(base) else "-"
                table.append((str(inflight), impl, "%d B" % payload) + measures + (p50, share))
            else:
                p50 = "%.2f" % (r["p50_us"] / c["p50_us"]) if c and c["p50_us"] else "-"
                share = "%.0f%%" % (100 * rate(r) / rate(c)) if c and rate(c) else "-"
                vs_grpc = "%.1f" % (rate(r) / rate(grpc)) if grpc and rate(grpc) else "-"
                table.append((size(payload), str(inflight), impl) + measures + (p50, share, vs_grpc))
if not baseline:
    table = [table[0]] + sorted(table[1:], key=lambda row: (0 if row[0] == "64 B" else 1, int(row[1])))
widths = [max(len(row[i]) for row in table) for i in range(len(header))]
for index, row in enumerate(table):
    print("  ".join(cell.rjust(widths[i]) if i >= 3 else cell.ljust(widths[i]) for i, cell in enumerate(row)))
    if index == 0:
        print("  ".join("-" * w for w in widths))
if not baseline:
    print()
    print("swift-rpc: handlers and callers on Swift's global pool (the default); swift-rpc-io: both on each process's")
    print("RPC I/O thread (RPCServerConfiguration.handlerExecution = .ioThread, RPCClient.executor); swift-rpc-inproc:")
    print("the same server and client in one process, calls through the server loop's mailbox with no socket.")
