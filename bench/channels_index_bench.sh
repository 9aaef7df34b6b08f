#!/usr/bin/env bash
# Channel index benches (issue 4), whole process, env RELFORGE=<release relforge binary>:
#  1. `relforge index rebuild` of a 100,000-file store (20 variants x 3 channels, 2,400 per-variant
#     project pages + 120 combined) against bench/peer_index.py rendering the same pages; target >= 5x.
#  2. `relforge publish` of one wheel into that store: wall time (target < 20 ms) and the pages it rewrote.
set -euo pipefail
relforge=${RELFORGE:?set RELFORGE to the relforge binary}
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
files=${CHANNELS_BENCH_FILES:-100000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/relforge-channels-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Runs "$@" (output discarded) and prints "WALL_MS CPU_MS" (CPU = user + system of the process).
measure() {
  local TIMEFORMAT='%R %U %S' out
  out=$({ time "$@" >/dev/null 2>"$tmp/last.err"; } 2>&1)
  awk '{ printf "%d %d\n", $1 * 1000, ($2 + $3) * 1000 }' <<<"$out"
}
# The fastest of several "WALL CPU" results, by wall time.
best() { printf '%s\n' "$@" | sort -n | head -1; }
wall() { echo "${1% *}"; }
cpu() { echo "${1#* }"; }
seconds() { awk -v t="$1" 'BEGIN { printf "%.2f", t / 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }'; }
verdict() { awk -v ok="$1" 'BEGIN { print (ok ? "PASS" : "FAIL") }'; }

"$py" "$here/channels_store.py" "$tmp/store" "$files"

# 1. Full rebuild: each side runs twice (the first warms the page cache and creates the folders).
r1=$(measure "$relforge" index rebuild --root "$tmp/store")
r2=$(measure "$relforge" index rebuild --root "$tmp/store")
p1=$(measure "$py" "$here/peer_index.py" "$tmp/store" "$tmp/peer")
p2=$(measure "$py" "$here/peer_index.py" "$tmp/store" "$tmp/peer")
ours=$(best "$r1" "$r2")
peer=$(best "$p1" "$p2")
pages=$("$relforge" index rebuild --root "$tmp/store" --json | "$py" -c 'import json,sys; print(json.load(sys.stdin)["pages"])')
bytes=$(find "$tmp/store" -name 'index.*' -printf '%s\n' | awk '{s+=$1} END {printf "%.0f", s/1e6}')
# The two renderings must be the same pages, byte for byte.
same=0
for page in whl/nightly/cu126/pkg07 whl/nightly/pkg07 whl/test/rocm7.2 whl/pkg00 whl; do
  for kind in html json; do
    cmp -s "$tmp/store/$page/index.$kind" "$tmp/peer/$page/index.$kind" && same=$((same + 1))
  done
done
x=$(ratio "$(wall "$peer")" "$(wall "$ours")")
echo "index rebuild ($files files, $pages pages, $bytes MB HTML+JSON): relforge $(seconds "$(wall "$ours")") s," \
  "python peer_index.py $(seconds "$(wall "$peer")") s -> ${x}x (target >= 5x)" \
  "$(verdict "$(awk -v r="$x" 'BEGIN { print (r >= 5) }')")"
echo "  CPU time: relforge $(seconds "$(cpu "$ours")") s, peer $(seconds "$(cpu "$peer")") s ->" \
  "$(ratio "$(cpu "$peer")" "$(cpu "$ours")")x; sampled pages identical to the peer's: $same/10;" \
  "load average $(cut -d' ' -f1 /proc/loadavg)"

# 2. Incremental publish of one (real, tiny) wheel into the big store: 5 wheels, median.
runs=()
for n in 1 2 3 4 5; do
  wheel=$("$py" "$here/../tests/fixtures/channels/make_wheel.py" "$tmp/in$n" pkg07 "2.8.0.dev2026029$n+cu126")
  touch "$tmp/marker"
  sleep 0.01
  runs+=("$(measure "$relforge" publish --root "$tmp/store" --channel nightly "$wheel")")
done
rewritten=$(find "$tmp/store" -name 'index.*' -newer "$tmp/marker" -printf '%P\n' | sort | tr '\n' ' ')
med=$(printf '%s\n' "${runs[@]}" | sort -n | sed -n 3p)
worst=$(printf '%s\n' "${runs[@]}" | sort -n | tail -1)
echo "incremental publish into the $files-file store: relforge $(wall "$med") ms (median of 5, max $(wall "$worst") ms)," \
  "full rebuild $(wall "$ours") ms -> $(ratio "$(wall "$ours")" "$(wall "$med")")x less (target < 20 ms)" \
  "$(verdict "$(awk -v m="$(wall "$med")" 'BEGIN { print (m < 20) }')")"
echo "  CPU time $(cpu "$med") ms; pages rewritten by the last publish: $rewritten"
