#!/usr/bin/python3
"""Runs one command and prints "WALL_S CPU_S RSS_MB": wall clock from a monotonic clock, CPU as user +
system of the process and the children it waited for (wait4's rusage, in microseconds: GNU time
prints centiseconds, which is an eighth of a 80 ms run), peak RSS of the largest of them.

usage: measure.py OUT_FILE ERR_FILE COMMAND...   (stdout to OUT_FILE, stderr to ERR_FILE, stdin from
$BENCH_IN when set, else /dev/null; the exit status is the command's)
"""
import os
import sys
import time


def main() -> int:
    out, err, command = sys.argv[1], sys.argv[2], sys.argv[3:]
    with open(out, "wb") as stdout, open(err, "wb") as stderr:
        start = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            os.dup2(stdout.fileno(), 1)
            os.dup2(stderr.fileno(), 2)
            stdin = os.open(os.environ.get("BENCH_IN") or os.devnull, os.O_RDONLY)
            os.dup2(stdin, 0)
            try:
                os.execvp(command[0], command)
            finally:
                os._exit(127)
        _, status, usage = os.wait4(pid, 0)
        wall = time.perf_counter() - start
    print(f"{wall:.6f} {usage.ru_utime + usage.ru_stime:.6f} {usage.ru_maxrss / 1024:.1f}")
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main())
