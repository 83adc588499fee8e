#!/usr/bin/env bash
# A/B of the RPC layer: two release builds of plantguide-bench (BASE, e.g. an older commit's worktree, and CUR)
# run alternately on the same echo as Scripts/bench rpc, beside libzmq's C ping-pong (Benchmarks/c/zmq_pingpong.c,
# built here), 3 s a row after 1 s of warm-up. Prints one JSON line a row, labelled c-zmq, base-PLACE or cur-PLACE;
# Benchmarks/rpc-ab-table.py turns them into a table.
# Usage: Benchmarks/rpc-ab.sh BASE_BENCH CUR_BENCH [ROUNDS]   (env CONFIGS="64_1 64_8 64_64 65536_8", PLACES="pool io")
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { sed -n '2,6p' "$0" | sed 's/^# //'; exit 2; }
base=$1 cur=$2 rounds=${3:-2}
c=.build-bench/zmq_pingpong
mkdir -p .build-bench
gcc -O2 -o "$c" Benchmarks/c/zmq_pingpong.c -lzmq
port() { python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"; }
wait_port() { python3 -c "
import socket, sys, time
for _ in range(500):
    try: socket.create_connection(('127.0.0.1', $1), 0.1).close(); sys.exit(0)
    except OSError: time.sleep(0.02)
sys.exit(1)"; }
for _ in $(seq "$rounds"); do
  for config in ${CONFIGS:-64_1 64_8 64_64 65536_8}; do
    payload=${config%_*} inflight=${config#*_}
    p=$(port); "$c" server "tcp://127.0.0.1:$p" >/dev/null 2>&1 & server=$!; wait_port "$p"
    "$c" client "tcp://127.0.0.1:$p" "$payload" "$inflight" 3 1; kill "$server"; wait "$server" 2>/dev/null || true
    for build in base cur; do
      bench=$base; [ "$build" = cur ] && bench=$cur
      for place in ${PLACES:-pool io}; do
        flag=(); [ "$place" = io ] && flag=(--io-thread)
        p=$(port); "$bench" serve --bind "tcp://127.0.0.1:$p" "${flag[@]}" >/dev/null 2>&1 & server=$!; wait_port "$p"
        "$bench" run --target "tcp://127.0.0.1:$p" --payload "$payload" --inflight "$inflight" --duration 3 --warmup 1 \
          "${flag[@]}" --label "$build-$place"
        kill "$server"; wait "$server" 2>/dev/null || true
      done
    done
  done
done
