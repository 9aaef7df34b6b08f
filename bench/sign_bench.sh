#!/usr/bin/env bash
# `relforge sign` of a 1 GiB wheel (hash + DSSE/in-toto bundle + write) against `openssl dgst
# -sha256` of the same file, both reading it from the page cache, best of 3.
# Target: relforge <= 1.15x openssl's time (speedup >= 0.87 by wall clock).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
relforge=$(realpath "${RELFORGE:?the relforge binary to measure}")
mib=${SIGN_BENCH_MIB:-1024}
BENCH_TMP=$(mktemp -d "${TMPDIR:-/tmp}/relforge-sign-bench.XXXXXX")
trap 'rm -rf "$BENCH_TMP"' EXIT

file="$BENCH_TMP/minitensor-2.7.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl"
dd if=/dev/urandom of="$file" bs=1M count="$mib" status=none
"$relforge" keys generate --out "$BENCH_TMP/keys" >/dev/null
cat "$file" >/dev/null  # into the page cache for both

ours=() peer=()
for _ in 1 2 3; do
  peer+=("$(measure openssl dgst -sha256 "$file")")
  ours+=("$(measure "$relforge" sign "$file" --key "$BENCH_TMP/keys/signing.key" --cell 3.12-cu130 \
    --channel stable --source-commit 0123456789abcdef0123456789abcdef01234567)")
done
"$relforge" verify "$file" --key "$BENCH_TMP/keys/signing.pub" >/dev/null  # the bundle is real
record "{\"name\": \"sign $mib MiB\", \"input\": \"a $mib MiB wheel of random bytes in the page cache, best of 3\",
  \"ours\": $(side "relforge sign" "$(best "${ours[@]}")"),
  \"peer\": $(side "openssl dgst -sha256" "$(best "${peer[@]}")"),
  \"target\": {\"on\": \"speedup_wall\", \"op\": \">=\", \"value\": 0.87, \"text\": \"<= 1.15x openssl's time\"}}"
