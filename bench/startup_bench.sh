#!/usr/bin/env bash
# Whole-process startup: `relforge --version` of the static dist binary (make dist) against the
# shared-library build ($RELFORGE), the loader's work included. Prints both, median and fastest of
# 200 runs (hyperfine when installed, else a shell loop); target: the dist binary's median under
# 5 ms. On a loaded machine the fastest run is the better guide to what the binary itself costs.
set -euo pipefail
shared=$(realpath "${RELFORGE:?the shared relforge binary to compare with}")
here=$(cd "$(dirname "$0")/.." && pwd)
dist=${RELFORGE_DIST:-$here/build/dist/relforge}
if [ ! -x "$dist" ]; then
  echo "startup --version: no dist binary at $dist (run make dist); shared build only:"
  dist=
fi
runs=200
tmp=$(mktemp -d "${TMPDIR:-/tmp}/relforge-startup-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# measure BINARY: prints "median fastest cpu" in ms (cpu: mean user + system time, "-" without
# hyperfine); CPU time moves least when other work shares the cores.
measure() {
  local binary=$1
  if command -v hyperfine >/dev/null 2>&1; then
    hyperfine -N --warmup 20 --runs "$runs" --export-json "$tmp/h.json" "$binary --version" >/dev/null 2>&1
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print("%.2f %.2f %.2f" % (r["median"]*1e3, r["min"]*1e3, (r["user"]+r["system"])*1e3))' "$tmp/h.json"
  else
    local times=() start
    for _ in $(seq "$runs"); do
      start=$(date +%s%N)
      "$binary" --version >/dev/null
      times+=($(($(date +%s%N) - start)))
    done
    printf '%s\n' "${times[@]}" | sort -n |
      awk '{a[NR]=$1} END {printf "%.2f %.2f -\n", a[int((NR+1)/2)]/1e6, a[1]/1e6}'
  fi
}

read -r shared_median shared_min shared_cpu < <(measure "$shared")
printf 'startup --version: shared build %6.2f ms median, %5.2f ms fastest, %s ms CPU  (%s)\n' \
  "$shared_median" "$shared_min" "$shared_cpu" "$shared"
if [ -n "$dist" ]; then
  read -r dist_median dist_min dist_cpu < <(measure "$dist")
  printf 'startup --version: dist static  %6.2f ms median, %5.2f ms fastest, %s ms CPU  (%s)\n' \
    "$dist_median" "$dist_min" "$dist_cpu" "$dist"
  python3 -c 'import sys; m=float(sys.argv[1]); s=float(sys.argv[2]); print("startup --version: dist %.1fx faster than shared; target < 5 ms: %s" % (s/m, "PASS" if m < 5 else "FAIL"))' \
    "$dist_median" "$shared_median"
fi
