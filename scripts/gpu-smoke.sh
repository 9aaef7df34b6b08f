#!/usr/bin/env bash
# The CUDA smoke test of a GPU runner: builds minitensor's CUDA cell for this host's Python with
# `relforge build` (recipe, repair, manylinux check, smoke test in a fresh venv), then proves the
# kernel runs on the GPU here and agrees with the CPU bit for bit, also once the wheel is signed,
# published, served by `relforge serve` and pip-installed from it. `make gpu-smoke` runs it.
#   RELFORGE  the relforge binary (default: build/release/relforge, else build/dist/relforge)
#   PYTHON    the interpreter to build for (default: python3 on PATH; it needs its headers)
#   STATE     where the build's ledger, logs and wheels go (default: a new temporary folder)
# Exit codes: 0 every check passed; 1 a check failed (the reason is printed); 2 this host cannot
# run it (no NVIDIA GPU, no nvcc, no Python headers): run it on a GPU runner.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/serve-lib.sh
source "$here/scripts/serve-lib.sh"
config=$here/examples/minitensor/relforge.toml
relforge=${RELFORGE:-}
if [ -z "$relforge" ]; then
  for candidate in "$here/build/release/relforge" "$here/build/dist/relforge"; do
    [ -x "$candidate" ] && { relforge=$candidate; break; }
  done
fi
python=${PYTHON:-$(command -v python3 || true)}
failures=0

cannot() { echo "gpu-smoke: cannot run here: $*" >&2; exit 2; }
pass() { printf '  PASS  %s\n' "$*"; }
fail() { printf '  FAIL  %s\n' "$*"; failures=$((failures + 1)); }

[ -x "$relforge" ] || cannot "no relforge binary: run \`make build\` (or \`make dist\`), or set RELFORGE"
[ -n "$python" ] && [ -x "$python" ] || cannot "no python3: set PYTHON to the interpreter to build for"
command -v nvidia-smi >/dev/null && gpu=$(nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total \
  --format=csv,noheader 2>/dev/null | head -1) && [ -n "$gpu" ] ||
  cannot "no NVIDIA GPU answers nvidia-smi: run this on a GPU runner"
nvcc=$(command -v nvcc || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")
[ -x "$nvcc" ] || cannot "no nvcc on PATH or in \$CUDA_HOME/bin: install the CUDA toolkit"
cuda=$("$nvcc" --version | sed -n 's/.*release \([0-9]*\.[0-9]*\).*/\1/p')
py=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
"$python" -c 'import os, sys, sysconfig; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' ||
  cannot "$python $py has no development headers (Python.h): install python$py-dev"
case "$cuda" in
  12.6) accel=cu126 ;;
  13.0) accel=cu130 ;;
  *) cannot "nvcc $cuda: minitensor's matrix builds with CUDA 12.6 (cu126) or 13.0 (cu130)" ;;
esac
cell=$py-$accel
state=${STATE:-$(mktemp -d "${TMPDIR:-/tmp}/relforge-gpu-smoke.XXXXXX")}
mkdir -p "$state" || { echo "gpu-smoke: cannot create $state" >&2; exit 2; }
capability=$(cut -d, -f3 <<<"$gpu" | tr -d ' ')
echo "gpu-smoke: $gpu; nvcc $cuda; python $py ($python); cell $cell; state $state"
echo "           $("$relforge" --version 2>&1 | head -1) ($relforge)"

# relforge finds interpreters in /usr/bin and on PATH (docs/building.md, "Runners").
PATH=$(dirname "$python"):$(dirname "$nvcc"):$PATH
export PATH
detected=$("$relforge" runners detect --json) || { fail "relforge runners detect"; exit 1; }
read -r gpus built_with < <("$python" -c '
import json, sys
runner = json.loads(sys.argv[1])["runners"][0]
paths = [p["path"] for p in runner["pythons"] if p["version"] == sys.argv[2]]
print(runner["gpus"], paths[0] if paths else "-")' "$detected" "$py")
if [ "${gpus:-0}" -ge 1 ]; then pass "runners detect: $gpus GPU(s), python $py at $built_with"; else fail "runners detect counts no GPU (/dev/nvidia*)"; fi

start=$(date +%s)
if "$relforge" build --config "$config" --cell "$cell" --state-dir "$state" >"$state/build.out" 2>&1; then
  pass "relforge build --cell $cell: built, repaired, smoke-tested in $(($(date +%s) - start)) s"
else
  fail "relforge build --cell $cell (exit $?); its output:"
  sed 's/^/        /' "$state/build.out"
  tail -n 40 "$state/logs/$cell.log" 2>/dev/null | sed 's/^/        log: /'
  echo "gpu-smoke: $failures check(s) failed"
  exit 1
fi
wheel=$(ls "$state"/wheels/minitensor-*+"$accel"-*.whl 2>/dev/null | head -1)
venv_python=$state/work/$cell/venv/bin/python
[ -n "$wheel" ] && [ -x "$venv_python" ] || { fail "no wheel or smoke venv under $state"; exit 1; }
if "$relforge" wheel verify "$wheel" >/dev/null; then pass "wheel verify $(basename "$wheel")"; else fail "wheel verify $wheel"; fi

# The kernel on this GPU, against the CPU: 2^22 floats, every element compared exactly.
gpu_add_check() {  # gpu_add_check PYTHON WHAT
  if "$1" - 2>&1 <<'PY'; then pass "add on the GPU equals the CPU bit for bit (2^22 floats, $2)"; else fail "add on the GPU ($2)"; fi
import random
import minitensor as m
from minitensor import _C
assert m.cuda_is_available(), "cuda_is_available() is False on a GPU host"
assert _C.cuda_device_count() >= 1
n = 1 << 22
rng = random.Random(20261204)
a = m.tensor([rng.uniform(-1e6, 1e6) for _ in range(n)], (n,))
b = m.tensor([rng.uniform(-1e3, 1e3) for _ in range(n)], (n,))
gpu, cpu = m.add(a, b, device="cuda").tolist(), m.add(a, b, device="cpu").tolist()
bad = sum(x != y for x, y in zip(gpu, cpu))
assert bad == 0, f"{bad} of {n} elements differ"
print(f"        minitensor {m.__version__} from {m.__file__}: {n} elements, sum {sum(gpu):.6g}")
PY
}
gpu_add_check "$venv_python" "the smoke venv"

# With the GPU hidden the wheel must say so, not compute quietly on the CPU under device='cuda'.
if CUDA_VISIBLE_DEVICES="" "$venv_python" - 2>&1 <<'PY'; then pass "GPU hidden: cuda_is_available() False, device='cuda' raises"; else fail "GPU hidden"; fi
import minitensor as m
assert not m.cuda_is_available()
a = m.full((1 << 16,), 1.0)
try:
    m.add(a, a, device="cuda")
except RuntimeError as error:
    assert "CUDA_VISIBLE_DEVICES" in str(error), error
    print(f"        {error}")
else:
    raise AssertionError("device='cuda' ran without a visible GPU")
PY

# Native code for this GPU: a cubin for its compute capability, not PTX compiled by the driver.
extension=$("$venv_python" -c 'import minitensor._C as c; print(c.__file__)')
cuobjdump=$(dirname "$nvcc")/cuobjdump
if [ -x "$cuobjdump" ]; then
  cubins=$("$cuobjdump" --list-elf "$extension" | sed -n 's/.*\.\(sm_[0-9a-z]*\)\.cubin$/\1/p' | sort -u | tr '\n' ' ')
  ptx=$("$cuobjdump" --list-ptx "$extension" | sed -n 's/.*\.\(sm_[0-9a-z]*\)\.ptx$/\1/p' | sort -u | tr '\n' ' ')
  if grep -qw "sm_${capability//./}" <<<"$cubins"; then
    pass "cubin for this GPU (sm_${capability//./}); cubins: ${cubins% }; PTX: ${ptx% }"
  else
    fail "no cubin for sm_${capability//./} in $extension (cubins: ${cubins% })"
  fi
else
  echo "  SKIP  cubin check: no cuobjdump beside nvcc"
fi

"$relforge" wheel inspect "$wheel" | sed 's/^/        /'

# The release path on this host: signed, published to a nightly channel, served over HTTP by
# `relforge serve`, pip-installed from there into a fresh venv, and the kernel run from that copy.
serve_pid=
trap '[ -z "$serve_pid" ] || kill "$serve_pid" 2>/dev/null' EXIT
channel=$state/channel
rm -rf "$state/keys" "$channel" "$state/venv-pip"  # a STATE used before: a new key, channel and venv
if "$relforge" keys generate --out "$state/keys" >/dev/null &&
  "$relforge" sign --key "$state/keys/signing.key" --channel nightly --cell "$cell" "$wheel" >/dev/null &&
  "$relforge" publish --channel nightly --root "$channel" --key "$state/keys/signing.pub" "$wheel" >/dev/null &&
  "$relforge" verify "$channel/whl/nightly/$accel/minitensor/$(basename "$wheel")" --key "$state/keys/signing.pub" >/dev/null; then
  pass "signed, published to $channel/whl/nightly/$accel, signature verified"
  start_serve "$relforge" "$channel" "$state/serve.log"
  index=http://127.0.0.1:${port:-0}/whl/nightly/$accel
  if [ -n "$port" ] && "$python" -m venv "$state/venv-pip" &&
    "$state/venv-pip/bin/python" -m pip install --quiet --pre --no-deps --no-cache-dir \
      --disable-pip-version-check --index-url "$index" minitensor 2>&1; then
    pass "pip install --pre --index-url $index minitensor"
    gpu_add_check "$state/venv-pip/bin/python" "installed from relforge serve"
  else
    fail "pip install from $index (relforge serve: $(tr '\n' ' ' <"$state/serve.log"))"
  fi
else
  fail "sign, publish or verify of $wheel"
fi

if [ "$failures" -eq 0 ]; then echo "gpu-smoke: every check passed ($cell on ${gpu%%,*})"; exit 0; fi
echo "gpu-smoke: $failures check(s) failed"
exit 1
