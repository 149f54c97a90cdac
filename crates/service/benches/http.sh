#!/usr/bin/env bash
# HTTP throughput and latency of `guid serve --http`, measured with wrk
# (Debian's package), and the binary protocol with bench-serve in the same
# run. Only 127.0.0.1 is used.
#
#   crates/service/benches/http.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/../../.."
secs=${1:-10}
command -v wrk >/dev/null || { echo "wrk is needed: apt-get install wrk" >&2; exit 2; }
cargo build -q --release -p kguid-service --bin guid-serve --example bench-serve
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
target/release/guid-serve -l 127.0.0.1:0 --http "127.0.0.1:$port" -q &
pid=$!
trap 'kill $pid 2>/dev/null' EXIT
base="http://127.0.0.1:$port"
until curl -sf "$base/readyz" >/dev/null; do sleep 0.1; done

# Each connection waits 1 ms after each answer: a little under 1,000
# requests/s a connection, so 14 connections make about 10k requests/s
# (the table shows the rate reached).
pace=$(mktemp --suffix=.lua)
echo 'function delay() return 1 end' >"$pace"

echo "load: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; wrk for ${secs}s each"
echo
echo "| request | connections | requests/s | ids/s | p50 | p99 |"
echo "|---|---|---|---|---|---|"
measure() { # name, connections, n, query, [script]
  local out
  out=$(wrk -t2 -c"$2" -d"${secs}s" --latency ${5:+-s "$5"} "$base/ids?$4&n=$3")
  awk -v name="$1" -v c="$2" -v n="$3" '
    / 50%/ { p50 = $2 } / 99%/ { p99 = $2 }
    /Requests\/sec/ { rps = $2 }
    END { printf "| %s | %d | %.0f | %.2fM | %s | %s |\n", name, c, rps, rps * n / 1e6, p50, p99 }
  ' <<<"$out"
}
measure "kind=g&n=1000, keep-alive" 4 1000 "kind=g"
measure "kind=x&n=1000, keep-alive" 4 1000 "kind=x"
measure "kind=flake&n=1000 (cap: 4,096 ids/ms)" 4 1000 "kind=flake"
measure "kind=g&n=1, paced" 14 1 "kind=g" "$pace"
measure "kind=flake&n=1, unpaced" 4 1 "kind=flake"
rm -f "$pace"
kill $pid
trap - EXIT
echo
echo "The binary protocol, same run (bench-serve):"
target/release/examples/bench-serve --seconds "$(( secs < 5 ? secs : 5 ))"
