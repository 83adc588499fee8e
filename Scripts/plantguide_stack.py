"""The PlantGuide stack as processes for the Python test drivers (Scripts/chaos.py, Scripts/multihost.py): the four
services and the gateway, each restartable on its address and data, and a small HTTP client of the gateway.

By default every process listens on 127.0.0.1. `hosts` puts a service on another address and `launcher` prefixes
its command (for instance `ip netns exec HOST`), so that the same stack runs spread over network namespaces.
`replicas` runs more instances of a stateless service (the gateway spreads its calls over them), `options` adds
command-line options per service, `environment` overrides the defaults (no model, no external APIs), and
`databases` gives the stateful processes a PostgreSQL each (see `throwaway_postgres`) instead of SQLite.
"""
import json
import os
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request

SERVICES = ["identification", "caredata", "collection", "scheduling", "gateway"]
STATEFUL = ["caredata", "collection", "scheduling", "gateway"]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def throwaway_postgres():
    """Starts a throwaway PostgreSQL (Scripts/postgres-throwaway, stopped when this process ends) and returns the
    environment of each stateful process: the server's URL and password, and a schema of its own."""
    script = os.path.join(ROOT, "Scripts", "postgres-throwaway")
    url, password, _ = subprocess.run([script, "start", "--watch", str(os.getpid())], check=True, capture_output=True,
                                      text=True).stdout.split()
    return {name: {"PLANTGUIDE_DATABASE_URL": url, "PLANTGUIDE_DATABASE_PASSWORD": password, "PLANTGUIDE_DATABASE_SCHEMA": name}
            for name in STATEFUL}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Stack:
    """The four services and the gateway as processes; logs and data under `root`."""

    def __init__(self, bin_dir, root, hosts=None, launcher=None, replicas=None, options=None, environment=None, databases=None):
        self.bin = bin_dir
        self.root = root
        self.hosts = hosts or {}
        self.launcher = launcher or (lambda name: [])
        self.options = options or {}
        self.environment = environment or {}
        self.databases = databases or {}
        self.ports = {name: [free_port() for _ in range((replicas or {}).get(name, 1))] for name in SERVICES}
        self.http_port = free_port()
        self.reminders = "tcp://%s:%d" % (self.host("scheduling"), free_port())
        self.processes = {}  # name -> one process per replica
        self.logs = {}

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
            base += ["--http-bind", "127.0.0.1:%d" % self.http_port, "--rate-limit", "0", "--retry-interval-ms", "200",
                     "--identification", self.target("identification"), "--caredata", self.target("caredata"),
                     "--collection", self.target("collection"), "--scheduling", self.target("scheduling"),
                     "--reminders", self.reminders]
        return self.launcher(name) + base

    def start(self, name):
        """Starts `name`'s replicas and waits until each serves (the gateway: its RPC and HTTP fronts)."""
        environment = dict(os.environ, PLANTGUIDE_MODEL="none", PLANTGUIDE_TREFLE_TOKEN="", PLANTGUIDE_PLANTNET_KEY="",
                           PLANTGUIDE_REMINDERS_BIND=self.reminders)
        environment.update(self.environment)
        environment.update(self.databases.get(name, {}))
        log = self.logs.setdefault(name, open(os.path.join(self.root, name + ".log"), "ab"))
        self.processes[name] = [subprocess.Popen(self.command(name, replica), env=environment, stdout=log, stderr=log)
                                for replica in range(len(self.ports[name]))]
        for replica in range(len(self.ports[name])):
            subprocess.run([os.path.join(self.bin, "plantguide"), "rpc", "health", self.endpoint(name, replica),
                            "--wait-for-ready", "--timeout", "30"], check=True, stdout=subprocess.DEVNULL)
        if name == "gateway":
            wait_http(self.http_port)

    def start_all(self):
        for name in SERVICES:
            self.start(name)

    def add_user(self, name):
        """Makes a gateway user and returns its token."""
        return subprocess.run([os.path.join(self.bin, "plantguide-gateway"), "users", "add", name, "--token-only", "--data",
                               os.path.join(self.root, "gateway")], env=dict(os.environ, **self.databases.get("gateway", {})),
                              check=True, capture_output=True, text=True).stdout.strip()

    def kill(self, name):
        for process in self.processes[name]:
            process.kill()
            process.wait()

    def pids(self):
        return [process.pid for replicas in self.processes.values() for process in replicas]

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
    """Calls the gateway's HTTP front as one user, each request with `deadline` seconds."""

    def __init__(self, port, token, deadline):
        self.base = "http://127.0.0.1:%d" % port
        self.token = token
        self.deadline = deadline

    def call(self, method, path, body=None):
        """(status, JSON body, seconds); status 0 when no answer came (refused, reset), -1 when the deadline passed."""
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method, headers={
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
