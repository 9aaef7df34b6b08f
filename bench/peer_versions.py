#!/usr/bin/python3
"""The peer for version_bench: Debian's python3-packaging parsing and comparing the same versions.

Usage: /usr/bin/python3 bench/peer_versions.py FILE [MIN_SECONDS]
Per version: Version(text), then one comparison with the previous one (prev < v), exactly the loop
version_bench.cpp times. Prints "rate <versions per second> increasing <count>": the best pass
rate, and how many neighbours were increasing (relforge must count the same).
"""
import sys
import time

from packaging.version import Version


def one_pass(lines):
    increasing = 0
    prev = Version(lines[0])
    for text in lines:
        version = Version(text)
        if prev < version:
            increasing += 1
        prev = version
    return increasing


def main():
    with open(sys.argv[1], encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    min_seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    best = float("inf")
    spent = 0.0
    passes = 0
    increasing = 0
    while spent < min_seconds or passes < 3:
        start = time.perf_counter()
        increasing = one_pass(lines)
        elapsed = time.perf_counter() - start
        best = min(best, elapsed)
        spent += elapsed
        passes += 1
    print(f"rate {len(lines) / best:.0f} increasing {increasing}")


if __name__ == "__main__":
    main()
