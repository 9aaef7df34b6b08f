#!/usr/bin/env bash
# `make bench`: every benchmark, each reported against its named peer in the same run: the
# compiled bench/*_bench.cpp programs, then the whole-process bench/*_bench.sh scripts. Every
# figure goes through bench/record.py; the run's records, with the machine, the commit and the
# load average, end up in BUILD/bench-results.json (`make bench-table` puts them in the README).
# Usage: bench/run.sh [BUILD_DIR] [NAME-FILTER]   (a filter runs only benches whose file matches,
# and its records go to BUILD/bench-results.FILTER.json: a rerun of one bench never replaces the
# full run's file that `make bench-table` reads)
set -uo pipefail
build=${1:-build/release}
filter=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
results=bench-results
[ -z "$filter" ] || results="bench-results.$(printf '%s' "$filter" | tr -c 'A-Za-z0-9_-' '_')"
export BENCH_RESULTS=$build/$results.jsonl
: >"$BENCH_RESULTS"
failed=()
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
# The commit the measured binaries were built from, read now: an edit made while the benches run
# (they take ~15 minutes) must not mark the run's results as from a changed tree.
commit=$(/usr/bin/python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import collect; print(collect.commit() or "")' "$here")
# Before each bench: the previous one's dirty pages are flushed and the machine gets up to 90 s
# to settle, so one bench's writeback and builds do not land in the next one's figures. Settled:
# the last second's CPU use (/proc/stat: user, nice, system, irq, softirq) under a tenth of one
# core, and the 1-minute load below 1.5 (the load average alone lags what the cores are doing by
# about a minute: after `make bench`'s builds it needs ~60 s of idle cores to fall from 4 to 1.5,
# and with 30 s the first bench ran at 4.3). Each line still records the load it ran at.
busy_cores() {
  local a b
  a=$(awk '/^cpu /{print $2+$3+$4+$7+$8, $5+$6}' /proc/stat)
  sleep 1
  b=$(awk '/^cpu /{print $2+$3+$4+$7+$8, $5+$6}' /proc/stat)
  # USER_HZ ticks per second: 100 on Linux.
  awk -v a="$a" -v b="$b" 'BEGIN { split(a, x, " "); split(b, y, " "); print (y[1] - x[1]) / 100 }'
}
settle() {
  sync
  local waited=0
  while [ "$waited" -lt 90 ]; do
    if awk -v busy="$(busy_cores)" '{ exit !($1 < 1.5 && busy < 0.1) }' /proc/loadavg; then return; fi
    waited=$((waited + 1))
  done
}
for b in "$build"/bench/*_bench; do
  [ -x "$b" ] || continue
  [[ -z "$filter" || "$(basename "$b")" == *$filter* ]] || continue
  settle
  echo "== $(basename "$b")"
  "$b" || failed+=("$(basename "$b")")
done
# The benches that build wheels go last: what they leave behind (a full page cache, writeback,
# fragmented memory that huge-page allocations then have to compact) falls on no other line.
scripts=()
for s in "$here"/*_bench.sh; do [[ "$s" == *rebuild_bench.sh ]] || scripts+=("$s"); done
for s in "$here"/*rebuild_bench.sh; do [ -f "$s" ] && scripts+=("$s"); done
for s in "${scripts[@]}"; do
  [ -f "$s" ] || continue
  [[ -z "$filter" || "$(basename "$s")" == *$filter* ]] || continue
  settle
  echo "== $(basename "$s" .sh)"
  RELFORGE="$build/relforge" BUILD_DIR="$build" bash "$s" || failed+=("$(basename "$s" .sh)")
done
/usr/bin/python3 "$here/collect.py" "$BENCH_RESULTS" "$build/$results.json" \
  --started "$started" --load-before "$load_before" --failed "${failed[*]:-}" --binary "$build/relforge" --commit "$commit"
if [ ${#failed[@]} -gt 0 ]; then
  echo "benches that did not run to the end: ${failed[*]}" >&2
  exit 1
fi
