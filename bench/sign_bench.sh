#!/usr/bin/env bash
# `relforge sign` of a 1 GiB file (hash + DSSE/in-toto bundle + write) against `openssl dgst -sha256`
# on the same file, both reading it from the page cache; target: relforge <= 1.3x openssl's time.
# Env RELFORGE=<release relforge binary>.
set -euo pipefail
relforge=${RELFORGE:?set RELFORGE to the relforge binary}
mib=${SIGN_BENCH_MIB:-1024}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/relforge-sign-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Runs "$@" (output discarded) and prints "WALL_MS CPU_MS" (CPU = user + system of the process).
measure() {
  local TIMEFORMAT='%R %U %S' out
  out=$({ time "$@" >/dev/null 2>"$tmp/last.err"; } 2>&1)
  awk '{ printf "%d %d\n", $1 * 1000, ($2 + $3) * 1000 }' <<<"$out"
}
# The fastest of several "WALL CPU" results, by wall time.
best() { printf '%s\n' "$@" | sort -n | head -1; }
wall() { echo "${1% *}"; }
cpu() { echo "${1#* }"; }
seconds() { awk -v t="$1" 'BEGIN { printf "%.2f", t / 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }'; }

file="$tmp/minitensor-2.7.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl"
dd if=/dev/urandom of="$file" bs=1M count="$mib" status=none
"$relforge" keys generate --out "$tmp/keys" >/dev/null
cat "$file" >/dev/null  # into the page cache for both

ours=() peer=()
for _ in 1 2 3; do
  peer+=("$(measure openssl dgst -sha256 "$file")")
  ours+=("$(measure "$relforge" sign "$file" --key "$tmp/keys/signing.key" --cell 3.12-cu130 --channel stable \
    --source-commit 0123456789abcdef0123456789abcdef01234567)")
done
"$relforge" verify "$file" --key "$tmp/keys/signing.pub" >/dev/null  # the bundle is real
a=$(best "${ours[@]}")
b=$(best "${peer[@]}")
x=$(awk -v a="$(wall "$a")" -v b="$(wall "$b")" 'BEGIN { printf "%.2f", a / b }')
echo "sign $mib MiB: relforge $(seconds "$(wall "$a")") s, openssl dgst -sha256 $(seconds "$(wall "$b")") s ->" \
  "${x}x the openssl time (target <= 1.3x) $(awk -v r="$x" 'BEGIN { print (r <= 1.3 ? "PASS" : "FAIL") }')"
echo "  CPU time: relforge $(seconds "$(cpu "$a")") s, openssl $(seconds "$(cpu "$b")") s ->" \
  "$(awk -v a="$(cpu "$a")" -v b="$(cpu "$b")" 'BEGIN { printf "%.2f", a / b }')x; load average $(cut -d' ' -f1 /proc/loadavg)"
