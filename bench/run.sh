#!/usr/bin/env bash
# `make bench`: every benchmark, each reported against its named peer in the same run.
set -euo pipefail
build=${1:-build/release}
for b in "$build"/bench/*_bench; do
  [ -x "$b" ] || continue
  echo "== $(basename "$b")"
  "$b"
done
