#!/usr/bin/env bash
# `make dist`: the self-contained Linux x86_64 relforge into build/dist/:
#   relforge          static-pie (glibc, libstdc++ and every library linked in), stripped
#   relforge.debug    its symbol table (gdb and backtraces find it through .gnu_debuglink)
#   relforge-X.Y.Z-py3-none-manylinux_2_28_x86_64.whl   the binary as a wheel, checked by relforge
# then runs the binary alone in an empty chroot (tests/e2e/dist_chroot_test.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=build/dist
build=build/dist-build
jobs=${JOBS:-2}
export CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=1

bash scripts/build-static-deps.sh
cmake --preset dist >/dev/null
cmake --build --preset dist -- -j"$jobs"

mkdir -p "$out"
# Stripped copy + separate debug file; written under temporary names, renamed when whole.
objcopy --only-keep-debug "$build/relforge" "$out/relforge.debug.part"
objcopy --strip-all --add-gnu-debuglink="$out/relforge.debug.part" "$build/relforge" "$out/relforge.part"
mv "$out/relforge.debug.part" "$out/relforge.debug"
# The debuglink holds the file's base name and CRC: relink it under the final name (same CRC).
objcopy --remove-section=.gnu_debuglink "$out/relforge.part"
(cd "$out" && objcopy --add-gnu-debuglink=relforge.debug relforge.part)
chmod 0755 "$out/relforge.part"
mv "$out/relforge.part" "$out/relforge"

bin=$out/relforge
if readelf -dW "$bin" | grep -q NEEDED || readelf -lW "$bin" | grep -q INTERP; then
  echo "dist: $bin is not static:" >&2
  readelf -dW "$bin" >&2
  exit 1
fi
version=$("$bin" --version | awk '{print $2}')

# The wheel: written plain (linux_x86_64), then repaired by relforge itself, which checks every
# ELF file in it against the manylinux_2_28 policy before giving it that tag.
stage=$(mktemp -d "${TMPDIR:-/tmp}/relforge-dist.XXXXXX")
trap 'rm -rf "$stage"' EXIT
raw=$(python3 scripts/dist-wheel.py "$bin" "$version" "$stage")
rm -f "$out"/relforge-*.whl
"$bin" wheel repair "$raw" --plat manylinux_2_28_x86_64 --out "$out"
wheel=$out/relforge-$version-py3-none-manylinux_2_28_x86_64.whl
"$bin" wheel verify "$wheel"

bash tests/e2e/dist_chroot_test.sh "$bin" "$wheel"

echo
echo "dist: $(stat -c %s "$bin") bytes  $bin"
echo "dist: $(stat -c %s "$out/relforge.debug") bytes  $out/relforge.debug"
echo "dist: $(stat -c %s "$wheel") bytes  $wheel"
