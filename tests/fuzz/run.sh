#!/usr/bin/env bash
# Runs every libFuzzer target of a `fuzz` preset build for a bounded time.
# usage: tests/fuzz/run.sh BUILD_DIR SECONDS [TARGET...]   (TARGET: version, config, ...; default all)
# FUZZ_JOBS: how many targets run at once (default: the number of cores).
# Each target starts from its seed corpus and saved regressions (read only: new inputs go to a temp
# dir), with tests/fuzz/<target>.options (one libFuzzer flag a line) and <target>.dict when present.
# A crash, leak, timeout or sanitizer report fails the run; the input is kept under
# BUILD_DIR/fuzz-artifacts/<target>/ and the message says how to replay it.
set -uo pipefail

build_dir=${1:?usage: run.sh BUILD_DIR SECONDS [TARGET...]}
seconds=${2:?usage: run.sh BUILD_DIR SECONDS [TARGET...]}
shift 2
here=$(cd "$(dirname "$0")" && pwd)
bin_dir=$build_dir/tests/fuzz
artifacts=$build_dir/fuzz-artifacts
timeout_s=${FUZZ_TIMEOUT:-10}   # one input running longer than this is a failure (a hang)

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for binary in "$bin_dir"/*_fuzz; do
    [ -x "$binary" ] && targets+=("$(basename "$binary" _fuzz)")
  done
fi
if [ ${#targets[@]} -eq 0 ]; then
  echo "fuzz: no targets in $bin_dir (build them: cmake --preset fuzz && cmake --build --preset fuzz)" >&2
  exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/relforge-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$artifacts"

# One fuzzer is single-threaded: FUZZ_JOBS targets (default: one per core) run at once, each for the
# full SECONDS of its own, so on N cores the run takes about ceil(targets/N) x SECONDS.
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
[ "$jobs" -ge 1 ] 2>/dev/null || jobs=1

# Runs one target; its exit status goes to $work/<target>.rc, its output to <artifacts>/<target>.log.
fuzz_one() {
  local target=$1
  local binary=$bin_dir/${target}_fuzz
  if [ ! -x "$binary" ]; then
    echo "fuzz: $binary is not built" >"$artifacts/$target.log"
    echo 127 >"$work/$target.rc"
    return
  fi
  local flags=(-max_total_time="$seconds" -timeout="$timeout_s" -rss_limit_mb=2048 -print_final_stats=1
               -artifact_prefix="$artifacts/$target/")
  if [ -f "$here/$target.options" ]; then
    while read -r flag; do
      case "$flag" in ''|'#'*) ;; *) flags+=("$flag") ;; esac
    done <"$here/$target.options"
  fi
  [ -f "$here/$target.dict" ] && flags+=(-dict="$here/$target.dict")
  rm -rf "${artifacts:?}/$target"
  mkdir -p "$work/$target" "$artifacts/$target"
  local seeds=("$here/corpus/$target")
  [ -d "$here/regressions/$target" ] && seeds+=("$here/regressions/$target")
  "$binary" "${flags[@]}" "$work/$target" "${seeds[@]}" >"$artifacts/$target.log" 2>&1
  echo $? >"$work/$target.rc"
}

running=0
for target in "${targets[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n
    running=$((running - 1))
  fi
  fuzz_one "$target" &
  running=$((running + 1))
done
wait

failed=()
printf '%-14s %10s %10s %8s  %s\n' target runs exec/s corpus result
for target in "${targets[@]}"; do
  binary=$bin_dir/${target}_fuzz
  log=$artifacts/$target.log
  rc=$(cat "$work/$target.rc" 2>/dev/null || echo 1)
  if [ "$rc" -eq 127 ] && [ ! -x "$binary" ]; then
    cat "$log" >&2
    failed+=("$target")
    continue
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  corpus=$(sed -n 's/.*corp: \([0-9]*\)\/.*/\1/p' "$log" | tail -1)
  if [ "$rc" -eq 0 ]; then
    printf '%-14s %10s %10s %8s  %s\n' "$target" "${runs:-?}" "${rate:-?}" "${corpus:-?}" ok
  else
    printf '%-14s %10s %10s %8s  %s\n' "$target" "${runs:-?}" "${rate:-?}" "${corpus:-?}" "FAILED (exit $rc)"
    failed+=("$target")
    echo "---- $target: last lines of $log" >&2
    tail -n 40 "$log" >&2
    for input in "$artifacts/$target"/*; do
      [ -f "$input" ] || continue
      echo "fuzz: $target saved $input" >&2
      echo "  replay: $binary $input    (or without clang: build/ci/tests/fuzz/${target}_fuzz_replay $input)" >&2
      echo "  then fix the bug and keep it: cp $input $here/regressions/$target/" >&2
    done
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz: ${#targets[@]} targets, ${seconds}s each, $jobs at a time, no crash"
