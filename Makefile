# The front door: `make demo` and `make test` work on a fresh machine.
PRESET ?= ci
BUILD_DIR := build/$(PRESET)
RELEASE_BIN := build/release/relforge
DIST_DIR := build/dist
# ccache (when installed) keys on paths relative to the checkout, so every clone on a machine shares hits.
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1
# libFuzzer time per target: `make fuzz` (FUZZ_SECONDS) and the short run inside `make test`.
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 15

.PHONY: all deps build test oracle-check ctest-costs gpu-smoke demo bench bench-table format format-check clean fuzz fuzz-build tsan dist tidy
SOURCE_DIRS := core platform packaging matrix builders signing channels release ci_relay triage runner_images cli tests bench

all: build

deps:
	@bash scripts/install-deps.sh
	@if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then npm ci --no-audit --no-fund --loglevel=error; fi

build: deps
	cmake --preset $(PRESET)
	cmake --build --preset $(PRESET)

# On a GPU runner: build minitensor's CUDA cell and run its kernel on the GPU (scripts/gpu-smoke.sh).
gpu-smoke: build
	@RELFORGE=$${RELFORGE:-$(CURDIR)/$(BUILD_DIR)/relforge} bash scripts/gpu-smoke.sh

# packaging 26.3, the oracle of the differential tests (tests/packaging/oracle_python.hpp): said up
# front when it is missing, since its tests fail only after the build and ~1,400 other tests.
PACKAGING_ORACLE := $(or $(RELFORGE_PACKAGING_ORACLE),$(CURDIR)/tests/oracles/packaging-26.3)
oracle-check:
	@test -f "$(PACKAGING_ORACLE)/packaging/version.py" || echo "make test: packaging 26.3 is missing at \
	$(PACKAGING_ORACLE): its 8 oracle tests will fail; restore tests/oracles/ from git, or set \
	RELFORGE_PACKAGING_ORACLE to the folder that holds packaging/version.py" >&2

# ctest replays the fuzz corpora and regressions; then the threaded tests run under TSan, and every
# fuzz target runs briefly under ASan+UBSan.
# A first run has no CTestCostData.txt: tests/ctest-costs.txt (seconds of the slow tests) makes ctest
# start the longest first instead of leaving one for the end; later runs use their own measurements.
test: oracle-check build
	@test -f $(BUILD_DIR)/Testing/Temporary/CTestCostData.txt || \
	  { mkdir -p $(BUILD_DIR)/Testing/Temporary && cp tests/ctest-costs.txt $(BUILD_DIR)/Testing/Temporary/CTestCostData.txt; }
	ctest --preset $(PRESET)
	$(MAKE) tsan
	$(MAKE) fuzz FUZZ_SECONDS=$(FUZZ_SMOKE_SECONDS)

# tests/ctest-costs.txt from this build's own ctest measurements (the tests over 1.5 s, longest
# first): run after a `make test` when slow tests were added or renamed.
ctest-costs:
	@test -f $(BUILD_DIR)/Testing/Temporary/CTestCostData.txt || { echo "ctest-costs: no measurements in $(BUILD_DIR): run make test first" >&2; exit 1; }
	awk '$$1 == "---" { exit } $$3 > 1.5 { printf "%s 1 %.1f\n", $$1, $$3 }' \
	  $(BUILD_DIR)/Testing/Temporary/CTestCostData.txt | sort -k3 -rn >tests/ctest-costs.txt.tmp
	echo --- >>tests/ctest-costs.txt.tmp && mv tests/ctest-costs.txt.tmp tests/ctest-costs.txt

# The relay, executor and platform tests (the threaded code: the HTTP server's gate and request
# threads among it) under ThreadSanitizer, built by clang with
# -Werror=thread-safety so every GUARDED_BY/REQUIRES is checked; any race report fails the run.
# Left out (the tsan test preset's filter): the e2e tests, which need the whole relforge binary
# built under TSan (the relay's threads run in-process in the Service/GroupCommit/LiveLogFetch
# tests instead), and the *Slow executor tests, which build and smoke-test real wheels in fresh
# venvs (minutes under TSan; their threading is what the fast executor tests run), and the
# allocator tests (TSan replaces the heap they inspect).
# The tsan test preset sets TSAN_OPTIONS: halt on the first report, and tests/tsan.supp for the
# reports that cannot be races (each with its reason: glibc and cpp-httplib, both uninstrumented).
tsan: deps
	cmake --preset tsan
	cmake --build --preset tsan
	ctest --preset tsan

fuzz-build: deps
	cmake --preset fuzz
	cmake --build --preset fuzz

fuzz: fuzz-build
	bash tests/fuzz/run.sh build/fuzz $(FUZZ_SECONDS)

release: deps
	cmake --preset release
	cmake --build --preset release

# The demo ends by pip installing relforge itself (the dist wheel) from the channel it publishes.
demo: release dist
	@bash scripts/demo.sh $(RELEASE_BIN) $(DIST_DIR)

# The self-contained binary and its wheel into build/dist/, then the binary alone in an empty chroot.
# Static libcurl, libzip and cpp-httplib are built once from Debian's sources into build/dist-deps/.
dist: deps
	@bash scripts/dist.sh

bench: release dist
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

# clang-tidy (.clang-tidy: bugprone-* and a few performance-*) over TIDY_DIRS, using the
# compile_commands.json of the ci preset configured file by file (its unity units name no source);
# not part of `make test`. Findings are printed, not fatal.
TIDY_DIRS ?= core platform channels signing matrix triage runner_images
tidy:
	@test -f build/tidy/compile_commands.json || cmake --preset ci -B build/tidy -DRELFORGE_UNITY=OFF
	find $(TIDY_DIRS) -name '*.cpp' | xargs -P2 -n8 clang-tidy-14 -p build/tidy --quiet --extra-arg=-Wno-unknown-warning-option

clean:
	rm -rf build
