#!/usr/bin/python3
"""`make bench-table`: the README's benchmark table, generated from one run's bench-results.json.

Usage: bench/table.py RESULTS.json [README.md] [--save DIR]
Replaces the lines between `<!-- bench-table:begin -->` and `<!-- bench-table:end -->` in the
README with a table of every record of that run (figure, peer, both ratios, target, PASS/FAIL)
and a line naming the run (date, machine, commit, load). With --save, also copies the results to
DIR/<date>T<HHMM>-<cores>core-<cpu>-<commit>.json, the committed record of that run.
"""
import json
import os
import re
import shutil
import sys

BEGIN, END = "<!-- bench-table:begin -->", "<!-- bench-table:end -->"


def seconds(value):
    if value is None:
        return ""
    return f"{value * 1000:.1f} ms" if value < 1 else f"{value:.2f} s"


def measured(side):
    if not side:
        return ""
    text = f"{side['label']}: {seconds(side['wall_s'])}"
    if side.get("cpu_s") is not None:
        text += f" ({seconds(side['cpu_s'])} CPU)"
    if side.get("rss_mb") is not None:
        text += f", {side['rss_mb']:.0f} MB"
    return text.replace("|", "\\|")


def row(record):
    ours = measured(record.get("ours"))
    if record.get("figure"):
        figure = record["figure"]
        value = f"{figure['value']:,.0f}" if figure["value"] >= 100 else f"{figure['value']:.2f}"
        ours = f"{value} {figure['unit']}" + (f"; {ours}" if ours else "")
    ratios = ""
    if "speedup_wall" in record:
        ratios = f"{record['speedup_wall']:.2f}× wall"
        if "speedup_cpu" in record:
            ratios += f", {record['speedup_cpu']:.2f}× CPU"
    target = record["target"]
    verdict = "reported" if target.get("op") == "report" else ("PASS" if record["pass"] else "**FAIL**")
    load = f"{record['load'][0]:.1f}" if record.get("load") else ""
    cells = [record["name"], record["input"], ours, measured(record.get("peer")), ratios,
             target.get("text", ""), verdict, load]
    return "| " + " | ".join(c.replace("\n", " ") for c in cells) + " |"


def table(results):
    m = results["machine"]
    s = results["summary"]
    lines = [
        f"Run of {results['started']} on {m['cores']} cores ({m['cpu']}, {m['memory_gib']} GiB, "
        f"{m.get('system', 'Linux')} {m.get('kernel', 'kernel unknown')}), commit "
        f"`{(results.get('commit') or 'unknown')[:12]}`, load average {results.get('load_before')} before and "
        f"{results.get('load_after')} after: {s['pass']} of {s['judged']} targets met. "
        "Speedups are the peer's time over relforge's (above 1: relforge is faster).",
        "",
        "| bench | input | relforge | peer | speedup | target | result | load |",
        "|---|---|---|---|---|---|---|---|",
    ]
    lines += [row(r) for r in results["records"]]
    if results.get("benches_that_failed_to_run"):
        lines += ["", "Benches that did not run to the end: " + ", ".join(results["benches_that_failed_to_run"])]
    return "\n".join(lines)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--save")]
    save = None
    if "--save" in sys.argv:
        save = sys.argv[sys.argv.index("--save") + 1]
        args.remove(save)
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    with open(args[0], encoding="utf-8") as handle:
        results = json.load(handle)
    readme = args[1] if len(args) > 1 else "README.md"
    with open(readme, encoding="utf-8") as handle:
        text = handle.read()
    if BEGIN not in text or END not in text:
        print(f"{readme}: no {BEGIN} ... {END} block to fill", file=sys.stderr)
        return 1
    text = re.sub(re.escape(BEGIN) + ".*?" + re.escape(END), lambda _: BEGIN + "\n" + table(results) + "\n" + END,
                  text, flags=re.S)
    with open(readme + ".tmp", "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(readme + ".tmp", readme)
    print(f"{readme}: benchmark table from {args[0]} ({len(results['records'])} records)")
    if save:
        cpu = re.sub(r"[^A-Za-z0-9]+", "-", results["machine"]["cpu"]).strip("-").lower()[:40]
        # The start time and commit in the name: two runs on one day (of one commit or two) are two files.
        commit = (results.get("commit") or "unknown")[:7]
        started = results["started"][:16].replace(":", "")  # 2026-12-01T0920
        name = f"{started}-{results['machine']['cores']}core-{cpu}-{commit}.json"
        os.makedirs(save, exist_ok=True)
        shutil.copyfile(args[0], os.path.join(save, name))
        print(f"saved as {os.path.join(save, name)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
