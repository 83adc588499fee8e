"""The PlantGuide stack as processes for the Python test drivers (Scripts/chaos.py, Scripts/multihost.py): the four
services and the gateway, each restartable on its address and data, and a small HTTP client of the gateway.

By default every process listens on 127.0.0.1. `hosts` puts a service on another address and `launcher(name,
replica)` prefixes its command (for instance `ip netns exec HOST`, so that the same stack runs spread over network
namespaces, or `taskset -c CORE`).
`replicas` runs more instances of a service (each gateway spreads its calls over them; the stateful ones only
with `databases`), `options` adds command-line options per service, `environment` overrides the defaults (no model,
no external APIs), and `databases` gives the stateful processes a PostgreSQL each (see `throwaway_postgres`)
instead of SQLite. Each gateway replica has an HTTP port of its own (`http_ports`), each scheduling replica a
reminder stream of its own, all of which every gateway relays.
"""
import json
import os
import random
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request

SERVICES = ["identification", "caredata", "collection", "scheduling", "gateway"]
STATEFUL = ["caredata", "collection", "scheduling", "gateway"]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


POSTGRES_SCRIPT = os.path.join(ROOT, "Scripts", "postgres-throwaway")


def throwaway_postgres(durable=False):
    """Starts a throwaway PostgreSQL (Scripts/postgres-throwaway, stopped when this process ends; with `durable`,
    fsync on) and returns the environment of each stateful process (the server's URL and password, and a schema of
    its own) and the server's folder, for `postgres-throwaway shutdown|crash|resume`."""
    command = [POSTGRES_SCRIPT, "--watch", str(os.getpid())] + (["--durable"] if durable else [])
    url, password, folder = subprocess.run(command, check=True, capture_output=True, text=True).stdout.split()
    return {name: {"PLANTGUIDE_DATABASE_URL": url, "PLANTGUIDE_DATABASE_PASSWORD": password, "PLANTGUIDE_DATABASE_SCHEMA": name}
            for name in STATEFUL}, folder


_handed_out = set()


def _port_range():
    """Where free_port picks: ten thousand ports just below the kernel's ephemeral range (or just above it when
    the range starts too low to leave room)."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            low, high = (int(part) for part in f.read().split())
    except (OSError, ValueError):
        low, high = 32768, 60999
    return (low - 10000, low) if low >= 11024 else (high + 1, min(65536, high + 10001))


def free_port(taken=()):
    """A loopback TCP port that is free now, not in `taken`, and not handed out before in this process.

    Not a port the kernel picks (binding port 0): those come from the ephemeral range, where every outgoing
    connection of the stack's processes (ZeroMQ, PostgreSQL) also takes its source port, and one of them took a
    gateway's HTTP port between this pick and the gateway's bind (`Address already in use`, CI of 2026-11-29).
    No outgoing connection is given a port outside that range."""
    start, end = _port_range()
    while True:
        port = random.randrange(start, end)
        if port in _handed_out or port in taken:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        _handed_out.add(port)
        return port


class Stack:
    """The four services and the gateway as processes; logs and data under `root`."""

    def __init__(self, bin_dir, root, hosts=None, launcher=None, replicas=None, options=None, environment=None, databases=None,
                 postgres_folder=None):
        self.bin = bin_dir
        self.root = root
        self.hosts = hosts or {}
        self.launcher = launcher or (lambda name, replica: [])
        self.options = options or {}
        self.environment = environment or {}
        self.databases = databases or {}
        self.postgres_folder = postgres_folder
        self.ports = {name: [free_port() for _ in range((replicas or {}).get(name, 1))] for name in SERVICES}
        self.http_ports = [free_port() for _ in self.ports["gateway"]]
        self.http_port = self.http_ports[0]
        self.reminders = ["tcp://%s:%d" % (self.host("scheduling"), free_port()) for _ in self.ports["scheduling"]]
        self.processes = {}  # name -> one process per replica
        self.logs = {}
        self.ended_by_themselves = []  # "name replica: status" of processes found ended that nobody stopped

    def host(self, name):
        return self.hosts.get(name, "127.0.0.1")

    def endpoint(self, name, replica=0):
        return "tcp://%s:%d" % (self.host(name), self.ports[name][replica])

    def target(self, name):
        """The RPC target of all of `name`'s replicas."""
        return ",".join(self.endpoint(name, replica) for replica in range(len(self.ports[name])))

    def command(self, name, replica=0):
        data = os.path.join(self.root, name if replica == 0 else "%s-%d" % (name, replica + 1))
        base = [os.path.join(self.bin, "plantguide-" + name), "--bind", self.endpoint(name, replica), "--data", data,
                "--log-level", "warning"] + list(self.options.get(name, []))
        if name == "gateway":
            base += ["--http-bind", "127.0.0.1:%d" % self.http_ports[replica], "--rate-limit", "0", "--retry-interval-ms", "200",
                     "--identification", self.target("identification"), "--caredata", self.target("caredata"),
                     "--collection", self.target("collection"), "--scheduling", self.target("scheduling"),
                     "--reminders", ",".join(self.reminders)]
        return self.launcher(name, replica) + base

    def start(self, name, replica=None):
        """Starts `name`'s replicas (or only `replica`) and waits until each serves (a gateway: its RPC and HTTP
        fronts), up to a minute: thirteen debug processes starting at once on two busy cores took over 30 s."""
        replicas = range(len(self.ports[name])) if replica is None else [replica]
        log = self.logs.setdefault(name, open(os.path.join(self.root, name + ".log"), "ab"))
        running = self.processes.setdefault(name, [None] * len(self.ports[name]))
        for index in replicas:
            environment = dict(os.environ, PLANTGUIDE_MODEL="none", PLANTGUIDE_TREFLE_TOKEN="", PLANTGUIDE_GBIF_URL="off", PLANTGUIDE_PLANTNET_KEY="",
                               PLANTGUIDE_REMINDERS_BIND=self.reminders[index if name == "scheduling" else 0],
                               PLANTGUIDE_ALLOW_LOOPBACK_RECEIVERS="1")
            environment.update(self.environment)
            environment.update(self.databases.get(name, {}))
            running[index] = subprocess.Popen(self.command(name, index), env=environment, stdout=log, stderr=log)
        for index in replicas:
            subprocess.run([os.path.join(self.bin, "plantguide"), "rpc", "health", self.endpoint(name, index),
                            "--wait-for-ready", "--timeout", "60"], check=True, stdout=subprocess.DEVNULL)
            if name == "gateway":
                wait_http(self.http_ports[index])

    def start_all(self):
        for name in SERVICES:
            self.start(name)

    def add_user(self, name):
        """Makes a gateway user and returns its token."""
        return subprocess.run([os.path.join(self.bin, "plantguide-gateway"), "users", "add", name, "--token-only", "--data",
                               os.path.join(self.root, "gateway")], env=dict(os.environ, **self.databases.get("gateway", {})),
                              check=True, capture_output=True, text=True).stdout.strip()

    def kill(self, name, replica=None):
        """Kills `name`'s replicas (or only `replica`) with SIGKILL."""
        for index, process in enumerate(self.processes[name]):
            if replica is None or index == replica:
                self.note_ended(name, index, process)
                process.kill()
                process.wait()
                process.stopped_on_purpose = True

    def note_ended(self, name, index, process):
        if process.poll() is not None and not getattr(process, "stopped_on_purpose", False):
            self.ended_by_themselves.append("%s %d: status %d" % (name, index, process.returncode))

    def crashes(self):
        """The processes that ended although nobody stopped them (a crash): those found so by `kill`, and those
        ended now."""
        for name, replicas in self.processes.items():
            for index, process in enumerate(replicas):
                self.note_ended(name, index, process)
        found, self.ended_by_themselves = self.ended_by_themselves, []
        return found

    def pids(self):
        return [process.pid for replicas in self.processes.values() for process in replicas]

    def postgres(self, action):
        """`postgres-throwaway ACTION` on the stack's database server (shutdown, crash, resume)."""
        subprocess.run([POSTGRES_SCRIPT, action, self.postgres_folder], check=True)

    def stop(self):
        everything = [process for replicas in self.processes.values() for process in replicas]
        for process in everything:
            if process.poll() is None:
                process.terminate()
        for process in everything:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()


def wait_http(port):
    for _ in range(200):
        try:
            urllib.request.urlopen("http://127.0.0.1:%d/healthz" % port, timeout=1).read()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit("the gateway's HTTP front did not come up")


class Client:
    """Calls the gateway's HTTP front as one user, each request with `deadline` seconds; given several ports (gateway
    replicas), each call goes to the next, as a round-robin load balancer would send them."""

    def __init__(self, port, token, deadline):
        ports = port if isinstance(port, list) else [port]
        self.bases = ["http://127.0.0.1:%d" % each for each in ports]
        self.next = 0
        self.token = token
        self.deadline = deadline

    def call(self, method, path, body=None):
        """(status, JSON body, seconds); status 0 when no answer came (refused, reset), -1 when the deadline passed."""
        data = json.dumps(body).encode() if body is not None else None
        self.next += 1  # racy across threads, harmlessly: any spread will do
        base = self.bases[self.next % len(self.bases)]
        request = urllib.request.Request(base + path, data=data, method=method, headers={
            "Authorization": "Bearer " + self.token, "Content-Type": "application/json"})
        started = time.monotonic()
        try:
            with urllib.request.urlopen(request, timeout=self.deadline) as response:
                answer = response.read()
                return response.status, json.loads(answer or b"{}"), time.monotonic() - started
        except urllib.error.HTTPError as error:
            try:
                answer = json.loads(error.read() or b"{}")
            except (ValueError, OSError):
                answer = {}
            return error.code, answer, time.monotonic() - started
        except socket.timeout:
            return -1, {}, time.monotonic() - started
        except (urllib.error.URLError, ConnectionError, OSError) as error:
            if "timed out" in str(error):
                return -1, {}, time.monotonic() - started
            return 0, {}, time.monotonic() - started


class Loops:
    """Functions that each loop on a daemon thread until ``stop()``; they watch ``stopping``."""

    def __init__(self):
        self.stopping = threading.Event()
        self.threads = []

    def start_loops(self, *targets):
        self.threads = [threading.Thread(target=target, daemon=True) for target in targets]
        for thread in self.threads:
            thread.start()

    def stop(self):
        self.stopping.set()
        for thread in self.threads:
            thread.join()
