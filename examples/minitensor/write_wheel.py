"""Writes an unrepaired wheel from a staged package folder, with only the standard library.

usage: write_wheel.py STAGE VERSION OUTDIR  ->  OUTDIR/minitensor-VERSION-cpXY-cpXY-linux_x86_64.whl
"""
import base64
import hashlib
import os
import sys
import sysconfig
import time
import zipfile


def record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def main(stage, version, outdir):
    py = f"cp{sys.version_info.major}{sys.version_info.minor}"
    abi = py + ("t" if sysconfig.get_config_var("Py_GIL_DISABLED") else "")
    tag = f"{py}-{abi}-linux_x86_64"
    dist_info = f"minitensor-{version}.dist-info"
    files = {}
    for root, _, names in os.walk(stage):
        for name in sorted(names):
            full = os.path.join(root, name)
            with open(full, "rb") as handle:
                files[os.path.relpath(full, stage).replace(os.sep, "/")] = handle.read()
    files[f"{dist_info}/METADATA"] = (
        "Metadata-Version: 2.1\nName: minitensor\n"
        f"Version: {version}\nSummary: A small float32 tensor runtime\n"
        "License: BSD-3-Clause\nRequires-Python: >=3.10\n"
        "Description-Content-Type: text/markdown\n\n"
        "# minitensor\n\nA small float32 tensor runtime: a C++ core, a CPython extension and an\n"
        "optional CUDA build, built and released with relforge.\n"
    ).encode()
    files[f"{dist_info}/WHEEL"] = (
        f"Wheel-Version: 1.0\nGenerator: minitensor-recipe\nRoot-Is-Purelib: false\nTag: {tag}\n"
    ).encode()
    record = [record_line(path, data) for path, data in sorted(files.items())]
    record.append(f"{dist_info}/RECORD,,")
    files[f"{dist_info}/RECORD"] = ("\n".join(record) + "\n").encode()
    # SOURCE_DATE_EPOCH (the commit's time, from relforge) rather than the clock: reproducible.
    epoch = max(int(os.environ.get("SOURCE_DATE_EPOCH", "315532800")), 315532800)
    stamp = time.gmtime(epoch)[:6]
    target = os.path.join(outdir, f"minitensor-{version}-{tag}.whl")
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as wheel:
        for path, data in files.items():
            info = zipfile.ZipInfo(path, stamp)
            info.external_attr = (0o755 if path.endswith(".so") else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(info, data)
    print(f"wrote {target}")


if __name__ == "__main__":
    main(*sys.argv[1:4])
