#!/usr/bin/env python3
"""Scripts/bench stack: the whole stack as processes, measured through the gateway.

1. Identification: `plantguide loadtest` (closed loop, 16 callers, on-device, a photo-like 1600x1200 JPEG) straight
   at one identification process (the baseline), then through the gateway's IdentifyPlant with one and with three
   identification replicas behind it.
2. The app's mix (list 40%, detail 30%, complete a task 15%, save a plant 15%) through the gateway's HTTP front
   with `plantguide-bench app-mix`, at open-loop rates rising by half each step from 25 a second, until p99 passes
   200 ms (or requests fail, or the achieved rate falls 10% short of the offered one), then two halvings of the
   last interval. The sustainable rate is the highest step within all three; it is reported per core of the
   machine and per core the stack itself used (PostgreSQL's server processes included). Three stacks in turn: on
   SQLite, one instance of each service (the baseline); on a throwaway PostgreSQL (fsync on), one instance; and on
   it, three replicas of care data, collection, scheduling and the gateway (the load spread over the three
   gateways). At the sustainable rate, the cores each service and PostgreSQL used per 1,000 requests a second, for
   the capacity model in Deploy/README.md.

Every table's ratios are against a baseline of the same run: the direct identification run, and the mix's
lightest step. CPU comes from /proc (the stack's processes) and from the load generator's rusage.

Usage: Scripts/stack_bench.py BIN_DIR --photo JPEG --models DIR [--duration S] [--warmup S] [--part identification|mix]
"""
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

from plantguide_stack import STATEFUL, Client, Stack, throwaway_postgres

P99_LIMIT_MS = 200.0
CORES = os.cpu_count() or 1
TICKS = os.sysconf("SC_CLK_TCK")
IDENTIFY = "/plantguide.gateway.v1.GatewayService/IdentifyPlant"


def cpu_seconds(pids):
    total = 0
    for pid in pids:
        try:
            with open("/proc/%d/stat" % pid) as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            pass
    return total / TICKS


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def postgres_pids(folder):
    """The PostgreSQL server's processes: the postmaster (first line of postmaster.pid) and its children."""
    if not folder:
        return []
    try:
        with open(os.path.join(folder, "data", "postmaster.pid")) as pidfile:
            postmaster = int(pidfile.readline())
    except (OSError, ValueError):
        return []
    children = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open("/proc/%s/stat" % entry) as stat:
                    if int(stat.read().rsplit(")", 1)[1].split()[1]) == postmaster:
                        children.append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    return [postmaster] + children


def process_groups(stack):
    """The pids of each service's replicas, and of PostgreSQL, by name."""
    groups = {name: [process.pid for process in replicas] for name, replicas in stack.processes.items()}
    if stack.postgres_folder:
        groups["postgres"] = postgres_pids(stack.postgres_folder)
    return groups


def measured(command, stack):
    """Runs `command` (which prints one JSON object); returns it with the cores the stack (PostgreSQL included),
    each of its services and the generator used."""
    groups = process_groups(stack)
    before = {name: cpu_seconds(pids) for name, pids in groups.items()}
    generator_before, started = children_cpu(), time.monotonic()
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    wall = time.monotonic() - started
    result = json.loads(output.strip().splitlines()[-1])
    result["cores_by_process"] = {name: (cpu_seconds(pids) - before[name]) / wall for name, pids in groups.items()}
    result["stack_cores"] = sum(result["cores_by_process"].values())
    result["generator_cores"] = (children_cpu() - generator_before) / wall
    return result


def identification(bin_dir, photo, models, seconds, warmup):
    plantguide = os.path.join(bin_dir, "plantguide")
    rows = []
    for label, replicas, through_gateway in (("identification direct, 1 instance (baseline)", 1, False),
                                             ("through the gateway, 1 replica", 1, True),
                                             ("through the gateway, 3 replicas", 3, True)):
        root = tempfile.mkdtemp(prefix="plantguide-bench-stack-")
        stack = Stack(bin_dir, root, replicas={"identification": replicas},
                      options={"identification": ["--cache-size", "0"]},
                      environment={"PLANTGUIDE_MODEL": "plant-cnn", "PLANTGUIDE_MODELS": models})
        try:
            stack.start_all()
            if through_gateway:
                target = [stack.endpoint("gateway"), "--method", IDENTIFY, "-H", "authorization: Bearer " + stack.add_user("bench")]
            else:
                target = [stack.endpoint("identification")]
            command = [plantguide, "loadtest"] + target + ["--photo", photo, "--identify-method", "on_device",
                                                           "--concurrency", "16", "--timeout", "60", "--json-output"]
            print("  identification: %s" % label, file=sys.stderr)
            subprocess.run(command + ["--duration", str(warmup)], check=True, capture_output=True)
            rows.append((label, measured(command + ["--duration", str(seconds)], stack)))
        finally:
            stack.stop()
            shutil.rmtree(root, ignore_errors=True)
    baseline = rows[0][1]["throughput"]
    print("| identification (16 callers, on-device, 1600x1200 JPEG) | calls/s | vs baseline | p50 ms | p99 ms "
          "| errors | stack cores busy | load generator cores |")
    print("|---|---|---|---|---|---|---|---|")
    for label, result in rows:
        errors = sum(count for status, count in result["statuses"].items() if status != "OK")
        print("| %s | %.1f | %.2fx | %.1f | %.1f | %d | %.2f | %.2f |" % (
            label, result["throughput"], result["throughput"] / baseline, result["latency_ms"]["p50"],
            result["latency_ms"]["p99"], errors, result["stack_cores"], result["generator_cores"]))


def app_mix(bin_dir, seconds, warmup, title, postgres=False, replicas=1):
    """The rate ladder on one stack; prints its table and returns the sustainable step (None if none)."""
    root = tempfile.mkdtemp(prefix="plantguide-bench-stack-")
    databases, folder = throwaway_postgres(durable=True) if postgres else (None, None)
    stack = Stack(bin_dir, root, databases=databases, postgres_folder=folder, replicas={name: replicas for name in STATEFUL})
    steps = []
    try:
        stack.start_all()
        token = stack.add_user("bench")
        client = Client(stack.http_ports, token, 10)
        plants = 50
        for number in range(1, plants + 1):
            status, _, _ = client.call("PUT", "/v1/plants/p%d" % number, {"plant": {"scientificName": "Monstera deliciosa"}})
            if status != 200:
                raise SystemExit("seeding plant p%d failed with HTTP %d" % (number, status))

        def step(rate):
            print("  %s: app mix at %.0f requests/s" % (title, rate), file=sys.stderr)
            ports = [argument for port in stack.http_ports for argument in ("--port", str(port))]
            result = measured([os.path.join(bin_dir, "plantguide-bench"), "app-mix"] + ports + [
                "--token", token, "--rate", "%.1f" % rate, "--duration", str(seconds), "--warmup", str(warmup),
                "--plants", str(plants), "--label", "rate %.0f" % rate], stack)
            result["within"] = (result["latency_ms"]["p99"] <= P99_LIMIT_MS and result["failed"] == 0
                                and result["achieved_rate"] >= 0.9 * rate)
            steps.append(result)
            return result["within"]

        rate = 25.0
        while rate < 20_000 and step(rate):
            rate *= 1.5
        # Two halvings between the last rate within the limit and the first beyond it.
        good, bad = rate / 1.5, rate
        for _ in range(2 if len(steps) > 1 else 0):
            middle = (good + bad) / 2
            good, bad = (middle, bad) if step(middle) else (good, middle)
    finally:
        stack.stop()
        shutil.rmtree(root, ignore_errors=True)
    baseline = steps[0]["latency_ms"]["p99"] or 1e-9
    print("%s:" % title)
    print()
    print("| offered/s | achieved/s | p50 ms | p90 ms | p99 ms | p99 vs lightest | max ms | failed | list p99 | detail p99 "
          "| complete p99 | save p99 | stack cores busy | load generator cores | requests per stack core-s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for step in steps:
        latency, kinds = step["latency_ms"], step["kinds"]
        print("| %.0f | %.1f | %.1f | %.1f | %.1f | %.2fx | %.1f | %d | %s | %.2f | %.2f | %.0f |" % (
            step["offered_rate"], step["achieved_rate"], latency["p50"], latency["p90"], latency["p99"], latency["p99"] / baseline,
            latency["max"], step["failed"],
            " | ".join("%.1f" % kinds[kind]["latency_ms"]["p99"] for kind in ("list", "detail", "complete", "save")),
            step["stack_cores"], step["generator_cores"], step["achieved_rate"] / max(step["stack_cores"], 1e-9)))
    within = [step for step in steps if step["within"]]
    for step in steps:
        if step["failures"]:
            print("failures at %.0f/s: %s" % (step["offered_rate"], step["failures"]))
    print()
    if within:
        best = max(within, key=lambda step: step["offered_rate"])
        print("sustainable: %.0f requests/s with p99 %.1f ms (limit %.0f ms): %.0f per core of this %d-core machine "
              "(load generator included), %.0f per core the stack used" % (
                  best["offered_rate"], best["latency_ms"]["p99"], P99_LIMIT_MS, best["offered_rate"] / CORES, CORES,
                  best["achieved_rate"] / max(best["stack_cores"], 1e-9)))
        print()
        return best
    print("not even the lightest step (%.0f/s) stayed within p99 %.0f ms" % (steps[0]["offered_rate"], P99_LIMIT_MS))
    print()
    return None


def stacks_compared(bin_dir, seconds, warmup):
    """The mix on the three stacks, then their sustainable rates side by side and each process's cores per 1,000
    requests a second at that rate."""
    results = []
    for title, postgres, replicas in (("SQLite, one instance of each service (baseline)", False, 1),
                                      ("PostgreSQL, one instance of each service", True, 1),
                                      ("PostgreSQL, three replicas of care data, collection, scheduling and the gateway", True, 3)):
        results.append((title, app_mix(bin_dir, seconds, warmup, title, postgres, replicas)))
    baseline = results[0][1]["offered_rate"] if results[0][1] else None
    names = ["gateway", "identification", "caredata", "collection", "scheduling", "postgres"]
    print("| stack | sustainable requests/s | vs SQLite | p99 ms | stack cores | requests per stack core-s | %s |" % " | ".join(
        "%s cores per 1,000/s" % name for name in names))
    print("|---|---|---|---|---|---|%s" % ("---|" * len(names)))
    for title, best in results:
        if not best:
            print("| %s | none | | | | |%s" % (title, " |" * len(names)))
            continue
        per_thousand = {name: cores * 1000 / best["achieved_rate"] for name, cores in best["cores_by_process"].items()}
        print("| %s | %.0f | %s | %.1f | %.2f | %.0f | %s |" % (
            title, best["offered_rate"], "%.2fx" % (best["offered_rate"] / baseline) if baseline else "-", best["latency_ms"]["p99"],
            best["stack_cores"], best["achieved_rate"] / max(best["stack_cores"], 1e-9),
            " | ".join("%.2f" % per_thousand[name] if name in per_thousand else "-" for name in names)))


def main():
    args = sys.argv[1:]
    if not args or args[0] in ("-h", "--help") or "--photo" not in args or "--models" not in args:
        print(__doc__)
        return 0 if args and args[0] in ("-h", "--help") else 2
    option = lambda name, default: args[args.index(name) + 1] if name in args else default  # noqa: E731
    bin_dir, photo, models = args[0], option("--photo", ""), option("--models", "")
    seconds = max(5.0, float(option("--duration", "3")))
    warmup = float(option("--warmup", "1"))
    part = option("--part", "both")
    if part in ("both", "identification"):
        identification(bin_dir, photo, models, seconds, warmup)
        print()
    if part in ("both", "mix"):
        stacks_compared(bin_dir, seconds, warmup)
    print("(%d cores; the load generators run on the same cores as the stack; the gateway's rate limit is off)" % CORES)
    return 0


if __name__ == "__main__":
    sys.exit(main())
