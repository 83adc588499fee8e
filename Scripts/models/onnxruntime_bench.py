#!/usr/bin/env python3
"""Times onnxruntime (CPU) on one model, batch and thread count, printing one JSON line in the format of
`plantguide-bench inference`, so that Scripts/bench inference compares both in the same run.

Usage: onnxruntime_bench.py MODEL NAME --batch N --threads T --iterations K [--warmup W]
"""
import argparse
import json
import time

import numpy as np
import onnxruntime


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("name")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--iterations", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=5)
    args = parser.parse_args()

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = args.threads
    options.inter_op_num_threads = 1
    options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
    session = onnxruntime.InferenceSession(args.model, options, providers=["CPUExecutionProvider"])
    port = session.get_inputs()[0]
    shape = [args.batch] + [d if isinstance(d, int) else 1 for d in port.shape[1:]]
    feed = {port.name: np.random.default_rng(7).uniform(-1, 1, shape).astype(np.float32)}
    for _ in range(args.warmup):
        session.run(None, feed)
    samples = []
    for _ in range(args.iterations):
        start = time.perf_counter()
        session.run(None, feed)
        samples.append((time.perf_counter() - start) * 1000)
    ordered = sorted(samples)
    pick = lambda p: ordered[min(len(ordered) - 1, int(len(ordered) * p))]
    print(json.dumps({
        "engine": "onnxruntime", "model": args.name, "batch": args.batch, "threads": args.threads, "runs": len(samples),
        "p50_ms": round(pick(0.5), 3), "p90_ms": round(pick(0.9), 3), "p99_ms": round(pick(0.99), 3),
        "images_per_s": round(args.batch * len(samples) / (sum(samples) / 1000), 1)}))


if __name__ == "__main__":
    main()
