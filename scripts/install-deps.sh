#!/usr/bin/env bash
# Installs every Debian package that relforge's build, tests and demo need.
# Idempotent: packages already present are skipped; `apt-get update` runs at most once.
set -euo pipefail

packages=(
  # toolchain
  build-essential cmake ninja-build pkg-config git clang-format clang-tidy-14 ccache strace
  # fuzzing (tests/fuzz: libFuzzer targets built with clang)
  clang libfuzzer-14-dev
  # real Windows DLLs and macOS dylibs for the wheel verify tests (mingw-w64; clang + ld64.lld)
  mingw-w64 lld
  # libraries (cmake/Dependencies.cmake)
  libcli11-dev nlohmann-json3-dev libtomlplusplus-dev libexpected-dev
  libcurl4-openssl-dev libsqlite3-dev libssl-dev libgit2-dev libzip-dev libelf-dev
  libcpp-httplib-dev libre2-dev liburing-dev libgtest-dev libgmock-dev libbenchmark-dev
  # oracles and real clients the tests drive
  python3 python3-packaging python3-wheel python3-pip python3-venv python3-yaml
  twine python3-build python3-dev sqlite3 openssl curl ripgrep chromium wrk
  # shellcheck: the run steps of the generated workflows (tests/e2e/lint_workflow.cjs)
  shellcheck
  # the shells whose `relforge completion` scripts tests/e2e/cli_conventions_test.cpp loads
  zsh fish
  # bench/startup_bench.sh (make dist's static libraries build with the toolchain above)
  hyperfine
  # bench/repair_bench.sh: the verification floor it reports against
  unzip
)

# Hyperscan (triage's multi-pattern prefilter) exists for x86-64 only.
if [ "$(uname -m)" = x86_64 ]; then packages+=(libhyperscan-dev); fi

# Node.js drives sigstore-js in the tests; the machine image may ship its own build with npm.
if ! command -v npm >/dev/null 2>&1; then packages+=(nodejs npm); fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
