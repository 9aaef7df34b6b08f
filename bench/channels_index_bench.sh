#!/usr/bin/env bash
# Channel index benches (issue 4), env RELFORGE=<release relforge binary>, BUILD_DIR=<its build dir>:
#  1. `relforge index rebuild` of a 100,000-file store (20 variants x 3 channels, 2,400 per-variant
#     project pages + 120 combined) against bench/peer_index.py rendering the same pages; target >= 5x.
#     Every page is deleted before each relforge run, so each run writes every page (as the peer does).
#  2. Publishing one wheel into that store: the publish itself (channels_publish_probe, in-process;
#     target < 20 ms) and the whole `relforge publish` command, next to the bare start of the binary.
set -euo pipefail
relforge=${RELFORGE:?set RELFORGE to the relforge binary}
probe=${BUILD_DIR:-$(dirname "$relforge")}/bench/channels_publish_probe
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

# Deletes every page and listing cache, so that the next rebuild writes all of them.
unindex() { find "$tmp/store" \( -name 'index.*' -o -name .relforge-listing \) -delete; }

# 1. Full rebuild: each side runs twice (the first warms the page cache and creates the folders).
r1=$(measure "$relforge" index rebuild --root "$tmp/store")
unindex
r2=$(measure "$relforge" index rebuild --root "$tmp/store")
unindex
r3=$(measure "$relforge" index rebuild --root "$tmp/store")
# Nothing changed since: every page is compared and left as it is.
same_pages=$(measure "$relforge" index rebuild --root "$tmp/store")
p1=$(measure "$py" "$here/peer_index.py" "$tmp/store" "$tmp/peer")
p2=$(measure "$py" "$here/peer_index.py" "$tmp/store" "$tmp/peer")
ours=$(best "$r2" "$r3")
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

echo "  re-run over an unchanged store (pages compared, none rewritten): $(seconds "$(wall "$same_pages")") s"

# 2. Incremental publish of one (real, tiny) wheel into the big store, 5 wheels each way, medians.
wheels=()
for n in 1 2 3 4 5 6 7 8 9; do
  wheels+=("$("$py" "$here/../tests/fixtures/channels/make_wheel.py" "$tmp/in$n" pkg07 "2.8.0.dev2026029$n+cu126")")
done
median() { sort -n | sed -n 3p; }
inproc=$("$probe" "$tmp/store" "${wheels[@]:0:5}" | awk '{print $1}' | median)
runs=()
for n in 5 6 7 8; do
  touch "$tmp/marker"
  sleep 0.01
  runs+=("$(measure "$relforge" publish --root "$tmp/store" --channel nightly "${wheels[$n]}")")
done
starts=()
for n in 1 2 3 4 5; do starts+=("$(measure "$relforge" --version)"); done
rewritten=$(find "$tmp/store" -name 'index.*' -newer "$tmp/marker" -printf '%P\n' | sort | tr '\n' ' ')
cli=$(printf '%s\n' "${runs[@]}" | sort -n | sed -n 2p)
start=$(printf '%s\n' "${starts[@]}" | sort -n | sed -n 3p)
echo "incremental publish into the $files-file store: $inproc ms (in-process, median of 5)," \
  "full rebuild $(wall "$ours") ms (target < 20 ms)" \
  "$(verdict "$(awk -v m="$inproc" 'BEGIN { print (m < 20) }')")"
echo "  the whole 'relforge publish' command: $(wall "$cli") ms wall (median of 4), of which starting the" \
  "binary (relforge --version, 50 shared libraries) takes $(wall "$start") ms here"
echo "  pages rewritten by the last publish: $rewritten"
