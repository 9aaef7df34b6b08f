#!/usr/bin/env bash
# The main job on the bundled examples: the build matrix, as a table.
set -euo pipefail
bin=${1:-build/release/relforge}
echo "== minitensor: the nightly build matrix (examples/minitensor/relforge.toml)"
"$bin" matrix expand --config examples/minitensor/relforge.toml --channel nightly \
  --fields id,build_id,build_name,container_image,runner
echo
echo "== minitensor: the wheels nightly 0.1.0.dev20261130 will produce (CPython 3.12)"
"$bin" matrix names --config examples/minitensor/relforge.toml --version 0.1.0.dev20261130 --select 'cp312-*'
echo
echo "== PyTorch's published wheel matrix (examples/pytorch/relforge.toml), cells per OS and channel"
for channel in nightly test release; do
  printf '%-8s' "$channel"
  "$bin" matrix expand --config examples/pytorch/relforge.toml --channel "$channel" --fields os --format table \
    | sed '1d;$d' | sort | uniq -c | awk '{printf "  %s %s", $2, $1} END {print ""}'
done

echo
echo "== minitensor: build, repair and smoke-test the CPython 3.11 CPU wheel (state in .relforge/)"
"$bin" build --config examples/minitensor/relforge.toml --select 'cp311-*-cpu'

echo
echo "== CI relay: replay a recorded scenario and list the breakages it attributes"
relay_db=$(mktemp -d)/relay.db
"$bin" relay replay tests/fixtures/relay/scenario.jsonl --config tests/fixtures/relay/relay.toml --db "$relay_db"
"$bin" relay breakages --open --config tests/fixtures/relay/relay.toml --db "$relay_db"
