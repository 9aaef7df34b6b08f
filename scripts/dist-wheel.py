#!/usr/bin/env python3
"""Packs the static relforge binary into an unrepaired wheel for `make dist`.

relforge has no command that packs a folder into a wheel, so this writes the smallest valid one
(tag py3-none-linux_x86_64); `relforge wheel repair --plat manylinux_2_28_x86_64` then checks the
manylinux policy, retags it and rewrites RECORD, and `relforge wheel verify` checks every hash.

The binary goes to `relforge-X.Y.Z.data/scripts/relforge`: pip copies it into the environment's
bin/ as it is, so `relforge` there is the binary itself and starts as fast as the bare binary
(no Python wrapper to start first, as the cmake and ninja wheels need).

usage: dist-wheel.py BINARY VERSION OUT_DIR  -> prints the wheel's path
"""
import base64
import hashlib
import os
import sys
import zipfile

# Fixed timestamps and attributes: the same binary gives the same wheel bytes.
EPOCH = (2020, 1, 1, 0, 0, 0)


def record_hash(data: bytes) -> str:
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def main() -> int:
    if len(sys.argv) != 4:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    binary, version, out_dir = sys.argv[1:]
    with open(binary, "rb") as f:
        exe = f.read()
    if not exe.startswith(b"\x7fELF"):
        print(f"dist-wheel: {binary} is not an ELF file", file=sys.stderr)
        return 1
    name = "relforge"
    dist_info = f"{name}-{version}.dist-info"
    data = f"{name}-{version}.data"
    metadata = (
        "Metadata-Version: 2.1\n"
        f"Name: {name}\n"
        f"Version: {version}\n"
        "Summary: Release engineering for native tensor runtimes (a self-contained binary)\n"
        "License: Proprietary\n"
        "Requires-Python: >=3.7\n"
    ).encode()
    wheel = (
        "Wheel-Version: 1.0\n"
        "Generator: relforge scripts/dist-wheel.py\n"
        "Root-Is-Purelib: false\n"
        "Tag: py3-none-linux_x86_64\n"
    ).encode()
    entries = [
        (f"{data}/scripts/relforge", exe, 0o755),
        (f"{dist_info}/METADATA", metadata, 0o644),
        (f"{dist_info}/WHEEL", wheel, 0o644),
    ]
    record = "".join(f"{path},{record_hash(body)},{len(body)}\n" for path, body, _ in entries)
    record += f"{dist_info}/RECORD,,\n"
    entries.append((f"{dist_info}/RECORD", record.encode(), 0o644))

    os.makedirs(out_dir, exist_ok=True)
    target = os.path.join(out_dir, f"{name}-{version}-py3-none-linux_x86_64.whl")
    partial = target + ".part"
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for path, body, mode in entries:
            info = zipfile.ZipInfo(path, EPOCH)
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, body)
    os.replace(partial, target)
    print(target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
