#!/usr/bin/python3
"""Writes a wheel PyPI would accept apart from its local label (a README long description, so that
`twine check --strict` passes), for the --pypi-staging tests.

usage: pypi_staging_wheel.py OUT_DIR NAME VERSION [TAG]   (TAG default cp312-cp312-manylinux_2_28_x86_64)
Prints the wheel's path.
"""
import base64
import hashlib
import os
import re
import sys
import zipfile


def record_line(path: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}\n"


def main() -> None:
    out_dir, name, version = sys.argv[1:4]
    tag = sys.argv[4] if len(sys.argv) > 4 else "cp312-cp312-manylinux_2_28_x86_64"
    wheel_name = re.sub(r"[-_.]+", "_", name).lower()
    dist_info = f"{wheel_name}-{version}.dist-info"
    metadata = (
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nSummary: a tensor runtime\n"
        "Requires-Python: >=3.10\nDescription-Content-Type: text/markdown\n\n"
        f"# {name}\n\nA small tensor runtime built for one accelerator.\n"
    )
    python, abi, platform = tag.split("-")
    wheel = f"Wheel-Version: 1.0\nGenerator: relforge-test\nRoot-Is-Purelib: false\nTag: {tag}\n"
    files = {
        f"{wheel_name}/__init__.py": b"from .version import VERSION\n",
        f"{wheel_name}/version.py": f"VERSION = {version!r}\n".encode(),
        f"{wheel_name}/_C.abi3.so": b"\0" * 64,
        f"{dist_info}/METADATA": metadata.encode(),
        f"{dist_info}/WHEEL": wheel.encode(),
    }
    record = "".join(record_line(path, data) for path, data in files.items()) + f"{dist_info}/RECORD,,\n"
    files[f"{dist_info}/RECORD"] = record.encode()
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"{wheel_name}-{version}-{python}-{abi}-{platform}.whl")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for entry, data in files.items():
            info = zipfile.ZipInfo(entry, date_time=(2025, 1, 2, 3, 4, 6))
            info.external_attr = 0o644 << 16
            archive.writestr(info, data, zipfile.ZIP_DEFLATED)
    print(path)


if __name__ == "__main__":
    main()
