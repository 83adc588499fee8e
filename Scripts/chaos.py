#!/usr/bin/env python3
"""The fault test behind Scripts/chaos: a steady mix of writes and reads through the gateway's HTTP front while
each process of the stack, the gateway included, is killed with SIGKILL and started again in turn.

Every saved plant's first watering is due today with its reminder time passed, so each save soon makes a reminder,
which a webhook of the user receives.

It checks, and exits 1 when one fails:
- every acknowledged write is there afterwards (saved plants present, deleted plants gone);
- no request outlives its deadline (the client gives each request DEADLINE seconds; none may hit it), those in
  flight when PostgreSQL goes down included;
- after each restart the errors stop within RECOVERY seconds;
- the services agree at the end: no deleted plant has tasks left, and every plant has its schedule (care lookups
  and deletions the outages left pending are finished by the gateway);
- no reminder reaches the webhook twice, but one in flight when its sender or the database went down (its receipt
  was not recorded, so it is sent again under the same id, which receivers deduplicate on).

With --postgres, care data, collection, scheduling and the gateway keep their state in a throwaway PostgreSQL
(schemas of their own, fsync on), and --replicas N runs N of each of them (each gateway with an HTTP port of its
own, the load spread over them): one replica of each is killed in turn while the others serve. Then PostgreSQL
itself goes down twice, by a fast shutdown and by a SIGKILL of its postmaster, and is started again; errors must
stop within RECOVERY seconds of it accepting connections again.

Usage: Scripts/chaos.py BIN_DIR [--down SECONDS] [--workers N] [--postgres [--replicas N]]
       (Scripts/chaos builds and calls it)
"""
import datetime
import http.server
import os
import subprocess
import json
import random
import shutil
import sys
import tempfile
import threading
import time

from plantguide_stack import SERVICES, STATEFUL, Client, Loops, Stack, free_port, throwaway_postgres

DEADLINE = 2.0
RECOVERY = 2.0
# How long before a fault a reminder's first receipt may come and still be sent again legitimately: its sender
# records the receipt by a database call of at most 5 s (the services' limit), plus a second for the sender itself.
RECEIPT_WINDOW = 6.0
SPECIES = ["Monstera deliciosa", "Ficus lyrata", "Hibiscus rosa-sinensis", "Sansevieria trifasciata"]


class Load(Loops):
    """Workers in closed loops: save a new plant (40%), list (25%), detail (20%), delete one saved (15%)."""

    def __init__(self, client, workers):
        super().__init__()
        self.client = client
        self.workers = workers
        self.lock = threading.Lock()
        self.saved = set()
        self.deleted = set()
        self.events = []  # (started, ok, seconds, what, status)
        self.attempted_deletes = set()  # deletes that got no 200: the gateway may still finish them
        self.counter = 0

    def next_id(self):
        with self.lock:
            self.counter += 1
            return "c%d" % self.counter

    def record(self, status, seconds, what):
        with self.lock:
            self.events.append((time.monotonic() - seconds, status == 200, seconds, what, status))

    def work(self):
        rng = random.Random()
        while not self.stopping.is_set():
            roll = rng.random()
            if roll < 0.40:
                plant = self.next_id()
                status, _, seconds = self.client.call("PUT", "/v1/plants/" + plant,
                                                      {"plant": {"scientificName": rng.choice(SPECIES), "customName": plant}})
                if status == 200:
                    with self.lock:
                        self.saved.add(plant)
                self.record(status, seconds, "save")
            elif roll < 0.65:
                status, _, seconds = self.client.call("GET", "/v1/plants?filter.page_size=20")
                self.record(status, seconds, "list")
            elif roll < 0.85:
                with self.lock:
                    choices = sorted(self.saved - self.deleted - self.attempted_deletes)
                if not choices:
                    continue
                status, _, seconds = self.client.call("GET", "/v1/plants/" + rng.choice(choices))
                self.record(status, seconds, "detail")
            else:
                with self.lock:
                    choices = sorted(self.saved - self.deleted - self.attempted_deletes)
                if not choices:
                    continue
                plant = rng.choice(choices)
                with self.lock:
                    self.attempted_deletes.add(plant)  # from now on, no other worker reads it as surely there
                status, _, seconds = self.client.call("DELETE", "/v1/plants/" + plant)
                if status == 200:
                    with self.lock:
                        self.attempted_deletes.discard(plant)
                        self.deleted.add(plant)
                self.record(status, seconds, "delete")
            time.sleep(0.01)

    def start(self):
        self.start_loops(*[self.work] * self.workers)

    def between(self, start, end):
        with self.lock:
            return [e for e in self.events if start <= e[0] < end]


class Webhook:
    """A webhook receiver on loopback: records each delivery's reminder id and when it came, and answers 204."""

    def __init__(self):
        self.lock = threading.Lock()
        self.received = []  # (monotonic time, reminder id)
        webhook = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with webhook.lock:
                    webhook.received.append((time.monotonic(), self.headers.get("X-PlantGuide-Reminder-Id", "")))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
        self.url = "http://127.0.0.1:%d/hook" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def duplicates(self, faults):
        """Reminder ids received more than once: (explained, unexplained), explained when the first receipt came
        during a fault (label, start, end) or within RECEIPT_WINDOW seconds before it: the sender records a receipt
        by a database call that may wait up to 5 s (longer on a starved machine) before a fault cuts it off, and an
        unrecorded receipt is sent again. An unexplained one names its nearest fault and how far from it it came."""
        first, explained, unexplained = {}, set(), set()
        with self.lock:
            received = list(self.received)
        for at, reminder in received:
            if reminder not in first:
                first[reminder] = at
                continue
            if any(start - RECEIPT_WINDOW <= first[reminder] <= end for _, start, end in faults):
                explained.add(reminder)
            else:
                label, start, _ = min(faults, key=lambda fault: abs(first[reminder] - fault[1]))
                unexplained.add("%s (first %+.1f s from %s)" % (reminder, first[reminder] - start, label))
        return len(first), sorted(explained), sorted(unexplained)

    def stop(self):
        self.server.shutdown()


def remind_at_once(stack, webhook):
    """Makes the chaos user's reminders due as soon as a plant is saved: notify time a minute ago (UTC), and a
    webhook."""
    bin_dir = stack.bin
    users = subprocess.run([os.path.join(bin_dir, "plantguide-gateway"), "users", "list", "--data", os.path.join(stack.root, "gateway")],
                           env=dict(os.environ, **stack.databases.get("gateway", {})), check=True, capture_output=True, text=True).stdout
    user = next(line.split("\t")[1] for line in users.splitlines() if line.split("\t")[0] == "chaos")
    now = datetime.datetime.now(datetime.timezone.utc)
    notify = max(now - datetime.timedelta(minutes=1), now.replace(hour=0, minute=0))
    scheduling = "/plantguide.scheduling.v1.SchedulingService/"
    for method, body in [("RegisterWebhook", {"id": "chaos", "url": webhook.url, "secret": "0123456789abcdef-chaos"}),
                         ("PutPreferences", {"preferences": {"timeZone": "UTC", "notifyTime": notify.strftime("%H:%M")}})]:
        subprocess.run([os.path.join(bin_dir, "plantguide"), "rpc", "call", stack.endpoint("scheduling"), scheduling + method,
                        json.dumps(body), "--header", "plantguide-user-id: " + user], check=True, stdout=subprocess.DEVNULL)


def main():
    args = sys.argv[1:]
    if not args or args[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if args else 2
    bin_dir = args[0]
    down = float(args[args.index("--down") + 1]) if "--down" in args else 2.0
    workers = int(args[args.index("--workers") + 1]) if "--workers" in args else 4
    postgres = "--postgres" in args
    replicas = int(args[args.index("--replicas") + 1]) if "--replicas" in args else 1
    if replicas > 1 and not postgres:
        print("--replicas needs --postgres (on SQLite each stateful service is one process)", file=sys.stderr)
        return 2
    root = tempfile.mkdtemp(prefix="plantguide-chaos-")
    databases, folder = throwaway_postgres(durable=True) if postgres else (None, None)
    stack = Stack(bin_dir, root, databases=databases, postgres_folder=folder, replicas={name: replicas for name in STATEFUL},
                  environment={"PLANTGUIDE_REMINDER_INTERVAL_MS": "200"})
    print("storage: %s%s" % ("PostgreSQL" if postgres else "SQLite", ", %d replicas of %s" % (replicas, ", ".join(STATEFUL)) if replicas > 1 else ""))
    webhook = Webhook()
    failures = []
    rows = []
    faults = []  # (label, down from, up again) in monotonic time
    reminders, explained, slowest_at_outage = 0, [], 0.0
    try:
        stack.start_all()
        client = Client(stack.http_ports, stack.add_user("chaos"), DEADLINE)
        remind_at_once(stack, webhook)
        load = Load(client, workers)
        load.start()
        time.sleep(3)
        phase_start = time.monotonic()
        baseline = load.between(phase_start - 3, phase_start)
        rows.append(("baseline", len(baseline), sum(not e[1] for e in baseline), "-", "-"))

        def fault(label, down_action, up_action):
            killed_at = time.monotonic()
            down_action()
            time.sleep(down)
            up_action()
            restarted = time.monotonic()
            faults.append((label, killed_at, restarted))
            time.sleep(4)
            after = load.between(restarted, time.monotonic())
            errors_after = [e for e in after if not e[1]]
            if errors_after:
                print("  after %s: %s" % (label, sorted({(e[3], e[4]) for e in errors_after})), file=sys.stderr)
            recovery = (max(e[0] for e in errors_after) - restarted) if errors_after else 0.0
            during = load.between(killed_at, restarted)
            rows.append((label, len(during) + len(after), sum(not e[1] for e in during) + len(errors_after),
                         "%.1f" % (restarted - killed_at), "%.2f" % recovery))
            if recovery > RECOVERY:
                failures.append("%s: errors went on %.2f s after the restart (at most %.1f s)" % (label, recovery, RECOVERY))

        for name in SERVICES:
            several = len(stack.ports[name]) > 1
            label = "kill -9 %s%s" % (name, " (1 of %d)" % len(stack.ports[name]) if several else "")
            fault(label, lambda: stack.kill(name, 0), lambda: stack.start(name, 0))
        if postgres:
            fault("PostgreSQL fast shutdown", lambda: stack.postgres("shutdown"), lambda: stack.postgres("resume"))
            fault("PostgreSQL kill -9 postmaster", lambda: stack.postgres("crash"), lambda: stack.postgres("resume"))
        load.stop()
        crashes = stack.crashes()
        if crashes:
            failures.append("processes ended by themselves, not by a fault (their logs say why): %s" % "; ".join(crashes))

        database_faults = [start for label, start, _ in faults if label.startswith("PostgreSQL")]
        slowest_at_outage = max((e[2] for e in load.events if any(start - DEADLINE <= e[0] <= start + 0.5 for start in database_faults)),
                                default=0.0)

        def around(event):
            """The faults an event started near: (label, seconds from the fault's start)."""
            return [(label, event[0] - start) for label, start, end in faults if start - 1 <= event[0] <= end + 4]

        late = [e for e in load.events if e[2] >= DEADLINE]
        if late:
            phases = sorted({label for e in late for label in ([label for label, _ in around(e)] or ["no fault"])})
            failures.append("%d requests reached their deadline (%s; during %s)" % (len(late), sorted({e[3] for e in late}), ", ".join(phases)))
            for e in late:
                print("  late: %s took %.2f s, started %s" % (e[3], e[2], ", ".join("%+.2f s from %s" % (offset, label) for label, offset in around(e))),
                      file=sys.stderr)
        # Let the gateway finish the care lookups and deletions the outages left pending.
        # On PostgreSQL, an entry a killed gateway had claimed waits for its claim's lease (30 s) to end.
        settle_until = time.monotonic() + (45 if postgres else 15)
        while True:
            problems = check_state(client, load)
            if not problems or time.monotonic() > settle_until:
                break
            time.sleep(0.5)
        failures += problems
        reminders, explained, unexplained = webhook.duplicates(faults)
        if reminders == 0:
            failures.append("no reminder reached the webhook")
        if unexplained:
            failures.append("%d reminders reached the webhook twice, not around a fault: %s" % (len(unexplained), unexplained[:5]))
    finally:
        stack.stop()
        webhook.stop()

    print("| phase | requests | errors | down s | errors stop after restart, s |")
    print("|---|---|---|---|---|")
    for row in rows:
        print("| %s | %d | %d | %s | %s |" % row)
    print("acknowledged: %d saves, %d deletes; deadline %.0f s per request; workers %d" % (
        len(load.saved), len(load.deleted), DEADLINE, workers))
    print("reminders at the webhook: %d, of which %d twice, each in flight at a fault" % (reminders, len(explained)))
    if postgres:
        print("slowest request in flight when PostgreSQL went down: %.2f s" % slowest_at_outage)
    for failure in failures:
        print("FAIL " + failure)
    if failures:
        print("logs kept in " + root)
        return 1
    shutil.rmtree(root, ignore_errors=True)
    print("chaos: passed")
    return 0


def check_state(client, load):
    """What disagrees now: acknowledged writes missing, orphan tasks, plants without a schedule."""
    problems = []
    plants = {}
    token = ""
    while True:
        status, body, _ = client.call("GET", "/v1/plants?filter.page_size=500" + ("&filter.page_token=" + token if token else ""))
        if status != 200:
            return ["listing plants failed with %d" % status]
        page = body.get("page", {})
        for plant in page.get("plants", []):
            plants[plant["id"]] = plant
        token = page.get("nextPageToken", "")
        if not token:
            break
    # A delete answered with an error may still be finished later (the gateway records it before calling the
    # services and retries until both are done), so such plants may be there or not.
    kept = load.saved - load.deleted - load.attempted_deletes
    missing = sorted(kept - set(plants))
    resurrected = sorted(load.deleted & set(plants))
    if missing:
        problems.append("%d acknowledged saves are missing: %s" % (len(missing), missing[:5]))
    if resurrected:
        problems.append("%d acknowledged deletes came back: %s" % (len(resurrected), resurrected[:5]))
    orphans = []
    for plant in sorted(load.deleted)[:300]:
        status, body, _ = client.call("GET", "/v1/tasks?view=VIEW_OPEN&plant_id=" + plant)
        if status != 200:
            return problems + ["listing the tasks of %s failed with %d" % (plant, status)]
        if body.get("tasks"):
            orphans.append(plant)
    if orphans:
        problems.append("deleted plants with open tasks left: %d (%s)" % (len(orphans), orphans[:5]))
    for plant in sorted(plants)[:200]:
        status, detail, _ = client.call("GET", "/v1/plants/" + plant)
        if status != 200 or not detail.get("upcomingTasks"):
            problems.append("plant %s has no schedule (status %d)" % (plant, status))
            break
    return problems


if __name__ == "__main__":
    sys.exit(main())
