#!/usr/bin/env bash
# A/B of the RPC layer: b48cadd (a worktree at /work/bisect, release build) against HEAD, alternating, with the C baseline.
old=/work/bisect/.build/release/plantguide-bench
cur=/work/main/.build/release/plantguide-bench
c=/tmp/ab/zmq_pingpong
port() { python3 -c "import socket;s=socket.socket();s.bind(('127.0.0.1',0));print(s.getsockname()[1])"; }
wait_port() { python3 -c "
import socket,sys,time
for _ in range(500):
    try: socket.create_connection(('127.0.0.1',$1),0.1).close(); sys.exit(0)
    except OSError: time.sleep(0.02)
sys.exit(1)"; }
for round in 1 2; do
for cfg in ${CONFIGS:-64_64 64_8}; do
  set -- ${cfg/_/ }; payload=$1; inflight=$2
  p=$(port); $c server tcp://127.0.0.1:$p >/dev/null 2>&1 & s=$!; wait_port $p
  echo "C $payload $inflight $($c client tcp://127.0.0.1:$p $payload $inflight 3 1)"; kill $s; wait $s 2>/dev/null
  for impl in ${IMPLS:-old cur}; do
    bin=$old; [ $impl = cur ] && bin=$cur; [ $impl != old ] && [ $impl != cur ] && bin=$impl
    for place in ${PLACES:-io}; do
      flag=""; [ $place = io ] && flag="--io-thread"
      p=$(port); $bin serve --bind tcp://127.0.0.1:$p $flag >/dev/null 2>&1 & s=$!; wait_port $p
      label="$(basename "$(dirname "$(dirname "$(dirname "$bin")")")")-$place-$inflight"
      $bin run --target tcp://127.0.0.1:$p --payload $payload --inflight $inflight --duration 3 --warmup 1 $flag --label "$label"
      kill $s; wait $s 2>/dev/null
    done
  done
done
done
