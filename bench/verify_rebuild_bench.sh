#!/usr/bin/env bash
# `relforge verify --rebuild` of minitensor's cp311 CPU wheel (clone the commit, rebuild the cell,
# repair, smoke-test, diff) against the original `relforge build` of that cell from the same
# commit: what checking a published wheel costs over building it.
# Target: verify --rebuild <= 1.5x the original build's time (speedup >= 0.67 by wall clock).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
relforge=$(realpath "${RELFORGE:?the relforge binary to measure}")
BENCH_TMP=$(mktemp -d "${TMPDIR:-/tmp}/relforge-rebuild-bench.XXXXXX")
trap 'rm -rf "$BENCH_TMP"' EXIT
[ -x /usr/bin/python3.11 ] || { echo "bench: verify --rebuild needs /usr/bin/python3.11 (python3.11-dev)" >&2; exit 1; }

src="$BENCH_TMP/src/minitensor"
mkdir -p "$(dirname "$src")"
cp -r "$here/../examples/minitensor" "$src"
git -C "$src" init -q && git -C "$src" add -A
GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@example.org GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@example.org \
  git -C "$src" commit -qm bench
"$relforge" keys generate --out "$BENCH_TMP/keys" >/dev/null

ours=() peer=()
runs=${REBUILD_BENCH_RUNS:-3}
for i in $(seq "$runs"); do
  # The original build of the cell, in a fresh state dir each time (no --resume).
  peer+=("$(measure "$relforge" build --config "$src/relforge.toml" --select 'cp311-*-cpu' \
    --state-dir "$BENCH_TMP/build-$i")")
done
"$relforge" nightly --config "$src/relforge.toml" --select 'cp311-*-cpu' --root "$BENCH_TMP/channel" \
  --state-dir "$BENCH_TMP/nightly" --date 20260102 --key "$BENCH_TMP/keys/signing.key" >/dev/null
wheel=$(ls "$BENCH_TMP"/channel/whl/nightly/cpu/minitensor/*.whl)
for _ in $(seq "$runs"); do
  ours+=("$(measure "$relforge" verify "$wheel" --key "$BENCH_TMP/keys/signing.pub" --rebuild \
    --config "$src/relforge.toml")")
done
record "{\"name\": \"verify --rebuild cp311 cpu\", \"input\": \"minitensor's 3.11-cpu cell from a one-commit clone, best of $runs\",
  \"ours\": $(side "relforge verify --rebuild" "$(best "${ours[@]}")"),
  \"peer\": $(side "relforge build (the original)" "$(best "${peer[@]}")"),
  \"target\": {\"on\": \"speedup_wall\", \"op\": \">=\", \"value\": 0.67, \"text\": \"<= 1.5x the original build\"}}"
