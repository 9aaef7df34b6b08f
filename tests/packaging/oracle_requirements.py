#!/usr/bin/python3
"""PEP 508 oracle for requirement_oracle_test.cpp: packaging 26.3 (on PYTHONPATH) answers.

Usage: PYTHONPATH=<shared>/oracles/packaging-26.3 /usr/bin/python3 oracle_requirements.py FILE

Lines of FILE: "E <key>=<hex>,..." defines the next environment (values hex-encoded UTF-8);
"R <hex>" is a requirement, "M <hex>" a marker. Answers, one per R/M line:
  ok <hex str()> <e1><e2>...   (one character per environment: 1, 0, E for an error, - when
                               there is no marker)   or   invalid
"""
import sys

import packaging
from packaging.markers import InvalidMarker, Marker
from packaging.requirements import InvalidRequirement, Requirement

if packaging.__version__ != "26.3":
    sys.exit("oracle: expected packaging 26.3 on PYTHONPATH, found %s" % packaging.__version__)


def decode(field):
    return bytes.fromhex(field).decode("utf-8")


def encode(text):
    return text.encode("utf-8").hex() or "-"


def evaluations(marker, environments):
    if marker is None:
        return "-" * len(environments) or "-"
    out = ""
    for env in environments:
        try:
            out += "1" if marker.evaluate(env) else "0"
        except Exception:  # noqa: BLE001 - UndefinedComparison, UndefinedEnvironmentName
            out += "E"
    return out or "-"


def main():
    environments = []
    with open(sys.argv[1], encoding="ascii") as handle:
        lines = handle.read().splitlines()
    out = []
    for line in lines:
        kind, _, data = line.partition(" ")
        if kind == "E":
            env = {}
            for item in data.split(","):
                key, _, value = item.partition("=")
                env[key] = decode(value)
            environments.append(env)
            continue
        text = decode(data)
        try:
            if kind == "R":
                parsed = Requirement(text)
                marker = parsed.marker
            else:
                parsed = marker = Marker(text)
        except (InvalidRequirement, InvalidMarker):
            out.append("invalid")
            continue
        out.append("ok %s %s" % (encode(str(parsed)), evaluations(marker, environments)))
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
