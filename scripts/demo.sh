#!/usr/bin/env bash
# The main job on the bundled examples: the build matrix, as a table.
set -euo pipefail
bin=${1:-build/release/relforge}
echo "== minitensor nightly matrix (examples/minitensor/relforge.toml)"
"$bin" matrix expand --config examples/minitensor/relforge.toml --channel nightly
