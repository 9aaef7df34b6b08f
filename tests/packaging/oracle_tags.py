#!/usr/bin/python3
"""Oracle for tests/packaging/supported_tags_oracle_test.cpp: packaging 26.3's tag generators.

Usage: PYTHONPATH=<shared>/oracles/packaging-26.3 /usr/bin/python3 oracle_tags.py FILE

Each line of FILE is "PYTHON PLATFORM" (3.13 or 3.13t; a platform tag). The answer line is the
comma-joined tags that sys_tags() would yield for CPython of that version on a machine of that
platform: cpython_tags(version, [abi], platforms) then compatible_tags(version, cpXY, platforms),
where platforms come from mac_platforms(), or from _linux_platforms() with the machine's glibc or
musl set to the tag's version (every glibc up to it compatible, as without a _manylinux module),
or are the tag alone (Windows and the rest, as _generic_platforms()).
"""
import sys
import sysconfig

import packaging
from packaging import _manylinux, _musllinux, tags

if packaging.__version__ != "26.3":
    sys.exit("oracle: expected packaging 26.3 on PYTHONPATH, found %s" % packaging.__version__)


def linux(arch, glibc, musl):
    _manylinux._have_compatible_abi = lambda executable, archs: True
    _manylinux._get_manylinux_module = lambda: None
    _manylinux._get_glibc_version = lambda: _manylinux._GLibCVersion(*(glibc or (-1, -1)))
    _musllinux._get_musl_version = lambda executable: _musllinux._MuslVersion(*musl) if musl else None
    sysconfig.get_platform = lambda: "linux-" + arch
    return list(tags._linux_platforms(is_32bit=False))


def platforms_for(platform):
    for legacy, glibc in (("manylinux2014_", (2, 17)), ("manylinux2010_", (2, 12)), ("manylinux1_", (2, 5))):
        if platform.startswith(legacy):
            return linux(platform[len(legacy):], glibc, None)
    kind, _, rest = platform.partition("_")
    if kind in ("manylinux", "musllinux", "macosx"):
        major, minor, arch = rest.split("_", 2)
        version = (int(major), int(minor))
        if kind == "macosx":
            return list(tags.mac_platforms(version, arch))
        if kind == "manylinux":
            return linux(arch, version, None)
        return linux(arch, None, version)
    return [platform]


def answer(python, platform):
    threaded = python.endswith("t")
    major, minor = (int(x) for x in python.rstrip("t").split("."))
    interpreter = "cp%d%d" % (major, minor)
    platforms = platforms_for(platform)
    found = list(tags.cpython_tags((major, minor), [interpreter + ("t" if threaded else "")], platforms))
    found += list(tags.compatible_tags((major, minor), interpreter, platforms))
    return ",".join(str(t) for t in found)


def main():
    with open(sys.argv[1], encoding="ascii") as handle:
        for line in handle.read().splitlines():
            python, platform = line.split(" ")
            print(answer(python, platform))


if __name__ == "__main__":
    main()
