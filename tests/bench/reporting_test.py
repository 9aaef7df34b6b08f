#!/usr/bin/python3
"""bench/record.py judges targets as documented, writes records, refuses malformed ones; collect.py
and table.py turn a run into bench-results.json and the README block without touching the rest."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

BENCH = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../bench")


def run(script, *args, stdin="", env=None):
    return subprocess.run([sys.executable, os.path.join(BENCH, script), *args], input=stdin, text=True,
                          capture_output=True, env={**os.environ, **(env or {})})


class Record(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.results = os.path.join(self.dir.name, "r.jsonl")

    def tearDown(self):
        self.dir.cleanup()

    def record(self, rec):
        out = run("record.py", stdin=json.dumps(rec), env={"BENCH_RESULTS": self.results})
        self.assertEqual(out.returncode, 0, out.stderr)
        with open(self.results, encoding="utf-8") as handle:
            return out.stdout, json.loads(handle.readlines()[-1])

    def test_speedups_are_peer_over_ours_and_judged_on_the_named_ratio(self):
        line, rec = self.record({
            "name": "sha", "input": "1 GiB",
            "ours": {"label": "relforge", "wall_s": 2.0, "cpu_s": 1.0},
            "peer": {"label": "openssl", "wall_s": 1.0, "cpu_s": 1.0},
            "target": {"on": "speedup_wall", "op": ">=", "value": 0.95, "text": ">= 95 %"}})
        self.assertAlmostEqual(rec["speedup_wall"], 0.5)
        self.assertAlmostEqual(rec["speedup_cpu"], 1.0)
        self.assertFalse(rec["pass"])
        self.assertIn("0.50x wall, 1.00x CPU", line)
        self.assertIn("FAIL", line)
        self.assertIn("[load ", line)
        _, rec = self.record({**rec, "target": {"on": "speedup_cpu", "op": ">=", "value": 0.95}})
        self.assertTrue(rec["pass"])

    def test_figure_and_time_targets(self):
        _, rec = self.record({"name": "ingest", "input": "x", "figure": {"value": 7400, "unit": "/s"},
                              "target": {"on": "figure", "op": ">=", "value": 7500}})
        self.assertFalse(rec["pass"])
        _, rec = self.record({"name": "start", "input": "x", "ours": {"label": "r", "wall_s": 0.004},
                              "target": {"on": "ours_wall_ms", "op": "<", "value": 5}})
        self.assertTrue(rec["pass"])
        line, rec = self.record({"name": "serve", "input": "x", "target": {"op": "report", "text": "reported"}})
        self.assertIn("reported", line)

    def test_malformed_records_are_refused_and_not_written(self):
        for bad in ("not json", json.dumps({"name": "x"}),
                    json.dumps({"name": "x", "input": "y", "target": {"on": "speedup_wall", "op": ">=", "value": 1}})):
            out = run("record.py", stdin=bad, env={"BENCH_RESULTS": self.results})
            self.assertEqual(out.returncode, 1)
            self.assertIn("not a bench record", out.stderr)
        self.assertFalse(os.path.exists(self.results))

    def test_collect_and_table(self):
        self.record({"name": "a", "input": "in", "ours": {"label": "r", "wall_s": 1.0, "cpu_s": 1.0},
                     "peer": {"label": "p", "wall_s": 3.0, "cpu_s": 3.0},
                     "target": {"on": "speedup_wall", "op": ">=", "value": 2, "text": ">= 2x"}})
        self.record({"name": "b", "input": "in", "figure": {"value": 1, "unit": "ms"},
                     "target": {"on": "figure", "op": "<", "value": 0.5, "text": "< 0.5 ms"}})
        out_json = os.path.join(self.dir.name, "bench-results.json")
        out = run("collect.py", self.results, out_json, "--started", "2026-11-30T00:00:00Z",
                  "--load-before", "0.5 0.4 0.3")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("1 of 2 targets met", out.stdout)
        with open(out_json, encoding="utf-8") as handle:
            results = json.load(handle)
        self.assertEqual(results["summary"], {"records": 2, "judged": 2, "pass": 1, "fail": 1})
        self.assertGreater(results["machine"]["cores"], 0)
        readme = os.path.join(self.dir.name, "README.md")
        with open(readme, "w", encoding="utf-8") as handle:
            handle.write("# x\nbefore\n<!-- bench-table:begin -->\nold row\n<!-- bench-table:end -->\nafter\n")
        saved = os.path.join(self.dir.name, "results")
        out = run("table.py", out_json, readme, "--save", saved)
        self.assertEqual(out.returncode, 0, out.stderr)
        with open(readme, encoding="utf-8") as handle:
            text = handle.read()
        self.assertNotIn("old row", text)
        self.assertTrue(text.startswith("# x\nbefore\n") and text.endswith("after\n"))
        self.assertIn("| a | in | r: 1.00 s (1.00 s CPU) | p: 3.00 s (3.00 s CPU) | 3.00× wall, 3.00× CPU | >= 2x | PASS |",
                      text)
        self.assertIn("| b | in | 1.00 ms |  |  | < 0.5 ms | **FAIL** |", text)
        # The kernel names the machine: two hosts with the same CPU model can differ several-fold.
        self.assertIn(f"GiB, Linux {results['machine']['kernel']})", text)
        self.assertEqual(len(os.listdir(saved)), 1)
        self.assertTrue(os.listdir(saved)[0].startswith("2026-11-30T"), os.listdir(saved))
        # Named by the start time and commit too: a second run on the same day is a second file.
        commit = (results.get("commit") or "unknown")[:7]
        self.assertTrue(os.listdir(saved)[0].endswith(f"-{commit}.json"), os.listdir(saved))

    def test_table_refuses_a_readme_without_the_block(self):
        out_json = os.path.join(self.dir.name, "r.json")
        with open(out_json, "w", encoding="utf-8") as handle:
            json.dump({"records": []}, handle)
        readme = os.path.join(self.dir.name, "README.md")
        with open(readme, "w", encoding="utf-8") as handle:
            handle.write("no block\n")
        out = run("table.py", out_json, readme)
        self.assertEqual(out.returncode, 1)
        self.assertIn("no <!-- bench-table:begin -->", out.stderr)


if __name__ == "__main__":
    unittest.main()
