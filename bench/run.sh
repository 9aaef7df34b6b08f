#!/usr/bin/env bash
# `make bench`: every benchmark, each reported against its named peer in the same run:
# the compiled bench/*_bench.cpp programs, then the whole-process bench/*_bench.sh scripts.
set -euo pipefail
build=${1:-build/release}
here=$(cd "$(dirname "$0")" && pwd)
for b in "$build"/bench/*_bench; do
  [ -x "$b" ] || continue
  echo "== $(basename "$b")"
  "$b"
done
for s in "$here"/*_bench.sh; do
  [ -f "$s" ] || continue
  echo "== $(basename "$s" .sh)"
  RELFORGE="$build/relforge" BUILD_DIR="$build" bash "$s"
done
