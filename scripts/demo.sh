#!/usr/bin/env bash
# The main job on the bundled examples: the build matrix, the CI relay, then `relforge nightly`
# (build, repair, smoke-test, sign, publish) and pip installing minitensor from `relforge serve`;
# last, relforge's own wheel (from `make dist`, in DIST_DIR) signed, published and pip installed.
set -euo pipefail
# shellcheck source=scripts/serve-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/serve-lib.sh"
bin=${1:-build/release/relforge}
dist=${2:-}
demo=$(mktemp -d "${TMPDIR:-/tmp}/relforge-demo.XXXXXX")
serve_pid=
cleanup() {
  if [ -n "$serve_pid" ]; then kill "$serve_pid" 2>/dev/null || true; fi
  rm -rf "$demo"
}
trap cleanup EXIT
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
echo "== CI relay: replay a recorded scenario and list the breakages it attributes"
relay_db=$demo/relay.db
"$bin" relay replay tests/fixtures/relay/scenario.jsonl --config tests/fixtures/relay/relay.toml --db "$relay_db"
"$bin" relay breakages --open --config tests/fixtures/relay/relay.toml --db "$relay_db"

# --- The main job: relforge nightly, then pip installs from the channel it published. ---------
root=$demo/channel

echo
echo "== signing key for the nightly (relforge keys generate)"
"$bin" keys generate --out "$demo/keys"

echo
echo "== relforge nightly: build, repair, smoke-test, sign and publish the CPython 3.11 cells"
echo "   (cells this machine has no runner for are listed as waiting; build state in .relforge/)"
"$bin" nightly --config examples/minitensor/relforge.toml --select 'cp311-*' \
  --root "$root" --key "$demo/keys/signing.key"

echo
echo "== verify the published CPU wheel's Sigstore bundle with the public key"
cpu_wheel=$(ls "$root"/whl/nightly/cpu/minitensor/*.whl)
"$bin" verify "$cpu_wheel" --key "$demo/keys/signing.pub"

echo
echo "== relforge serve: the channel over HTTP on loopback"
start_serve "$bin" "$root" "$demo/serve.log" ||
  { echo "relforge serve did not report its port:" >&2; cat "$demo/serve.log" >&2; exit 1; }
cat "$demo/serve.log"

for variant in cpu cu130; do
  if [ ! -d "$root/whl/nightly/$variant/minitensor" ]; then
    echo
    echo "== $variant: not built on this machine (no runner), nothing to install"
    continue
  fi
  index=http://127.0.0.1:$port/whl/nightly/$variant
  echo
  echo "== pip install --pre --no-deps --index-url $index minitensor  (fresh python3.11 venv)"
  /usr/bin/python3.11 -m venv "$demo/venv-$variant"
  "$demo/venv-$variant/bin/python" -m pip install --pre --no-deps --no-cache-dir --disable-pip-version-check \
    --index-url "$index" minitensor
  echo "== import minitensor ($variant):"
  "$demo/venv-$variant/bin/python" -c \
    'import minitensor; print(minitensor.__version__, minitensor.version.cuda, minitensor.cuda_is_available())'
done

# --- relforge ships itself: the dist wheel, signed, published and pip installed from the channel.
if [ -n "$dist" ]; then
  relforge_wheel=$(ls "$dist"/relforge-*-py3-none-manylinux_2_28_x86_64.whl)
  echo
  echo "== relforge's own wheel: $(basename "$relforge_wheel") (make dist), checked, signed, published"
  "$bin" wheel verify "$relforge_wheel"
  cp "$relforge_wheel" "$demo/"
  relforge_wheel=$demo/$(basename "$relforge_wheel")
  "$bin" sign --key "$demo/keys/signing.key" --channel nightly "$relforge_wheel"
  "$bin" publish --channel nightly --variant tools --root "$root" --key "$demo/keys/signing.pub" "$relforge_wheel"
  index=http://127.0.0.1:$port/whl/nightly/tools
  echo
  echo "== pip install --index-url $index relforge  (fresh venv), then relforge --version from it"
  /usr/bin/python3 -m venv "$demo/venv-relforge"
  "$demo/venv-relforge/bin/python" -m pip install --pre --no-deps --no-cache-dir --disable-pip-version-check \
    --index-url "$index" relforge
  "$demo/venv-relforge/bin/relforge" --version
  # The wheel carries the binary as a script: the venv's bin/relforge is the dist binary itself.
  cmp "$demo/venv-relforge/bin/relforge" "$dist/relforge" && echo "   (bin/relforge is build/dist/relforge, byte for byte)"
fi
