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
# Before each bench: the previous one's dirty pages are flushed and the machine gets up to 30 s
# to settle (1-minute load below 1.5), so one bench's writeback and builds do not land in the next
# one's figures. Each line still records the load it ran at.
settle() {
  sync
  local waited=0
  while [ "$waited" -lt 30 ] && awk '{ exit !($1 >= 1.5) }' /proc/loadavg; do
    sleep 2
    waited=$((waited + 2))
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
  --started "$started" --load-before "$load_before" --failed "${failed[*]:-}" --binary "$build/relforge"
if [ ${#failed[@]} -gt 0 ]; then
  echo "benches that did not run to the end: ${failed[*]}" >&2
  exit 1
fi
