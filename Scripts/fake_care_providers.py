#!/usr/bin/env python3
"""Fakes of Open Plantbook, Perenual and GBIF on one loopback port, for Scripts/bench caredata.

Replays the recorded bodies of Tests/PlantGuideTestSupport/Fixtures/providers (see its README) after a fixed delay
that stands in for the internet, like the Swift test fake (FakeCareProviders): Open Plantbook knows Acer
buergerianum, Perenual's search answers the recorded list page and its details the recorded Alocasia amazonica, and
GBIF matches Helianthus annuus (else GBIF's documented no-match body).

Usage: fake_care_providers.py PORT DELAY_MS [HANGING]
  HANGING  "openplantbook": Open Plantbook's plant requests never answer (its token exchange still does), as a
           provider that hangs.
"""
import http.server
import json
import os
import sys
import time
import urllib.parse

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "Tests", "PlantGuideTestSupport", "Fixtures", "providers")


def fixture(name):
    with open(os.path.join(FIXTURES, name + ".json"), "rb") as file:
        return file.read()


DETAIL = fixture("openplantbook-plant-detail-official-postman")
GRANT = json.loads(fixture("openplantbook-token-official-postman"))
ALOCASIA = json.loads(fixture("perenual-species-details-greenpets-alocasia"))
LIST = json.loads(fixture("perenual-species-list-greenpets-frequent-outdoor"))["data"]
LIST.append({key: ALOCASIA[key] for key in ["id", "common_name", "scientific_name", "other_name", "cycle", "watering", "sunlight"]})
MATCH = fixture("gbif-species-match-pygbif-cassette")
NO_MATCH = b'{"confidence": 100, "note": "No match because of too little confidence", "matchType": "NONE", "synonym": false}'


class Fakes(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def delay(self):
        time.sleep(DELAY)

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.path == "/api/v1/token/":
            self.delay()
            return self.answer(200, json.dumps(dict(GRANT, access_token="bench-token")).encode())
        self.answer(404, b"{}")

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        path, query = urllib.parse.unquote(url.path), dict(urllib.parse.parse_qsl(url.query))
        if path.startswith("/api/v1/plant/"):
            if HANGING == "openplantbook":
                time.sleep(3600)
            self.delay()
            found = path == "/api/v1/plant/detail/acer buergerianum/"
            return self.answer(200 if found else 404, DETAIL if found else b'{"detail": "Not found."}')
        if path == "/api/v2/species-list":
            self.delay()
            words = query.get("q", "").lower()
            items = [item for item in LIST if any(words in name.lower() for name in [item["common_name"]] + item["scientific_name"])]
            return self.answer(200, json.dumps({"data": items, "total": len(items)}).encode())
        if path.startswith("/api/v2/species/details/"):
            self.delay()
            found = path.endswith("/710")
            return self.answer(200 if found else 404, json.dumps(ALOCASIA).encode() if found else b'{"message": "Not found"}')
        if path == "/v1/species/match":
            self.delay()
            return self.answer(200, MATCH if query.get("name", "").lower().startswith("helianthus annuus") else NO_MATCH)
        self.answer(404, b"{}")


if __name__ == "__main__":
    DELAY = int(sys.argv[2]) / 1000
    HANGING = sys.argv[3] if len(sys.argv) > 3 else ""
    http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Fakes).serve_forever()
