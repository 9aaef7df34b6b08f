#!/usr/bin/python3
"""Turns one run's bench records (JSON lines from record.py) into BUILD/bench-results.json: the
records plus where and when they were measured (machine, commit, load average), and a summary."""
import argparse
import json
import os
import platform
import subprocess
import sys


def machine():
    model = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    memory_gib = None
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            memory_gib = round(int(handle.readline().split()[1]) / (1 << 20), 1)
    except (OSError, ValueError, IndexError):
        pass
    return {"cpu": model, "cores": os.cpu_count(), "memory_gib": memory_gib,
            "kernel": platform.release(), "system": platform.system()}


def commit():
    """HEAD, with -dirty when tracked files differ from it."""
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
        return out.stdout.strip() + ("-dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return None


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("records")
    parser.add_argument("out")
    parser.add_argument("--started")
    parser.add_argument("--load-before", default="")
    parser.add_argument("--failed", default="")
    parser.add_argument("--binary", default="")
    parser.add_argument("--commit", default="",
                        help="the checkout's commit when the run started (default: read now)")
    args = parser.parse_args()
    records = []
    with open(args.records, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if line.strip():
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError as error:
                    print(f"{args.records}:{number}: not a record: {error}", file=sys.stderr)
                    return 1
    with open("/proc/loadavg", encoding="ascii") as handle:
        load_after = [float(x) for x in handle.read().split()[:3]]
    judged = [r for r in records if r["target"].get("op") != "report"]
    result = {
        "started": args.started,
        "machine": machine(),
        "commit": args.commit or commit(),
        "binary": args.binary,
        "load_before": [float(x) for x in args.load_before.split()] if args.load_before else None,
        "load_after": load_after,
        "benches_that_failed_to_run": args.failed.split() if args.failed else [],
        "summary": {"records": len(records), "judged": len(judged),
                    "pass": sum(1 for r in judged if r["pass"]),
                    "fail": sum(1 for r in judged if not r["pass"])},
        "records": records,
    }
    tmp = args.out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump(result, handle, indent=1, sort_keys=True)
        handle.write("\n")
    os.replace(tmp, args.out)
    s = result["summary"]
    print(f"bench results: {s['pass']} of {s['judged']} targets met, {s['fail']} missed "
          f"({s['records'] - s['judged']} figures reported without a target) -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
