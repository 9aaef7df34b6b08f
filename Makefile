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

.PHONY: all deps build test demo bench bench-table format format-check clean fuzz fuzz-build
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
	@bash bench/run.sh build/release $(BENCH)

# The README's benchmark table and bench/results/<date>-<machine>.json, from the last `make bench`.
bench-table:
	@/usr/bin/python3 bench/table.py build/release/bench-results.json README.md --save bench/results

format:
	find $(SOURCE_DIRS) -name '*.cpp' -o -name '*.hpp' | xargs clang-format -i

# Fails on any file `make format` would change (CI runs it before the tests).
format-check:
	@find $(SOURCE_DIRS) -name '*.cpp' -o -name '*.hpp' | xargs clang-format --dry-run --Werror
	@echo "format-check: every source file is formatted"

clean:
	rm -rf build
