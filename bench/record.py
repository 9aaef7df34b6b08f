#!/usr/bin/python3
"""The one place a bench figure becomes a line and a record.

Every bench (shell or C++) hands this script one JSON object on stdin:

  {"name": "sha256 1 GiB",                       # short, stable: the README row and the JSON key
   "input": "1 GiB of random bytes, page cache", # what was measured, so others can repeat it
   "ours": {"label": "relforge wheel hash", "wall_s": 1.2, "cpu_s": 1.1, "rss_mb": 9.5},
   "peer": {"label": "openssl dgst -sha256", "wall_s": 1.1, "cpu_s": 1.0},
   "figure": {"value": 7512, "unit": "deliveries/s"},   # when the target is on a figure, not a ratio
   "target": {"on": "speedup_wall", "op": ">=", "value": 0.95, "text": ">= 95 % of openssl"},
   "notes": "anything else worth a line"}

`ours`, `peer` and `figure` are each optional, but a target needs what it is on. The speedups are
always peer time / relforge time (above 1: relforge is faster), by wall clock and by CPU time.
The script prints one line (name, figures, both ratios, target, PASS/FAIL, load average) and, when
$BENCH_RESULTS names a file, appends the completed record to it as one JSON line. It exits 1 on a
malformed record, never on a FAIL: a failed target is a result to report, not a broken bench.
"""
import json
import os
import sys

OPS = {">=": lambda a, b: a >= b, "<=": lambda a, b: a <= b, "<": lambda a, b: a < b, ">": lambda a, b: a > b}


def load_average():
    try:
        with open("/proc/loadavg", encoding="ascii") as handle:
            return [float(x) for x in handle.read().split()[:3]]
    except OSError:
        return None


def seconds(value):
    return f"{value * 1000:.1f} ms" if value < 1 else f"{value:.2f} s"


def side(measure):
    text = f"{measure['label']} {seconds(measure['wall_s'])}"
    if measure.get("cpu_s") is not None:
        text += f" wall / {seconds(measure['cpu_s'])} CPU"
    if measure.get("rss_mb") is not None:
        text += f", peak RSS {measure['rss_mb']:.1f} MB"
    return text


def complete(record):
    for key in ("name", "input", "target"):
        if key not in record:
            raise ValueError(f"the record has no '{key}'")
    ours, peer = record.get("ours"), record.get("peer")
    if ours and peer:
        if ours["wall_s"] > 0:
            record["speedup_wall"] = peer["wall_s"] / ours["wall_s"]
        if ours.get("cpu_s") and peer.get("cpu_s"):
            record["speedup_cpu"] = peer["cpu_s"] / ours["cpu_s"]
    target = record["target"]
    on = target.get("on", "speedup_wall")
    if on == "figure":
        measured = record.get("figure", {}).get("value")
    elif on == "ours_wall_ms":
        measured = ours["wall_s"] * 1000 if ours else None
    elif on == "ours_rss_mb":
        measured = ours.get("rss_mb") if ours else None
    else:
        measured = record.get(on)
    if target.get("op") == "report":
        record["pass"] = True
    elif measured is None:
        raise ValueError(f"the target is on '{on}', which the record does not have")
    else:
        record["pass"] = bool(OPS[target["op"]](measured, target["value"]))
    record["judged"] = measured
    record["load"] = load_average()
    return record


def line(record):
    parts = []
    if record.get("figure"):
        figure = record["figure"]
        parts.append(f"{figure['value']:,.0f} {figure['unit']}" if figure["value"] >= 100
                     else f"{figure['value']:.2f} {figure['unit']}")
    if record.get("ours"):
        parts.append(side(record["ours"]))
    if record.get("peer"):
        parts.append(side(record["peer"]))
    text = f"{record['name']}: " + "; ".join(parts)
    if "speedup_wall" in record:
        text += f" -> {record['speedup_wall']:.2f}x wall"
        if "speedup_cpu" in record:
            text += f", {record['speedup_cpu']:.2f}x CPU"
    target = record["target"]
    verdict = "PASS" if record["pass"] else "FAIL"
    if target.get("op") == "report":
        verdict = "reported"
    load = record["load"][0] if record["load"] else "?"
    text += f" (target {target.get('text', '')}) {verdict} [load {load}]"
    if record.get("notes"):
        text += f"\n  {record['notes']}"
    return text


def main():
    try:
        record = complete(json.load(sys.stdin))
    except (ValueError, KeyError, TypeError, json.JSONDecodeError) as error:
        print(f"bench/record.py: not a bench record: {error}", file=sys.stderr)
        return 1
    print(line(record), flush=True)
    results = os.environ.get("BENCH_RESULTS")
    if results:
        with open(results, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
