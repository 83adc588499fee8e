#!/usr/bin/env python3
"""The multi-host test behind Scripts/multihost: the stack spread over network namespaces, one host per service,
each joined to the gateway's host by a veth pair, and one service host after another cut off from the network
and restored while the gateway's HTTP front is probed without pause.

The cut takes the service host's interface down, so the gateway sees what a pulled cable or a dead machine
looks like: packets vanish, and no reset comes. Scripts/multihost runs this in a network namespace of its own (the
gateway's host), so nothing of it touches the machine's network; each service host is a network namespace held by
a `sleep` process and entered with nsenter, which needs no mounts (so it also runs in a chroot). The links use
addresses of 127.0.0.0/8 (127.100.N.0/24), with loopback routing narrowed to 127.0.0.0/16 in each namespace, so
that every address in the test stays a loopback one.

It checks, for each cut, and exits 1 when one fails:
- the gateway reports the host unavailable (its /readyz) within DETECT seconds;
- from then until the host is back, every request that needs it is answered 503 within FAST seconds;
- requests that need only the other hosts keep succeeding;
- no request reaches its DEADLINE;
- within RECOVERY seconds of the host's return, requests that need it succeed again and /readyz is ready.

Usage: Scripts/multihost.py BIN_DIR [--cut SECONDS]   (Scripts/multihost builds it and enters a network namespace)
"""
import functools
import os
import subprocess
import sys
import tempfile
import threading
import time

from plantguide_stack import Client, Loops, Stack

DETECT = 2.5
FAST = 0.25
RECOVERY = 3.0
DEADLINE = 5.0
# The service hosts the test cuts, and a request of the HTTP front that needs that host (and no other host that
# is cut meanwhile).
PROBES = {
    "collection": "/v1/plants?filter.page_size=20",
    "caredata": "/v1/care/Monstera%20deliciosa",
    "scheduling": "/v1/tasks?view=VIEW_OPEN",
}
HOSTS = {name: "127.100.%d.2" % number for number, name in enumerate(
    ["identification", "caredata", "collection", "scheduling"], start=1)}


# Service name -> the process holding its host's network namespace.
HOLDERS = {}


def run(*command):
    subprocess.run(command, check=True)


def enter(name):
    """The command prefix that runs a program in `name`'s host."""
    return ["nsenter", "--net=/proc/%d/ns/net" % HOLDERS[name].pid, "--"]


def in_host(name, *command):
    run(*enter(name), *command)


def make_loopback_routable(execute):
    """Lets 127.100.0.0/16 leave through veth links: loopback keeps 127.0.0.0/16 only, and route_localnet on."""
    execute("ip", "link", "set", "lo", "up")
    execute("ip", "route", "del", "local", "127.0.0.0/8", "dev", "lo", "table", "local")
    execute("ip", "route", "add", "local", "127.0.0.0/16", "dev", "lo", "table", "local")
    for interface in ("all", "default"):
        # Written through /proc rather than with sysctl, which a minimal Debian lacks (procps).
        execute("sh", "-c", "echo 1 > /proc/sys/net/ipv4/conf/%s/route_localnet" % interface)


def build_network():
    """This namespace is the gateway's host; each service gets a host namespace and a link to it."""
    make_loopback_routable(run)
    for name, address in HOSTS.items():
        number = address.split(".")[2]
        # The holder dies with this test (SIGKILL when its parent goes), and the namespace with it.
        HOLDERS[name] = subprocess.Popen(["setpriv", "--pdeathsig", "KILL", "unshare", "--net", "sleep", "infinity"])
        own = os.readlink("/proc/self/ns/net")
        for _ in range(500):
            if os.readlink("/proc/%d/ns/net" % HOLDERS[name].pid) != own:
                break
            time.sleep(0.01)
        else:
            raise SystemExit("the host namespace of %s did not come up" % name)
        make_loopback_routable(lambda *command: in_host(name, *command))
        run("ip", "link", "add", "link" + number, "type", "veth", "peer", "name", "eth0", "netns", str(HOLDERS[name].pid))
        run("ip", "addr", "add", "127.100.%s.1/24" % number, "dev", "link" + number)
        run("ip", "link", "set", "link" + number, "up")
        in_host(name, "ip", "addr", "add", address + "/24", "dev", "eth0")
        in_host(name, "ip", "link", "set", "eth0", "up")


class Probes(Loops):
    """One thread per probe path calling it without pause, and one polling /readyz; everything timestamped."""

    def __init__(self, client):
        super().__init__()
        self.client = client
        self.lock = threading.Lock()
        self.events = []  # (started, path, status, seconds)
        self.readiness = []  # (time, {service: state})

    def probe(self, path):
        while not self.stopping.is_set():
            started = time.monotonic()
            status, _, seconds = self.client.call("GET", path)
            with self.lock:
                self.events.append((started, path, status, seconds))
            time.sleep(0.02)

    def watch_readiness(self):
        while not self.stopping.is_set():
            status, body, _ = self.client.call("GET", "/readyz")
            with self.lock:
                self.readiness.append((time.monotonic(), body.get("services", {}) if status in (200, 503) else {}))
            time.sleep(0.1)

    def start(self):
        self.start_loops(*[functools.partial(self.probe, path) for path in PROBES.values()], self.watch_readiness)

    def of(self, path, start, end):
        with self.lock:
            return [e for e in self.events if e[1] == path and start <= e[0] < end]

    def all_ready_after(self, moment):
        with self.lock:
            samples = [(t, states) for t, states in self.readiness if t >= moment]
        return next((t for t, states in samples if states and all(v == "SERVING" for v in states.values())), None)

    def first_unavailable(self, name, moment):
        with self.lock:
            return next((t for t, states in self.readiness if t >= moment and states.get(name, "SERVING") != "SERVING"), None)


def cut_and_restore(name, probes, client, cut_seconds, failures):
    """Cuts `name`'s host off for `cut_seconds`, restores it, and returns its table row."""
    path = PROBES[name]
    cut = time.monotonic()
    in_host(name, "ip", "link", "set", "eth0", "down")
    time.sleep(cut_seconds)
    status, body, _ = client.call("GET", "/v1/status")
    reported = next((s for s in body.get("services", []) if s.get("name") == name), {})
    restored = time.monotonic()
    in_host(name, "ip", "link", "set", "eth0", "up")
    until = restored + RECOVERY + 2
    while time.monotonic() < until:
        time.sleep(0.2)
        recent = probes.of(path, time.monotonic() - 0.5, time.monotonic())
        if recent and all(e[2] == 200 for e in recent) and probes.all_ready_after(restored):
            break
    time.sleep(0.5)

    detected = probes.first_unavailable(name, cut)
    detect_seconds = (detected - cut) if detected else None
    if detect_seconds is None or detect_seconds > DETECT:
        failures.append("%s: /readyz did not report it unavailable within %.1f s of the cut" % (name, DETECT))
    if status != 200 or reported.get("serving", False) or not reported.get("error"):
        failures.append("%s: /v1/status did not report it unavailable during the cut (%d, %s)" % (name, status, reported))
    settled = cut + DETECT
    during = probes.of(path, settled, restored)
    slow_or_wrong = [e for e in during if e[2] != 503 or e[3] > FAST]
    if not during or slow_or_wrong:
        failures.append("%s: %d of %d requests after detection were not a 503 within %.2f s: %s" % (
            name, len(slow_or_wrong), len(during), FAST, sorted({(e[2], round(e[3], 2)) for e in slow_or_wrong})[:5]))
    others = [e for other, other_path in PROBES.items() if other != name for e in probes.of(other_path, cut, restored)]
    other_errors = [e for e in others if e[2] != 200]
    if other_errors:
        failures.append("%s: %d requests to the other hosts failed during its cut: %s" % (
            name, len(other_errors), sorted({(e[1], e[2]) for e in other_errors})))
    after = probes.of(path, restored, time.monotonic())
    errors_after = [e for e in after if e[2] != 200]
    recovered = max(e[0] + e[3] for e in errors_after) - restored if errors_after else 0.0
    ready_at = probes.all_ready_after(restored)
    if recovered > RECOVERY or ready_at is None or ready_at - restored > RECOVERY:
        failures.append("%s: not recovered within %.1f s of its return (requests %.2f s, ready %s)" % (
            name, RECOVERY, recovered, "never" if ready_at is None else "%.2f s" % (ready_at - restored)))
    latencies = sorted(e[3] for e in during) or [0.0]
    first_503 = next((e[0] + e[3] - cut for e in probes.of(path, cut, restored) if e[2] == 503), None)
    return (name, "%.2f" % detect_seconds if detect_seconds is not None else "never",
            "%.2f" % first_503 if first_503 is not None else "never", len(during),
            "%.1f" % (latencies[len(latencies) // 2] * 1000), "%.1f" % (latencies[-1] * 1000), len(others) - len(other_errors),
            len(others), "%.2f" % recovered, "%.2f" % (ready_at - restored) if ready_at else "never")


def main():
    args = sys.argv[1:]
    if not args or args[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if args else 2
    bin_dir = args[0]
    cut_seconds = float(args[args.index("--cut") + 1]) if "--cut" in args else 4.0
    build_network()
    root = tempfile.mkdtemp(prefix="plantguide-multihost-")
    stack = Stack(bin_dir, root, hosts=HOSTS, launcher=lambda name, replica: [] if name == "gateway" else enter(name))
    failures = []
    rows = []
    probes = None
    try:
        stack.start_all()
        client = Client(stack.http_port, stack.add_user("multihost"), DEADLINE)
        for number in range(1, 6):
            status, _, _ = client.call("PUT", "/v1/plants/p%d" % number, {"plant": {"scientificName": "Monstera deliciosa"}})
            if status != 200:
                raise SystemExit("saving a plant before the cuts failed with %d" % status)
        probes = Probes(client)
        probes.start()
        time.sleep(1)
        for name in PROBES:
            rows.append(cut_and_restore(name, probes, client, cut_seconds, failures))
        probes.stop()
        late = [e for e in probes.events if e[2] in (-1, 0)]
        if late:
            failures.append("%d requests got no answer within their %.0f s deadline: %s" % (
                len(late), DEADLINE, sorted({e[1] for e in late})))
    finally:
        if probes:
            probes.stopping.set()
        stack.stop()
        for holder in HOLDERS.values():
            holder.kill()

    print("| host cut off | reported unavailable after s | first 503 after s | requests after detection | 503 p50 ms "
          "| 503 max ms | other hosts' requests ok | back after return s | ready after return s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        print("| %s | %s | %s | %d | %s | %s | %d of %d | %s | %s |" % row)
    print("each host cut off for %.1f s; service hosts %s; requests have a %.0f s deadline" % (
        cut_seconds, ", ".join("%s %s" % item for item in HOSTS.items()), DEADLINE))
    for failure in failures:
        print("FAIL " + failure)
    if failures:
        print("logs kept in " + root)
        return 1
    print("multihost: passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
