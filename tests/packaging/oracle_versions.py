#!/usr/bin/python3
"""The PEP 440 oracle for version_oracle_test.cpp: Debian's python3-packaging answers every query.

Usage: /usr/bin/python3 oracle_versions.py FILE

Every string in FILE and in the answer is written as 'x' + the hex of its UTF-8 bytes, so any
whitespace survives. Queries, one a line:
  V <version>                       -> V <i> ok <str(Version)> | V <i> invalid
  P <specifiers> <version>          -> P <j> <set> <ver> <contains> <contains(prereleases=True)>
  F <specifiers> <v1>,<v2>,...      -> F <k> <set> <filter()> <filter(prereleases=True)>
After the V answers come "R <i> <rank>" lines: each valid version's dense rank in sorted order.
<set> is "ok <str(SpecifierSet)>" or "invalid -"; <ver> is ok/invalid; results are 1/0, index
lists ("-" when empty), or E where packaging raised.
"""
import sys

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version


def decode(field):
    assert field.startswith("x"), field
    return bytes.fromhex(field[1:]).decode("utf-8")


def encode(text):
    return "x" + text.encode("utf-8").hex()


def parse_set(text):
    try:
        spec = SpecifierSet(text)
    except InvalidSpecifier:
        return None, "invalid -"
    return spec, "ok " + encode(str(spec))


def attempt(function):
    try:
        return function()
    except InvalidVersion:  # packaging 23.0: Specifier.prereleases on ===<not a version>
        return "E"


def indices(spec, versions, prereleases):
    ids = {id(v): i for i, v in enumerate(versions)}
    chosen = [ids[id(v)] for v in spec.filter(versions, prereleases=prereleases)]
    return ",".join(str(i) for i in chosen) or "-"


def main():
    out = []
    valid = []
    counts = {"V": 0, "P": 0, "F": 0}
    with open(sys.argv[1], encoding="ascii") as handle:
        lines = handle.read().splitlines()
    for line in lines:
        kind, *fields = line.split(" ")
        index = counts[kind]
        counts[kind] += 1
        if kind == "V":
            try:
                version = Version(decode(fields[0]))
            except InvalidVersion:
                out.append(f"V {index} invalid")
                continue
            valid.append((index, version))
            out.append(f"V {index} ok {encode(str(version))}")
        elif kind == "P":
            spec, spec_answer = parse_set(decode(fields[0]))
            try:
                version = Version(decode(fields[1]))
            except InvalidVersion:
                out.append(f"P {index} {spec_answer} invalid - -")
                continue
            if spec is None:
                out.append(f"P {index} {spec_answer} ok - -")
                continue
            default = attempt(lambda: "1" if spec.contains(version) else "0")
            pre = attempt(lambda: "1" if spec.contains(version, prereleases=True) else "0")
            out.append(f"P {index} {spec_answer} ok {default} {pre}")
        elif kind == "F":
            spec, spec_answer = parse_set(decode(fields[0]))
            versions = [Version(decode(f)) for f in fields[1].split(",")]
            if spec is None:
                out.append(f"F {index} {spec_answer} - -")
                continue
            default = attempt(lambda: indices(spec, versions, None))
            pre = attempt(lambda: indices(spec, versions, True))
            out.append(f"F {index} {spec_answer} {default} {pre}")
        else:
            raise SystemExit(f"oracle_versions.py: unknown query kind {kind!r}")
    ranks = {v: r for r, v in enumerate(sorted(set(v for _, v in valid)))}
    for index, version in valid:
        out.append(f"R {index} {ranks[version]}")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
