"""Writes the repair bench's input: demo-1.0-cp311-cp311-linux_x86_64.whl, 1 GiB uncompressed.

16 real ELF shared libraries (a small C++ library built here with c++, needing GLIBC_, GLIBCXX_ and
CXXABI_ versions) of about 64 MiB each: objcopy adds a 64 MiB `.payload` section, so the section
headers sit at the end as in big CUDA libraries. The payload bytes carry 4 bits of entropy each
(about half compressible, like native code), deflated at level 1 to keep generation quick;
RECORD is correct.
"""
import base64
import hashlib
import os
import subprocess
import sys
import zipfile

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
path = os.path.join(out, "demo-1.0-cp311-cp311-linux_x86_64.whl")
source = os.path.join(out, "part.cpp")
with open(source, "w") as f:
    f.write('#include <iostream>\n#include <stdexcept>\n'
            'void hello() { std::cout << "hi" << std::endl; }\n'
            'void boom() { throw std::runtime_error("x"); }\n')
base = os.path.join(out, "libbase.so")
subprocess.run(["c++", "-O2", "-shared", "-fPIC", "-o", base, source], check=True)
table = bytes((65 + (i & 0x0F)) for i in range(256))
files = {
    "demo/__init__.py": b"X = 1\n",
    "demo-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n",
    "demo-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: bench\nRoot-Is-Purelib: false\n"
    b"Tag: cp311-cp311-linux_x86_64\n",
}


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def library(i):
    payload = os.path.join(out, "payload.bin")
    with open(payload, "wb") as f:
        f.write(os.urandom(64 << 20).translate(table))
    lib = os.path.join(out, f"libpart{i:02d}.so")
    subprocess.run(["objcopy", f"--add-section=.payload={payload}", base, lib], check=True)
    with open(lib, "rb") as f:
        data = f.read()
    os.remove(lib)
    return data


lines = []
with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
    for name, data in files.items():
        archive.writestr(name, data)
        lines.append(record_line(name, data))
    for i in range(16):
        name = f"demo/lib/libpart{i:02d}.so"
        data = library(i)
        archive.writestr(name, data)
        lines.append(record_line(name, data))
    lines.append("demo-1.0.dist-info/RECORD,,")
    archive.writestr("demo-1.0.dist-info/RECORD", "\n".join(lines) + "\n")
for leftover in ("payload.bin", "libbase.so", "part.cpp"):
    os.remove(os.path.join(out, leftover))
print(path)
