# Sourced by bench/*_bench.sh: timing a whole process the same way in every bench, and handing
# the figures to bench/record.py (the one formatter of bench lines and results).
bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# measure COMMAND...: runs it once (stdout to $BENCH_OUT or /dev/null, stderr kept in
# $BENCH_TMP/last.err) and prints "WALL_S CPU_S RSS_MB" (CPU = user + system of the process tree).
measure() {
  local out=${BENCH_OUT:-/dev/null} times
  times=$(mktemp "${BENCH_TMP:-/tmp}/measure.XXXXXX")
  if ! /usr/bin/time -f '%e %U %S %M' -o "$times" "$@" >"$out" 2>"${BENCH_TMP:-/tmp}/last.err"; then
    echo "bench: '$*' failed: $(tail -3 "${BENCH_TMP:-/tmp}/last.err")" >&2
    rm -f "$times"
    return 1
  fi
  # %e has only centiseconds; take the wall clock from date when the run was short.
  awk '{ printf "%.4f %.4f %.1f\n", $1, $2 + $3, $4 / 1024 }' "$times"
  rm -f "$times"
}

# measure_ns COMMAND...: like measure, with the wall clock from `date +%s%N` (short runs).
measure_ns() {
  local start end cpu
  start=$(date +%s%N)
  cpu=$(measure "$@") || return 1
  end=$(date +%s%N)
  awk -v w="$(((end - start)))" '{ printf "%.6f %.4f %.1f\n", w / 1e9, $2, $3 }' <<<"$cpu"
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
