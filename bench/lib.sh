# shellcheck shell=bash
# Sourced by bench/*_bench.sh: timing a whole process the same way in every bench, and handing
# the figures to bench/record.py (the one formatter of bench lines and results).
bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# measure COMMAND...: runs it once (stdin from $BENCH_IN or /dev/null, stdout to $BENCH_OUT or
# /dev/null, stderr kept in $BENCH_TMP/last.err) and prints "WALL_S CPU_S RSS_MB" (CPU = user + system of the process tree,
# to the microsecond: bench/measure.cpp, built beside the benches).
measure() {
  local out=${BENCH_OUT:-/dev/null} err=${BENCH_TMP:-/tmp}/last.err figures
  if ! figures=$("${BUILD_DIR:-$bench_dir/../build/release}/bench/measure" "$out" "$err" "$@"); then
    echo "bench: '$*' failed: $(tail -3 "$err")" >&2
    return 1
  fi
  echo "$figures"
}

# best "W C R" ...: the fastest by wall clock; median "W C R" ...: the middle one by wall clock.
best() { printf '%s\n' "$@" | sort -n | head -1; }
median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $0 } END { print a[int((NR + 1) / 2)] }'; }
wall_of() { echo "$1" | cut -d' ' -f1; }
cpu_of() { echo "$1" | cut -d' ' -f2; }
rss_of() { echo "$1" | cut -d' ' -f3; }

# side LABEL "W C R": the JSON of one measured side.
side() {
  printf '{"label": %s, "wall_s": %s, "cpu_s": %s, "rss_mb": %s}' \
    "$(json_string "$1")" "$(wall_of "$2")" "$(cpu_of "$2")" "$(rss_of "$2")"
}
json_string() { /usr/bin/python3 -c 'import json, sys; print(json.dumps(sys.argv[1]))' "$1"; }

# record JSON: prints the bench line and appends the record to $BENCH_RESULTS (see record.py).
record() { /usr/bin/python3 "$bench_dir/record.py" <<<"$1"; }
