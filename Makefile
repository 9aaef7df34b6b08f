# The front door: `make demo` and `make test` work on a fresh machine.
PRESET ?= ci
BUILD_DIR := build/$(PRESET)
RELEASE_BIN := build/release/relforge
# ccache (when installed) keys on paths relative to the checkout, so every clone on a machine shares hits.
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1
# libFuzzer time per target: `make fuzz` (FUZZ_SECONDS) and the short run inside `make test`.
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 15

.PHONY: all deps build test demo bench format format-check clean fuzz fuzz-build tidy
SOURCE_DIRS := core platform packaging matrix builders signing channels release ci_relay triage runner_images cli tests bench

all: build

deps:
	@bash scripts/install-deps.sh
	@if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then npm ci --no-audit --no-fund --loglevel=error; fi

build: deps
	cmake --preset $(PRESET)
	cmake --build --preset $(PRESET)

# ctest replays the fuzz corpora and regressions; then every fuzz target runs briefly under ASan+UBSan.
test: build
	ctest --preset $(PRESET)
	$(MAKE) fuzz FUZZ_SECONDS=$(FUZZ_SMOKE_SECONDS)

fuzz-build: deps
	cmake --preset fuzz
	cmake --build --preset fuzz

fuzz: fuzz-build
	bash tests/fuzz/run.sh build/fuzz $(FUZZ_SECONDS)

release: deps
	cmake --preset release
	cmake --build --preset release

demo: release
	@bash scripts/demo.sh $(RELEASE_BIN)

bench: release
	@bash bench/run.sh build/release

format:
	find $(SOURCE_DIRS) -name '*.cpp' -o -name '*.hpp' | xargs clang-format -i

# Fails on any file `make format` would change (CI runs it before the tests).
format-check:
	@find $(SOURCE_DIRS) -name '*.cpp' -o -name '*.hpp' | xargs clang-format --dry-run --Werror
	@echo "format-check: every source file is formatted"

# clang-tidy (.clang-tidy: bugprone-* and a few performance-*) over TIDY_DIRS, using the ci
# build's compile_commands.json; not part of `make test`. Findings are printed, not fatal.
TIDY_DIRS ?= core platform channels signing matrix triage runner_images
tidy:
	@test -f build/ci/compile_commands.json || cmake --preset ci
	find $(TIDY_DIRS) -name '*.cpp' | xargs -P2 -n8 clang-tidy-14 -p build/ci --quiet --extra-arg=-Wno-unknown-warning-option

clean:
	rm -rf build
