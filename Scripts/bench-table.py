#!/usr/bin/env python3
"""Prints Scripts/bench rpc's results (JSON lines) as a table with ratios against c-zmq and grpc-swift-2."""
import json
import sys

rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
by_key = {(r["impl"], r["payload"], r["inflight"]): r for r in rows}
order = ["c-zmq", "swift-rpc", "swift-rpc-io", "grpc-swift-2"]


def rate(r):
    return r["calls"] / r["seconds"] if r["seconds"] else 0.0


def size(n):
    return "64 KiB" if n == 65536 else "%d B" % n


header = ("payload", "in flight", "implementation", "p50 µs", "p99 µs", "p99.9 µs", "calls/s",
          "p50 ×C", "calls/s % of C", "calls/s × gRPC")
table = [header]
for payload in sorted({r["payload"] for r in rows}):
    for inflight in sorted({r["inflight"] for r in rows}):
        c = by_key.get(("c-zmq", payload, inflight))
        grpc = by_key.get(("grpc-swift-2", payload, inflight))
        for impl in order:
            r = by_key.get((impl, payload, inflight))
            if not r:
                continue
            p50_ratio = "%.2f" % (r["p50_us"] / c["p50_us"]) if c and c["p50_us"] else "-"
            c_share = "%.0f%%" % (100 * rate(r) / rate(c)) if c and rate(c) else "-"
            grpc_ratio = "%.1f" % (rate(r) / rate(grpc)) if grpc and rate(grpc) else "-"
            table.append((size(payload), str(inflight), impl, "%.1f" % r["p50_us"], "%.1f" % r["p99_us"],
                          "%.1f" % r["p999_us"], "%.0f" % rate(r), p50_ratio, c_share, grpc_ratio))
widths = [max(len(row[i]) for row in table) for i in range(len(header))]
for index, row in enumerate(table):
    print("  ".join(cell.rjust(widths[i]) if i >= 3 else cell.ljust(widths[i]) for i, cell in enumerate(row)))
    if index == 0:
        print("  ".join("-" * w for w in widths))
print()
print("swift-rpc: handlers and callers on Swift's global pool (the default); swift-rpc-io: both on the sockets'")
print("I/O threads (RPCServerConfiguration.handlerExecution = .ioThread, RPCClient.executor).")
