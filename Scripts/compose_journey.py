#!/usr/bin/env python3
"""The app's journey through a running stack's HTTP front (Scripts/check-compose): one user saves a plant, adds a
photo, identifies the photo, lists the plant's tasks, opens the reminder stream and reads the calendar feed. With
--verify it instead checks that a plant saved earlier is still there with its photo, byte for byte (after a restart,
or a `down` and `up`). Exits 1 with what failed.

    compose_journey.py --base http://127.0.0.1:7080 --token TOKEN --plant ID --photo FILE [--verify]
"""

import argparse
import base64
import hashlib
import json
import sys
import time
import urllib.error
import urllib.request


class Failure(Exception):
    pass


class Gateway:
    def __init__(self, base, token):
        self.base = base.rstrip("/")
        self.token = token

    def request(self, method, path, body=None, content_type="application/json", authorized=True, timeout=60):
        """(status, headers, bytes)."""
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
        headers = {"Content-Type": content_type} if body is not None else {}
        if authorized:
            headers["Authorization"] = "Bearer " + self.token
        request = urllib.request.Request(self.base + path, data=body, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.status, response.headers, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.headers, error.read()

    def json(self, method, path, body=None, expect=200, **options):
        status, _, answer = self.request(method, path, body, **options)
        if status != expect:
            raise Failure("%s %s: %d %s" % (method, path, status, answer[:300].decode(errors="replace")))
        return json.loads(answer or b"{}")


def journey(gateway, plant, photo):
    digest = hashlib.sha256(photo).hexdigest()
    gateway.json("PUT", "/v1/plants/" + plant, {"plant": {"scientificName": "Monstera deliciosa", "customName": "Monty"}})
    print("saved plant %s" % plant)

    status, _, answer = gateway.request("POST", "/v1/plants/%s/photos" % plant, photo, content_type="image/jpeg")
    if status != 200:
        raise Failure("adding the photo: %d %s" % (status, answer[:300]))
    check_photo(gateway, digest, photo)
    print("added a photo (%d bytes, sha256 %s…) and read it back" % (len(photo), digest[:12]))

    answer = gateway.json("POST", "/v1/identifications", {
        "images": [{"data": base64.b64encode(photo).decode()}], "method": "IDENTIFICATION_METHOD_ON_DEVICE"})
    identification = answer.get("identification", {})
    candidates = identification.get("candidates", [])
    if not candidates and not identification.get("noPlantRecognized"):
        raise Failure("identification gave neither candidates nor 'no plant recognised': %s" % json.dumps(answer)[:300])
    best = candidates[0] if candidates else {}
    print("identified on-device: %s" % (json.dumps(best)[:120] if best else "no plant recognised"))

    tasks = []
    for _ in range(60):  # the schedule is planned from the care data after the save; it may lag by a moment
        tasks = gateway.json("GET", "/v1/tasks?view=VIEW_OPEN&plant_id=" + plant).get("tasks", [])
        if tasks:
            break
        time.sleep(0.5)
    if not tasks:
        raise Failure("no open tasks for %s 30 s after saving it" % plant)
    print("%d open tasks, the first: %s" % (len(tasks), json.dumps(tasks[0])[:120]))

    stream = urllib.request.urlopen(gateway.base + "/v1/reminders/stream?access_token=" + gateway.token, timeout=30)
    try:
        kind = stream.headers.get("Content-Type", "")
        first = stream.readline().decode()
    finally:
        stream.close()
    if stream.status != 200 or not kind.startswith("text/event-stream") or not first.startswith(":"):
        raise Failure("the reminder stream answered %d %s, first line %r" % (stream.status, kind, first))
    print("reminder stream open (%s): %s" % (kind, first.strip()))

    path = gateway.json("POST", "/v1/calendar-link", {}).get("path", "")
    status, headers, feed = gateway.request("GET", path, authorized=False)
    text = feed.decode(errors="replace")
    if status != 200 or "BEGIN:VCALENDAR" not in text or "BEGIN:VEVENT" not in text:
        raise Failure("calendar feed %s: %d %s" % (path, status, text[:200]))
    print("calendar feed: %d events (%s)" % (text.count("BEGIN:VEVENT"), headers.get("Content-Type")))


def check_photo(gateway, digest, photo):
    status, _, stored = gateway.request("GET", "/v1/photos/" + digest)
    if status != 200 or stored != photo:
        raise Failure("photo %s: %d, %d bytes (%d sent)" % (digest[:12], status, len(stored), len(photo)))


def verify(gateway, plant, photo):
    for _ in range(60):  # a service restarted a moment ago: the gateway answers 503 until it is back
        status, _, _ = gateway.request("GET", "/v1/plants/" + plant)
        if status not in (502, 503, 504):
            break
        time.sleep(0.5)
    details = gateway.json("GET", "/v1/plants/" + plant)
    name = details.get("plant", {}).get("scientificName")
    if name != "Monstera deliciosa":
        raise Failure("plant %s came back as %s" % (plant, json.dumps(details)[:300]))
    check_photo(gateway, hashlib.sha256(photo).hexdigest(), photo)
    print("plant %s is there with its photo" % plant)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="the gateway's HTTP front, http://127.0.0.1:7080")
    parser.add_argument("--token", required=True, help="a bearer token (plantguide-gateway users add NAME --token-only)")
    parser.add_argument("--plant", required=True, help="the plant's id")
    parser.add_argument("--photo", required=True, help="a JPEG of a plant")
    parser.add_argument("--verify", action="store_true", help="check that the plant and photo are still there")
    options = parser.parse_args()
    gateway = Gateway(options.base, options.token)
    with open(options.photo, "rb") as file:
        photo = file.read()
    try:
        (verify if options.verify else journey)(gateway, options.plant, photo)
    except (Failure, OSError) as error:
        print("journey: %s" % error, file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
