#!/usr/bin/env bash
# Retag/repair of a 1 GiB (uncompressed) wheel of 16 real ELF libraries (section headers at the end): `relforge wheel repair` against the peer
# `python3 -m wheel unpack` + edit + `python3 -m wheel pack`, on the same wheel in the same run.
# Prints both times, the ratio (target >= 20x) and relforge's peak RSS (target < 64 MB).
set -euo pipefail
relforge=$(realpath "${RELFORGE:?the relforge binary to measure}")
python=/usr/bin/python3
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/relforge-repair-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

wheel=$("$python" "$here/repair_bench.py" "$tmp/in")
now() { date +%s%N; }

# relforge: version 1.0 -> 1.0+cpu, linux_x86_64 -> manylinux_2_28_x86_64, RECORD rebuilt.
t0=$(now)
/usr/bin/time -f '%M' -o "$tmp/rss" "$relforge" wheel repair "$wheel" --plat manylinux_2_28_x86_64 \
  --local cpu --out "$tmp/relforge" >"$tmp/repair.out"
t1=$(now)
# The policy check really ran on the 16 ELF libraries (GLIBC_/GLIBCXX_/CXXABI_ versions, DT_NEEDED).
grep -q ' 16 ELF files checked' "$tmp/repair.out" || {
  echo "repair 1 GiB: relforge did not check the 16 ELF libraries: $(cat "$tmp/repair.out")" >&2
  exit 1
}
out="$tmp/relforge/demo-1.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl"
"$relforge" wheel verify "$out" >/dev/null  # the result is a correct wheel (not timed)

# The peer does the same job the way the shell scripts do: unpack (checks RECORD), edit, pack.
t2=$(now)
(
  cd "$tmp"
  "$python" -m wheel unpack --dest peer "$wheel" >/dev/null
  mv peer/demo-1.0 peer/demo-1.0+cpu
  mv peer/demo-1.0+cpu/demo-1.0.dist-info peer/demo-1.0+cpu/demo-1.0+cpu.dist-info
  sed -i 's/^Version: 1.0$/Version: 1.0+cpu/' peer/demo-1.0+cpu/demo-1.0+cpu.dist-info/METADATA
  sed -i 's/^Tag: cp311-cp311-linux_x86_64$/Tag: cp311-cp311-manylinux_2_28_x86_64/' \
    peer/demo-1.0+cpu/demo-1.0+cpu.dist-info/WHEEL
  mkdir -p packed
  "$python" -m wheel pack --dest-dir packed peer/demo-1.0+cpu >/dev/null
)
t3=$(now)
[ -f "$tmp/packed/demo-1.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl" ] || {
  echo "repair 1 GiB: the peer produced no wheel" >&2
  exit 1
}

"$python" - "$t0" "$t1" "$t2" "$t3" "$(cat "$tmp/rss")" <<'PY'
import sys
t0, t1, t2, t3, rss_kb = (int(x) for x in sys.argv[1:])
ours, peer = (t1 - t0) / 1e9, (t3 - t2) / 1e9
ratio = peer / ours
mb = rss_kb / 1024
print(f"repair 1 GiB: relforge {ours:.2f} s, wheel unpack+pack {peer:.1f} s -> {ratio:.1f}x (target >= 20x) "
      f"{'PASS' if ratio >= 20 else 'FAIL'}")
print(f"repair 1 GiB: relforge peak RSS {mb:.1f} MB (target < 64 MB) {'PASS' if mb < 64 else 'FAIL'}")
PY
