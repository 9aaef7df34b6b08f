#!/usr/bin/env bash
# Whole-process start-up, where users call relforge in loops and pipes: `relforge --version`,
# `version compare` and `wheel parse` of the static dist binary (make dist) against the same
# commands of the shared-library build ($RELFORGE), the loader's work included; median of 200 runs
# (hyperfine, in rounds: see below). Target: the dist binary's median under 5 ms wall. Also
# reported: `triage classify` of a small real log (the built-in rules made ready, one log read),
# and /bin/true started the same way, the floor the machine puts under any process.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
shared=$(realpath "${RELFORGE:?the shared relforge binary to compare with}")
dist=${RELFORGE_DIST:-$here/../build/dist/relforge}
[ -x "$dist" ] || { echo "startup: no dist binary at $dist: run make dist first" >&2; exit 1; }
command -v hyperfine >/dev/null || { echo "startup: hyperfine is not installed (apt-get install hyperfine)" >&2; exit 1; }
BENCH_TMP=$(mktemp -d "${TMPDIR:-/tmp}/relforge-startup-bench.XXXXXX")
trap 'rm -rf "$BENCH_TMP"' EXIT

# The 200 runs of each line are taken in 4 rounds of 50, every command of both builds in turn in
# each round: a burst of load on the shared machine (a second or two) then weighs on a quarter of a
# line's runs, not on all of them, while a slowdown that lasts shows in every round. (One run of
# 200 in a block measured `wheel parse` at 7.8 ms where the same binary gave 3.6-3.9 ms minutes
# before and after.)
commands=("--version" "version compare 2.7.0rc1 2.7.0"
  "wheel parse minitensor-2.7.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl"
  "triage classify $here/../tests/fixtures/triage/abort.log")
rounds=4
for round in $(seq "$rounds"); do
  for i in "${!commands[@]}"; do
    for side in ours peer; do
      if [ "$side" = ours ]; then binary=$dist; else binary=$shared; fi
      hyperfine -N --warmup 5 --runs 50 --export-json "$BENCH_TMP/$side.$i.$round.json" \
        "$binary ${commands[$i]}" >/dev/null 2>&1
    done
  done
  hyperfine -N --warmup 5 --runs 50 --export-json "$BENCH_TMP/floor.0.$round.json" /bin/true >/dev/null 2>&1
done

# pooled SIDE I: "MEDIAN_S CPU_S null" over that line's rounds (CPU: mean user + system per run).
pooled() {
  python3 - "$BENCH_TMP" "$1" "$2" "$rounds" <<'PY'
import json, statistics, sys
folder, side, index, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
results = [json.load(open(f"{folder}/{side}.{index}.{r}.json"))["results"][0] for r in range(1, rounds + 1)]
times = [t for result in results for t in result["times"]]
cpu = statistics.mean(result["user"] + result["system"] for result in results)
print("%.6f %.6f null" % (statistics.median(times), cpu))
PY
}
for i in "${!commands[@]}"; do
  args=${commands[$i]}
  name=$(echo "$args" | cut -d' ' -f1-2 | sed 's/ 2.7.0rc1//; s/ minitensor.*//; s| /.*||')
  target='{"on": "ours_wall_ms", "op": "<", "value": 5, "text": "dist median < 5 ms wall"}'
  [ "$name" = "triage classify" ] && target='{"op": "report", "text": "reported"}' &&
    args="triage classify tests/fixtures/triage/abort.log (a 6-line job log)"
  record "{\"name\": \"start-up: relforge $name\", \"input\": \"relforge $args, whole process, median of 200 (hyperfine, 4 rounds of 50 taken in turn with the other commands)\",
    \"ours\": $(side "dist binary (static)" "$(pooled ours "$i")"),
    \"peer\": $(side "shared-library build" "$(pooled peer "$i")"),
    \"target\": $target}"
done
record "{\"name\": \"start-up floor: /bin/true\", \"input\": \"/bin/true, whole process, median of 200 (hyperfine, in the same rounds): what starting any process costs on this machine\",
  \"ours\": $(side "/bin/true" "$(pooled floor 0)"),
  \"target\": {\"op\": \"report\", \"text\": \"reported\"}}"
