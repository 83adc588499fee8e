#!/usr/bin/env python3
"""Scripts/bench scaling: how far more cores take a service.

1. Identification: `plantguide loadtest` (closed loop, 8 callers per replica, on-device, cache off) against 1, 2,
   4, ... replicas up to the machine's cores (and the core count itself), each replica pinned to a core of its own
   with one inference worker. The load generator is pinned to the cores no replica holds; when every core holds
   one, it runs beside them (the table says so). With the default model (the photo's decoding is most of a call)
   and a MobileNetV2-shaped one (the model is), when its repository is there. Calls/s, speed-up over one replica,
   efficiency (speed-up per replica), and latency percentiles: a stall shows in p99.9 and max.
2. The app's mix through the gateway on a throwaway PostgreSQL (fsync on), with one instance of each stateful
   service (the baseline) and with as many replicas as the machine has cores (stack_bench.app_mix's rate ladder:
   the sustainable rate is the highest step with p99 within 200 ms). Needs plantguide-bench (a build, not a bundle).

Usage: Scripts/scaling_bench.py BIN_DIR PHOTO MODELS [--duration S] [--warmup S] [--part identification|mix]
         [--mobilenet-repository DIR]
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from plantguide_stack import Stack

CORES = os.cpu_count() or 1
CALLERS_PER_REPLICA = 8


def replica_counts():
    """1, 2, 4, ... below the core count, then the core count."""
    counts, count = [], 1
    while count < CORES:
        counts.append(count)
        count *= 2
    return counts + [CORES]


def identification_run(bin_dir, photo, repository, model, replicas, seconds, warmup):
    """One step of the curve: the replicas started pinned, warmed up, measured; the loadtest's JSON and where the
    load generator ran."""
    root = tempfile.mkdtemp(prefix="plantguide-bench-scaling-")
    stack = Stack(bin_dir, root, replicas={"identification": replicas}, launcher=lambda name, replica: ["taskset", "-c", str(replica)],
                  options={"identification": ["--models", repository, "--model", model, "--cache-size", "0", "--inference-workers", "1"]})
    try:
        stack.start("identification")
        free = list(range(replicas, CORES))
        pin = ["taskset", "-c", ",".join(map(str, free))] if free else []
        generator = "cores %s" % ",".join(map(str, free)) if free else "beside the replicas"
        command = pin + [os.path.join(bin_dir, "plantguide"), "loadtest", stack.target("identification"), "--photo", photo,
                         "--identify-method", "on_device", "--concurrency", str(CALLERS_PER_REPLICA * replicas), "--timeout", "60",
                         "--json-output"]
        print("  identification, %s, %d replica(s), load generator on %s" % (model, replicas, generator), file=sys.stderr)
        subprocess.run(command + ["--duration", str(warmup)], check=True, capture_output=True)
        output = subprocess.run(command + ["--duration", str(seconds)], check=True, capture_output=True, text=True).stdout
        return json.loads(output), generator
    finally:
        stack.stop()
        shutil.rmtree(root, ignore_errors=True)


def identification(bin_dir, photo, models, mobilenet_repository, seconds, warmup):
    specs = [("plant-cnn", models)]
    if mobilenet_repository and os.path.isfile(os.path.join(mobilenet_repository, "mobilenetv2-random", "model.onnx")):
        specs.append(("mobilenetv2-random", mobilenet_repository))
    else:
        print("(no MobileNetV2-shaped model in %s: its curve is left out)" % mobilenet_repository)
    print("| model | replicas | load generator | calls | calls/s | speed-up | efficiency | p50 ms | p90 ms | p99 ms "
          "| p99.9 ms | max ms | not OK |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for model, repository in specs:
        baseline = None
        for replicas in replica_counts():
            result, generator = identification_run(bin_dir, photo, repository, model, replicas, seconds, warmup)
            baseline = baseline or result["throughput"]
            speedup = result["throughput"] / baseline
            latency = result["latency_ms"]
            failures = sum(count for status, count in result["statuses"].items() if status != "OK")
            print("| %s | %d | %s | %d | %.1f | %.2fx | %.0f %% | %.1f | %.1f | %.1f | %.1f | %.1f | %d |" % (
                model, replicas, generator, result["calls"], result["throughput"], speedup, 100 * speedup / replicas,
                latency["p50"], latency["p90"], latency["p99"], latency["p99.9"], latency["max"], failures), flush=True)
    print()
    print("(%d cores: %s; each replica one process pinned to one core, %d callers per replica, cache off; the photo %s)" % (
        CORES, open("/proc/cpuinfo").read().split("model name")[1].split(":")[1].split("\n")[0].strip(),
        CALLERS_PER_REPLICA, os.path.basename(photo)))


def mix(bin_dir, seconds, warmup):
    from stack_bench import app_mix
    replicas = max(2, CORES)
    results = []
    for count in (1, replicas):
        title = "PostgreSQL, %d replica(s) of care data, collection, scheduling and the gateway" % count
        results.append((count, app_mix(bin_dir, seconds, warmup, title, postgres=True, replicas=count)))
    print("| replicas of each stateful service | sustainable requests/s | speed-up | efficiency | p99 ms | stack cores |")
    print("|---|---|---|---|---|---|")
    baseline = results[0][1]["offered_rate"] if results[0][1] else None
    for count, best in results:
        if not best:
            print("| %d | none within p99 200 ms | | | | |" % count)
            continue
        speedup = best["offered_rate"] / baseline if baseline else float("nan")
        print("| %d | %.0f | %.2fx | %.0f %% | %.1f | %.2f |" % (
            count, best["offered_rate"], speedup, 100 * speedup / count, best["latency_ms"]["p99"], best["stack_cores"]))
    print()
    print("(%d cores, shared by the stack, PostgreSQL and the load generator)" % CORES)


def main():
    args = sys.argv[1:]
    if len(args) < 3 or args[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if args and args[0] in ("-h", "--help") else 2
    option = lambda name, default: args[args.index(name) + 1] if name in args else default  # noqa: E731
    bin_dir, photo, models = args[0], args[1], args[2]
    seconds = max(5.0, float(option("--duration", "3")) * 3)
    warmup = float(option("--warmup", "1"))
    part = option("--part", "both")
    if shutil.which("taskset") is None:
        raise SystemExit("scaling: taskset (util-linux) is needed to pin the replicas")
    started = time.time()
    if part in ("both", "identification"):
        identification(bin_dir, photo, models, option("--mobilenet-repository", ""), seconds, warmup)
        print()
    if part in ("both", "mix"):
        if not os.path.exists(os.path.join(bin_dir, "plantguide-bench")):
            raise SystemExit("scaling: the mix needs plantguide-bench (Scripts/bench scaling without --bin)")
        mix(bin_dir, seconds, warmup)
    print("(%.0f s)" % (time.time() - started), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
