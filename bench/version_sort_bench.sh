#!/usr/bin/env bash
# Whole-process PEP 440 work as users call it in loops and pipes:
#  1. `relforge version sort` of 200,000 versions (the version_bench mix: releases, nightlies,
#     candidates, local variants, odd spellings) against `sorted(map(Version, lines))` with
#     packaging 26.3 (the oracle: $RELFORGE_PACKAGING_ORACLE, else tests/oracles/;
#     Debian's 23.0 when it is absent), both as a whole process reading the same file, both
#     outputs checked equal. Target >= 30x by CPU time.
#     Ours is the binary users install (make dist: static, no loader work); the shared-library
#     build's figure is in the notes.
#  (Start-up bound commands, `version compare` and `wheel parse`: bench/startup_bench.sh.)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
relforge=$(realpath "${RELFORGE:?set RELFORGE to the relforge binary}")
build=${BUILD_DIR:-$(dirname "$relforge")}
dist=$(realpath "${RELFORGE_DIST:-$here/../build/dist/relforge}")
[ -x "$dist" ] || { echo "version sort: no dist binary at $dist: run make dist first" >&2; exit 1; }
BENCH_TMP=$(mktemp -d "${TMPDIR:-/tmp}/relforge-version-sort-bench.XXXXXX")
trap 'rm -rf "$BENCH_TMP"' EXIT
oracle=${RELFORGE_PACKAGING_ORACLE:-$(cd "$here/.." && pwd)/tests/oracles/packaging-26.3}
peer_name="packaging 26.3"
[ -d "$oracle/packaging" ] || { oracle=""; peer_name="packaging $(/usr/bin/python3 -c 'import packaging; print(packaging.__version__)') (Debian)"; }

"$build/bench/version_bench" --write-versions "$BENCH_TMP/versions.txt" 200000
cat >"$BENCH_TMP/peer.py" <<'PY'
import sys
from packaging.version import Version
with open(sys.argv[1], encoding="utf-8") as handle:
    lines = handle.read().splitlines()
sys.stdout.write("\n".join(sorted(lines, key=Version)) + "\n")
PY
ours=() shared=() peer=()
export BENCH_IN=$BENCH_TMP/versions.txt
for _ in 1 2 3; do
  ours+=("$(BENCH_OUT=$BENCH_TMP/ours.txt measure "$dist" version sort)")
  shared+=("$(BENCH_OUT=$BENCH_TMP/shared.txt measure "$relforge" version sort)")
  peer+=("$(BENCH_OUT=$BENCH_TMP/peer.txt PYTHONPATH=$oracle measure /usr/bin/python3 "$BENCH_TMP/peer.py" "$BENCH_TMP/versions.txt")")
done
unset BENCH_IN
cmp -s "$BENCH_TMP/ours.txt" "$BENCH_TMP/shared.txt" || { echo "version sort: the dist and shared builds disagree" >&2; exit 1; }
cmp -s "$BENCH_TMP/ours.txt" "$BENCH_TMP/peer.txt" || {
  echo "version sort: relforge and $peer_name order the versions differently:" >&2
  diff "$BENCH_TMP/ours.txt" "$BENCH_TMP/peer.txt" | head -5 >&2
  exit 1
}
record "{\"name\": \"version sort, 200,000 versions\", \"input\": \"200,000 index-like PEP 440 versions in a file, whole process, best of 3\",
  \"ours\": $(side "relforge version sort (dist binary)" "$(best "${ours[@]}")"),
  \"notes\": \"the shared-library build: $(cpu_of "$(best "${shared[@]}")") s CPU, $(wall_of "$(best "${shared[@]}")") s wall\",
  \"peer\": $(side "python3 sorted(map(Version, ...)) with $peer_name" "$(best "${peer[@]}")"),
  \"target\": {\"on\": \"speedup_cpu\", \"op\": \">=\", \"value\": 30, \"text\": \">= 30x by CPU time\"}}"

