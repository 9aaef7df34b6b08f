#!/usr/bin/env bash
# `relforge serve`: requests/s for one project page (42 files, PEP 691 JSON as pip asks for it) with
# wrk on loopback, beside `python3 -m http.server` serving the same page's HTML from the same tree.
# The figure is reported (no target). Env RELFORGE=<release relforge binary>.
set -euo pipefail
source "$(cd "$(dirname "$0")" && pwd)/lib.sh"
relforge=${RELFORGE:?set RELFORGE to the relforge binary}
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
duration=${SERVE_BENCH_SECONDS:-5}
command -v wrk >/dev/null || { echo "serve bench: wrk is not installed (apt-get install wrk)" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/relforge-serve-bench.XXXXXX")
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT

"$py" "$here/channels_store.py" "$tmp/store" 2520 1  # 60 variant folders x 1 project, 42 files each
"$relforge" index rebuild --root "$tmp/store" >/dev/null
page=whl/nightly/cu126/pkg00/
accept='application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html; q=0.1, text/html; q=0.01'

"$relforge" serve --root "$tmp/store" --port 0 --json >"$tmp/serve.out" 2>"$tmp/serve.err" &
pids+=($!)
for _ in $(seq 100); do grep -q '"port"' "$tmp/serve.out" 2>/dev/null && break; sleep 0.05; done
port=$(grep -o '"port":[0-9]*' "$tmp/serve.out" | cut -d: -f2)
[ -n "$port" ] || { echo "serve bench: relforge serve did not start: $(cat "$tmp/serve.err")" >&2; exit 1; }
curl -sf -H "Accept: $accept" "http://127.0.0.1:$port/$page" | grep -q '"files"'

peer_port=$("$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
(cd "$tmp/store" && exec "$py" -m http.server --bind 127.0.0.1 "$peer_port" >/dev/null 2>&1) &
pids+=($!)
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$peer_port/$page" >/dev/null 2>&1 && break; sleep 0.05; done

rps() {  # URL [wrk header args]: requests/s
  wrk -t2 -c32 -d"${duration}s" --latency "$@" | tee "$tmp/wrk.out" | awk '/^Requests\/sec/ { print $2 }'
}
ours=$(rps -H "Accept: $accept" "http://127.0.0.1:$port/$page")
errors=$(grep -E 'Non-2xx|Socket errors' "$tmp/wrk.out" | tr -s ' ' | tr '\n' ' ' || true)
p99=$(awk '/ 99%/ { print $2 }' "$tmp/wrk.out")
peer=$(rps "http://127.0.0.1:$peer_port/$page")
rate_side() { printf '{"label": %s, "wall_s": %s}' "$(json_string "$1")" "$(awk -v r="$2" 'BEGIN { printf "%.8f", 1 / r }')"; }
record "{\"name\": \"serve one project page\", \"input\": \"a 42-file project page (PEP 691 JSON for relforge, static HTML for the peer), wrk -t2 -c32 ${duration}s on loopback; time per request\",
  \"ours\": $(rate_side "relforge serve ($ours req/s, p99 $p99)" "$ours"),
  \"peer\": $(rate_side "python3 -m http.server ($peer req/s)" "$peer"),
  \"target\": {\"op\": \"report\", \"text\": \"reported\"}${errors:+, \"notes\": \"$errors\"}}"
