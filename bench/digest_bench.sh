#!/usr/bin/env bash
# sha256 of a 1 GiB file: `relforge wheel hash` (platform/digest, streamed through OpenSSL's SHA256_* functions)
# against `openssl dgst -sha256`, both as whole processes on the same cached file, best of 3.
# Target: relforge's throughput >= 95 % of openssl's (speedup >= 0.95 by wall clock).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
relforge=$(realpath "${RELFORGE:?the relforge binary to measure}")
BENCH_TMP=$(mktemp -d "${TMPDIR:-/tmp}/relforge-digest-bench.XXXXXX")
trap 'rm -rf "$BENCH_TMP"' EXIT
file=$BENCH_TMP/big.bin
head -c $((1 << 30)) /dev/urandom >"$file"
cat "$file" >/dev/null  # both read it from the page cache

ours=() peer=()
for _ in 1 2 3; do
  ours+=("$(BENCH_OUT=$BENCH_TMP/ours.out measure "$relforge" wheel hash "$file")")
  peer+=("$(BENCH_OUT=$BENCH_TMP/peer.out measure openssl dgst -sha256 -r "$file")")
done
[ "$(cut -d' ' -f1 "$BENCH_TMP/ours.out")" = "$(cut -d' ' -f1 "$BENCH_TMP/peer.out")" ] || {
  echo "sha256 1 GiB: relforge and openssl disagree on the digest" >&2
  exit 1
}
record "{\"name\": \"sha256 1 GiB\", \"input\": \"1 GiB of random bytes read from the page cache, best of 3\",
  \"ours\": $(side "relforge wheel hash" "$(best "${ours[@]}")"),
  \"peer\": $(side "openssl dgst -sha256" "$(best "${peer[@]}")"),
  \"target\": {\"on\": \"speedup_wall\", \"op\": \">=\", \"value\": 0.95, \"text\": \">= 95 % of openssl's speed\"}}"
