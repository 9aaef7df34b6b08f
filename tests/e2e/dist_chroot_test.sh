#!/usr/bin/env bash
# The self-contained binary of `make dist`, copied alone into an empty directory used as a chroot:
# --version, matrix expand, keys generate + sign, wheel verify, the manylinux_2_28 policy check
# of the relforge wheel, and publish (signed) to a folder, all with no library, loader, /etc, /proc
# or /dev in sight. The root holds one empty folder besides the binary: /tmp, since relforge
# resolves the temporary folder when its commands are registered (std::filesystem::
# temp_directory_path throws, and the process aborts, when neither $TMPDIR nor /tmp exists). Run by `make dist` (and by
# ctest as dist.chroot when configured with -DRELFORGE_DIST_BINARY=...).
#
# usage: dist_chroot_test.sh BINARY [WHEEL]
# Fails (never skips) when chroot is not permitted: the point of the test is the empty root.
set -euo pipefail
bin=${1:?usage: dist_chroot_test.sh BINARY [WHEEL]}
wheel=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
fixtures=$here/../fixtures
scripts=$here/../../scripts

fail() {
  echo "dist.chroot: FAIL: $*" >&2
  exit 1
}
[ -x "$bin" ] || fail "$bin is not an executable file (run make dist)"

root=$(mktemp -d "${TMPDIR:-/tmp}/relforge-chroot.XXXXXX")
trap 'rm -rf "$root"' EXIT
cp "$bin" "$root/relforge"
mkdir -m 1777 "$root/tmp"

# chroot needs CAP_SYS_CHROOT: root, or an unprivileged user namespace mapped to root.
chroot_cmd=()
if [ "$(id -u)" -eq 0 ]; then
  chroot_cmd=(chroot "$root")
elif unshare --map-root-user true >/dev/null 2>&1; then
  chroot_cmd=(unshare --map-root-user --root="$root")
else
  fail "chroot is not permitted here (needs root for chroot(8), or unprivileged user namespaces for" \
    "unshare --map-root-user --root); this test does not skip"
fi
in_root() { "${chroot_cmd[@]}" "$@"; }

# Nothing but the binary is in the root, and the binary asks the kernel for no loader or library.
[ "$(ls -A "$root" | tr '\n' ' ')" = "relforge tmp " ] && [ -z "$(ls -A "$root/tmp")" ] ||
  fail "the chroot holds more than the binary and an empty /tmp: $(ls -AR "$root")"
if readelf -lW "$root/relforge" | grep -q 'INTERP'; then fail "the binary has a PT_INTERP (not static)"; fi
if readelf -dW "$root/relforge" | grep -q 'NEEDED'; then fail "the binary has DT_NEEDED entries"; fi

step() { echo "dist.chroot: $*"; }

# The entry point (cli/static_pie_entry.cpp) maps the writable segment in one madvise before the
# start code relocates it page by page: the first system call, over the segment's every page.
step "start-up: the writable segment is mapped in one call, before anything else"
writable_bytes=$(readelf -lW "$bin" | python3 -c '
import sys
for line in sys.stdin:
    f = line.split()
    if f[:1] == ["LOAD"] and "W" in f[6]:
        v, m = int(f[2], 16), int(f[5], 16)
        print(((v + m + 4095) // 4096 - v // 4096) * 4096)')
command -v strace >/dev/null || fail "strace is not installed (scripts/install-deps.sh installs it)"
first=$(strace "$bin" --version 2>&1 >/dev/null | sed -n 2p)
[[ $first =~ ^madvise\(0x[0-9a-f]+,\ $writable_bytes,\ MADV_POPULATE_WRITE\)\ =\ (0|-1\ EINVAL) ]] ||
  fail "the first system call is '$first', not madvise(..., $writable_bytes, MADV_POPULATE_WRITE)" \
    "(is the entry point relforge_static_pie_entry?)"
# A kernel older than 5.14 refuses the advice; the start then faults the pages in one by one.
[[ $first == *"= 0" ]] || echo "dist.chroot: this kernel refuses MADV_POPULATE_WRITE (Linux < 5.14): $first"

step "--version"
out=$(in_root /relforge --version 2>&1) ||
  fail "the binary does not run alone in an empty root (exit $?): $out (is it static? file: $(file -b "$bin"))"
[[ $out == "relforge "[0-9]* ]] || fail "--version printed '$out'"

step "matrix expand"
cp "$fixtures/matrix/good.toml" "$root/relforge.toml"
ids=$(in_root /relforge matrix expand --config /relforge.toml --format ids) || fail "matrix expand exited $?"
[ "$(grep -c . <<<"$ids")" -ge 5 ] && grep -qx 'linux-py3.12-cpu' <<<"$ids" ||
  fail "matrix expand printed an unexpected cell list: $ids"
in_root /relforge matrix expand --config /missing.toml --format ids >/dev/null 2>&1 &&
  fail "matrix expand of a missing file succeeded"

step "wheel verify, the manylinux_2_28 policy check"
made=$(python3 "$fixtures/channels/make_wheel.py" "$root" tinypkg 1.0.0) || fail "make_wheel.py failed"
small=/$(basename "$made")
in_root /relforge wheel verify "$small" >/dev/null || fail "wheel verify $small exited $?"
if [ -n "$wheel" ]; then
  # The relforge wheel itself: RECORD holds, and `wheel repair --plat manylinux_2_28_x86_64` (the
  # policy check: every ELF file's DT_NEEDED and symbol versions) passes, having read one ELF file.
  cp "$wheel" "$root/"
  inner=/$(basename "$wheel")
  in_root /relforge wheel verify "$inner" >/dev/null || fail "wheel verify $inner exited $?"
  report=$(in_root /relforge wheel repair --json --plat manylinux_2_28_x86_64 --out /repaired "$inner") ||
    fail "the manylinux_2_28 policy check refused $inner: $report"
  grep -q '"elf_files": 1' <<<"$report" || fail "the policy check did not read the binary: $report"
  rm -rf "$root$inner" "$root/repaired"
fi
# The same check refuses a dynamically linked program (the host's openssl, which links libssl, not
# a manylinux library): the pass above comes from the static binary, not a check that passes all.
control_bin=$(command -v openssl) || fail "openssl is not installed (the policy check's control)"
control=$(python3 "$scripts/dist-wheel.py" "$control_bin" 0.0.1 "$root/control")
if in_root /relforge wheel repair --plat manylinux_2_28_x86_64 --out /repaired "/control/$(basename "$control")" \
  >/dev/null 2>"$root/control.err"; then
  fail "the manylinux_2_28 policy check accepted a wheel holding a dynamically linked $control_bin"
fi
grep -q 'links libssl' "$root/control.err" ||
  fail "the policy check refused $control_bin for another reason: $(cat "$root/control.err")"
rm -rf "$root/control" "$root/control.err" "$root/repaired"
# A wheel with one byte changed must be refused (the check runs, it does not just print OK).
python3 - "$root$small" "$root/tampered.whl" <<'EOF'
import sys, zipfile
src, dst = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(src) as a, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as b:
    for info in a.infolist():
        data = a.read(info)
        if not info.filename.endswith("RECORD") and data:
            data = bytes([data[0] ^ 1]) + data[1:]
        b.writestr(info, data)
EOF
in_root /relforge wheel verify /tampered.whl >/dev/null 2>&1 && fail "wheel verify accepted a tampered wheel"
rm -f "$root/tampered.whl"

step "keys generate, sign, publish to a folder, verify"
in_root /relforge keys generate --out /keys >/dev/null || fail "keys generate exited $?"
in_root /relforge sign --key /keys/signing.key "$small" >/dev/null || fail "sign exited $?"
in_root /relforge publish --channel test --variant cpu --root /channel --key /keys/signing.pub "$small" >/dev/null ||
  fail "publish exited $?"
in_root /relforge verify --key /keys/signing.pub "$small" >/dev/null || fail "verify exited $?"
project=$(find "$root/channel" -name index.html -path '*/whl/test/*/*' | head -n1)
[ -n "$project" ] || fail "publish wrote no project page under $root/channel/whl/test"
grep -q "$(basename "$small")" "$project" || fail "the project page does not list $(basename "$small")"

echo "dist.chroot: OK ($(stat -c %s "$bin") bytes, alone in an empty root)"
