#!/usr/bin/env bash
# Whole-process start-up, where users call relforge in loops and pipes: `relforge --version`,
# `version compare` and `wheel parse` of the static dist binary (make dist) against the same
# commands of the shared-library build ($RELFORGE), the loader's work included; median of 200 runs
# (hyperfine). Target: the dist binary's median under 5 ms wall.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
shared=$(realpath "${RELFORGE:?the shared relforge binary to compare with}")
dist=${RELFORGE_DIST:-$here/../build/dist/relforge}
[ -x "$dist" ] || { echo "startup: no dist binary at $dist: run make dist first" >&2; exit 1; }
command -v hyperfine >/dev/null || { echo "startup: hyperfine is not installed (apt-get install hyperfine)" >&2; exit 1; }
BENCH_TMP=$(mktemp -d "${TMPDIR:-/tmp}/relforge-startup-bench.XXXXXX")
trap 'rm -rf "$BENCH_TMP"' EXIT

# timed BINARY ARGS: "MEDIAN_S CPU_S 0" over 200 runs (CPU: mean user + system per run).
timed() {
  hyperfine -N --warmup 20 --runs 200 --export-json "$BENCH_TMP/h.json" "$*" >/dev/null 2>&1
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print("%.6f %.6f null" % (r["median"], r["user"] + r["system"]))' \
    "$BENCH_TMP/h.json"
}
for args in "--version" "version compare 2.7.0rc1 2.7.0" \
  "wheel parse minitensor-2.7.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl"; do
  name=$(echo "$args" | cut -d' ' -f1-2 | sed 's/ 2.7.0rc1//; s/ minitensor.*//')
  record "{\"name\": \"start-up: relforge $name\", \"input\": \"relforge $args, whole process, median of 200 (hyperfine)\",
    \"ours\": $(side "dist binary (static)" "$(timed "$dist" $args)"),
    \"peer\": $(side "shared-library build" "$(timed "$shared" $args)"),
    \"target\": {\"on\": \"ours_wall_ms\", \"op\": \"<\", \"value\": 5, \"text\": \"dist median < 5 ms wall\"}}"
done
