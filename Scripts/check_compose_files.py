#!/usr/bin/env python3
"""What a running engine would find wrong with the container files, checked without one (Scripts/check-deploy):
the compose files use nothing Debian 12's Compose v1.29 rejects or ignores (a top-level `name:`, `configs:`),
publish ports on 127.0.0.1 only, and .dockerignore keeps keys, data, models and build folders out of the image's
build context. Scripts/check-compose proves the same on a real engine. Exits 1 naming each problem."""

import fnmatch
import sys

import yaml

COMPOSE_FILES = ["docker-compose.yml", "docker-compose.postgres.yml"]
# Paths that must never reach the build context, and a file under each to test the rules with.
KEPT_OUT = [".build/release/plantguide", ".build-bench/x", "Deploy/keys/services.key", "data/collection.sqlite",
            "models/plant-cnn/model.onnx", ".git/HEAD", "dist/plantguide-1.0-linux-x86_64.tar.gz"]


def compose_problems(path):
    with open(path) as file:
        document = yaml.safe_load(file)
    for key in ("name", "configs"):
        if key in document:
            yield "%s: top-level `%s:` (Compose v1 %s it)" % (path, key, "rejects" if key == "name" else "ignores")
    for service, spec in (document.get("services") or {}).items():
        if "configs" in spec:
            yield "%s: service %s uses `configs:` (Compose v1 ignores them)" % (path, service)
        for port in spec.get("ports", []):
            if not str(port).startswith(("127.0.0.1:", "[::1]:")):
                yield "%s: service %s publishes %s beyond 127.0.0.1" % (path, service, port)


def ignored(path, patterns):
    """Docker's rule in short: a pattern matches the path or one of its parent folders (no `!` exceptions here)."""
    parts = path.split("/")
    prefixes = ["/".join(parts[:count]) for count in range(1, len(parts) + 1)]
    return any(fnmatch.fnmatch(prefix, pattern.strip("/")) for pattern in patterns for prefix in prefixes)


def dockerignore_problems():
    try:
        with open(".dockerignore") as file:
            patterns = [line.strip() for line in file if line.strip() and not line.startswith("#")]
    except FileNotFoundError:
        yield ".dockerignore is missing: the build context would hold .build/, keys and data"
        return
    for path in KEPT_OUT:
        if not ignored(path, patterns):
            yield ".dockerignore lets %s into the build context" % path


def main():
    problems = [problem for path in COMPOSE_FILES for problem in compose_problems(path)]
    problems += list(dockerignore_problems())
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        sys.exit(1)
    print("compose files: Compose v1 and v2 alike, ports on 127.0.0.1; .dockerignore keeps out keys, data and builds")


if __name__ == "__main__":
    main()
