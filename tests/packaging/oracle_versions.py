#!/usr/bin/python3
"""The PEP 440 oracle for version_oracle_test.cpp: packaging 26.3 (on PYTHONPATH) answers every query.

Usage: PYTHONPATH=<shared>/oracles/packaging-26.3 /usr/bin/python3 oracle_versions.py FILE

Every string in FILE and in the answer is written as 'x' + the hex of its UTF-8 bytes, so any
whitespace survives. Queries, one a line:
  V <version>                  -> V <i> ok <str(Version)> | V <i> invalid
  P <specifiers> <version>     -> P <j> <set> <ver> <c(None)> <c(True)> <c(False)> <c(str)>
  F <specifiers> <v1>,<v2>,... -> F <k> <set> <f(None)> <f(True)> <f(False)> <f(str)> <f(str, False)>
After the V answers come "R <i> <rank>" lines: each valid version's dense rank in sorted order.
<set> is "ok <str(SpecifierSet)>" or "invalid -"; <ver> is ok/invalid; c(...) is contains() of the
Version with that prereleases argument, c(str) contains() of the string as written; f(...) likewise
filter(), of Versions or of the strings. Results are 1/0, index lists ("-" when empty), or E where
packaging raised.
"""
import sys

import packaging
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

if not hasattr(packaging, "ranges"):
    try:
        import packaging.ranges  # noqa: F401  (only 26.x has it)
    except ImportError:
        raise SystemExit("oracle_versions.py: PYTHONPATH must name packaging 26.3, got " + packaging.__file__)


def decode(field):
    assert field.startswith("x"), field
    return bytes.fromhex(field[1:]).decode("utf-8")


def encode(text):
    return "x" + text.encode("utf-8").hex()


def parse_version(text):
    try:
        return Version(text)
    except (InvalidVersion, ValueError):  # ValueError: more digits than int() takes
        return None


def parse_set(text):
    try:
        spec = SpecifierSet(text)
    except InvalidSpecifier:
        return None, "invalid -"
    return spec, "ok " + encode(str(spec))


def attempt(function):
    try:
        return function()
    except Exception:  # noqa: BLE001 - e.g. an assertion on a ~= the regex let through
        return "E"


def indices(spec, items, prereleases):
    # filter()'s key (26.1+) keeps equal strings apart, which identity could not.
    chosen = spec.filter(range(len(items)), prereleases=prereleases, key=lambda i: items[i])
    return ",".join(str(i) for i in chosen) or "-"


def flag(value):
    return "1" if value else "0"


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
            version = parse_version(decode(fields[0]))
            if version is None:
                out.append(f"V {index} invalid")
                continue
            valid.append((index, version))
            out.append(f"V {index} ok {encode(str(version))}")
        elif kind == "P":
            spec, spec_answer = parse_set(decode(fields[0]))
            text = decode(fields[1])
            version = parse_version(text)
            if version is None:
                out.append(f"P {index} {spec_answer} invalid - - - -")
                continue
            if spec is None:
                out.append(f"P {index} {spec_answer} ok - - - -")
                continue
            answers = [attempt(lambda p=p: flag(spec.contains(version, prereleases=p))) for p in (None, True, False)]
            answers.append(attempt(lambda: flag(spec.contains(text))))
            out.append(f"P {index} {spec_answer} ok {' '.join(answers)}")
        elif kind == "F":
            spec, spec_answer = parse_set(decode(fields[0]))
            texts = [decode(f) for f in fields[1].split(",")]
            versions = [Version(t) for t in texts]
            if spec is None:
                out.append(f"F {index} {spec_answer} - - - - -")
                continue
            answers = [attempt(lambda p=p: indices(spec, versions, p)) for p in (None, True, False)]
            answers.append(attempt(lambda: indices(spec, texts, None)))
            answers.append(attempt(lambda: indices(spec, texts, False)))
            out.append(f"F {index} {spec_answer} {' '.join(answers)}")
        else:
            raise SystemExit(f"oracle_versions.py: unknown query kind {kind!r}")
    ranks = {v: r for r, v in enumerate(sorted(set(v for _, v in valid)))}
    for index, version in valid:
        out.append(f"R {index} {ranks[version]}")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
