#!/usr/bin/env bash
# Retag/repair of a 1 GiB (uncompressed) wheel of 16 real ELF libraries (section headers at the
# end): `relforge wheel repair` (policy check of every ELF file, new name, WHEEL, METADATA, RECORD)
# against `cp` of the same file (the raw-copy limit; target: within 1.5x, peak RSS < 64 MB),
# against `unzip -t` (the least a tool does to check every entry: inflate it and compare its CRC-32,
# nothing hashed or written; repair inflates and hashes every entry before it writes), and against
# what release scripts do: `python3 -m wheel unpack` + edit + `python3 -m wheel pack`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
relforge=$(realpath "${RELFORGE:?the relforge binary to measure}")
python=/usr/bin/python3
BENCH_TMP=$(mktemp -d "${TMPDIR:-/tmp}/relforge-repair-bench.XXXXXX")
trap 'rm -rf "$BENCH_TMP"' EXIT
tmp=$BENCH_TMP

wheel=$("$python" "$here/repair_bench.py" "$tmp/in")
cat "$wheel" >/dev/null  # every side reads it from the page cache
out="$tmp/relforge/demo-1.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl"

ours=() copy=()
for _ in 1 2 3; do
  rm -rf "$tmp/relforge" "$tmp/copy.whl"
  copy+=("$(measure cp "$wheel" "$tmp/copy.whl")")
  # version 1.0 -> 1.0+cpu, linux_x86_64 -> manylinux_2_28_x86_64, RECORD rebuilt.
  ours+=("$(BENCH_OUT=$tmp/repair.out measure "$relforge" wheel repair "$wheel" \
    --plat manylinux_2_28_x86_64 --local cpu --out "$tmp/relforge")")
done
# The policy check really ran on the 16 ELF libraries, and the result is a correct wheel.
grep -q ' 16 ELF files checked' "$tmp/repair.out" || {
  echo "repair 1 GiB: relforge did not check the 16 ELF libraries: $(cat "$tmp/repair.out")" >&2
  exit 1
}
"$relforge" wheel verify "$out" >/dev/null

tested=()
for _ in 1 2; do tested+=("$(measure unzip -tqq "$wheel")"); done

peer_script() {
  cd "$tmp"
  rm -rf peer packed
  "$python" -m wheel unpack --dest peer "$wheel" >/dev/null
  mv peer/demo-1.0 peer/demo-1.0+cpu
  mv peer/demo-1.0+cpu/demo-1.0.dist-info peer/demo-1.0+cpu/demo-1.0+cpu.dist-info
  sed -i 's/^Version: 1.0$/Version: 1.0+cpu/' peer/demo-1.0+cpu/demo-1.0+cpu.dist-info/METADATA
  sed -i 's/^Tag: cp311-cp311-linux_x86_64$/Tag: cp311-cp311-manylinux_2_28_x86_64/' \
    peer/demo-1.0+cpu/demo-1.0+cpu.dist-info/WHEEL
  mkdir -p packed
  "$python" -m wheel pack --dest-dir packed peer/demo-1.0+cpu >/dev/null
}
export -f peer_script
export tmp wheel python
scripts=$(measure bash -c peer_script)
[ -f "$tmp/packed/demo-1.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl" ] || {
  echo "repair 1 GiB: the peer produced no wheel" >&2
  exit 1
}

input="a 1 GiB wheel of 16 ELF libraries, page cache, best of 3"
record "{\"name\": \"repair 1 GiB vs cp\", \"input\": \"$input\",
  \"ours\": $(side "relforge wheel repair" "$(best "${ours[@]}")"),
  \"peer\": $(side "cp" "$(best "${copy[@]}")"),
  \"target\": {\"on\": \"speedup_wall\", \"op\": \">=\", \"value\": 0.667, \"text\": \"within 1.5x of cp\"}}"
record "{\"name\": \"repair 1 GiB peak RSS\", \"input\": \"$input\",
  \"ours\": $(side "relforge wheel repair" "$(best "${ours[@]}")"),
  \"target\": {\"on\": \"ours_rss_mb\", \"op\": \"<\", \"value\": 64, \"text\": \"< 64 MB\"}}"
record "{\"name\": \"repair 1 GiB vs unzip -t\", \"input\": \"$input (peer: best of 2)\",
  \"ours\": $(side "relforge wheel repair" "$(best "${ours[@]}")"),
  \"peer\": $(side "unzip -t (inflate and CRC-32 of every entry, nothing written)" "$(best "${tested[@]}")"),
  \"target\": {\"op\": \"report\", \"text\": \"reported\"}}"
record "{\"name\": \"repair 1 GiB vs wheel unpack+pack\", \"input\": \"$input (peer: one run)\",
  \"ours\": $(side "relforge wheel repair" "$(best "${ours[@]}")"),
  \"peer\": $(side "python3 -m wheel unpack + edit + pack" "$scripts"),
  \"target\": {\"op\": \"report\", \"text\": \"reported\"}}"
