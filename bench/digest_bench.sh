#!/usr/bin/env bash
# sha256 of a 1 GiB file: `relforge wheel hash` (platform/digest, streamed through OpenSSL EVP)
# against `openssl dgst -sha256`, both as whole processes on the same cached file, best of 3.
# Prints both throughputs and the ratio (target >= 90 %).
set -euo pipefail
relforge=$(realpath "${RELFORGE:?the relforge binary to measure}")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/relforge-digest-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
file=$tmp/big.bin
head -c $((1 << 30)) /dev/urandom >"$file"
cat "$file" >/dev/null  # both read it from the page cache

now() { date +%s%N; }
best() {  # best COMMAND...: the fastest of 3 runs, in ns; the output of the last run in $tmp/out
  local fastest=0 start took
  for _ in 1 2 3; do
    start=$(now)
    "$@" >"$tmp/out"
    took=$(($(now) - start))
    if [ "$fastest" -eq 0 ] || [ "$took" -lt "$fastest" ]; then fastest=$took; fi
  done
  echo "$fastest"
}
ours=$(best "$relforge" wheel hash "$file")
ours_hex=$(cut -d' ' -f1 "$tmp/out")
peer=$(best openssl dgst -sha256 -r "$file")
peer_hex=$(cut -d' ' -f1 "$tmp/out")
[ "$ours_hex" = "$peer_hex" ] || {
  echo "sha256 1 GiB: relforge says $ours_hex, openssl says $peer_hex" >&2
  exit 1
}
/usr/bin/python3 - "$ours" "$peer" <<'PY'
import sys
ours, peer = (int(x) / 1e9 for x in sys.argv[1:])
gib = 1.0
ratio = peer / ours
print(f"sha256 1 GiB: relforge {gib / ours * 1024:.0f} MiB/s, openssl dgst {gib / peer * 1024:.0f} MiB/s "
      f"-> {ratio * 100:.0f} % (target >= 90 %) {'PASS' if ratio >= 0.9 else 'FAIL'}")
PY
