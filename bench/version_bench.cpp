// PEP 440 throughput: Google Benchmark micro-benchmarks, then relforge against Debian's
// python3-packaging (bench/peer_versions.py) parsing and comparing the very same versions.
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "bench/report.hpp"
#include "packaging/specifier.hpp"
#include "packaging/version.hpp"

namespace bench = relforge::bench;

namespace {

using relforge::packaging::parse_version;
using relforge::packaging::Version;

// Versions as a wheel index holds them: releases, nightlies, candidates, local variants, and a
// share of unusual spellings. Fixed seed: every run measures the same input.
std::vector<std::string> make_versions(std::size_t count) {
  static constexpr std::array<const char*, 8> k_locals = {"",       "",       "",         "+cpu",
                                                          "+cu126", "+cu130", "+rocm7.2", "+xpu"};
  static constexpr std::array<const char*, 6> k_odd = {"v", "V", "", "", "", ""};
  std::uint64_t state = 42;
  const auto next = [&state](std::uint64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (state >> 33) % n;
  };
  std::vector<std::string> out;
  out.reserve(count);
  while (out.size() < count) {
    std::string v = std::string(k_odd[next(k_odd.size())]) + std::to_string(next(3)) + "." +
                    std::to_string(next(12)) + "." + std::to_string(next(4));
    switch (next(6)) {
      case 0:
        v += ".dev2025" + std::to_string(1000 + next(1231)).substr(1);
        break;
      case 1:
        v += "rc" + std::to_string(1 + next(3));
        break;
      case 2:
        v += next(2) ? "a1.dev" + std::to_string(next(9)) : "-RC1";
        break;
      case 3:
        v += ".post" + std::to_string(next(3));
        break;
      default:
        break;
    }
    out.push_back(v + k_locals[next(k_locals.size())]);
  }
  return out;
}

const std::vector<std::string>& inputs() {
  static const std::vector<std::string> versions = make_versions(20000);
  return versions;
}

struct Pass {
  double seconds;
  std::size_t increasing;
};

// The loop both sides time: parse each version and compare it with the previous one.
Pass relforge_pass(const std::vector<std::string>& lines) {
  const auto start = std::chrono::steady_clock::now();
  std::size_t increasing = 0;
  Version prev = *parse_version(lines.front());
  for (const auto& text : lines) {
    auto version = parse_version(text);
    if (prev < *version) ++increasing;
    prev = std::move(*version);
  }
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  return {elapsed.count(), increasing};
}

void BM_ParseVersion(benchmark::State& state) {
  const auto& lines = inputs();
  std::size_t i = 0;
  for (auto _ : state) {
    auto version = parse_version(lines[i++ % lines.size()]);
    benchmark::DoNotOptimize(version);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_ParseVersion)->MinTime(0.3);

void BM_CompareVersions(benchmark::State& state) {
  std::vector<Version> versions;
  for (const auto& text : inputs()) versions.push_back(*parse_version(text));
  std::size_t i = 0;
  for (auto _ : state) {
    const bool less = versions[i % versions.size()] < versions[(i + 1) % versions.size()];
    benchmark::DoNotOptimize(less);
    ++i;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_CompareVersions)->MinTime(0.3);

void BM_SpecifierSetContains(benchmark::State& state) {
  const auto set = *relforge::packaging::parse_specifier_set(">=2.6, <2.8, !=2.6.1, ~=2.2");
  std::vector<Version> versions;
  for (const auto& text : inputs()) versions.push_back(*parse_version(text));
  std::size_t i = 0;
  for (auto _ : state) {
    const bool match = set.contains(versions[i++ % versions.size()]);
    benchmark::DoNotOptimize(match);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_SpecifierSetContains)->MinTime(0.3);

std::string with_commas(double value) {
  std::string digits = std::to_string(static_cast<std::uint64_t>(value + 0.5));
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3)
    digits.insert(static_cast<std::size_t>(i), ",");
  return digits;
}

std::filesystem::path peer_script() {
  const auto next_to_source = std::filesystem::path(__FILE__).parent_path() / "peer_versions.py";
  if (std::filesystem::exists(next_to_source)) return next_to_source;
  return "bench/peer_versions.py";  // `make bench` runs from the repository root
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::string(argv[1]) == "--write-versions") {  // input for version_sort_bench.sh
    std::ofstream out(argv[2]);
    for (const auto& line : make_versions(std::stoul(argv[3]))) out << line << '\n';
    return out ? 0 : 1;
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();

  const auto& lines = inputs();
  double best = 1e300, spent = 0;
  std::size_t passes = 0, increasing = 0;
  while (spent < 1.0 || passes < 3) {
    const Pass pass = relforge_pass(lines);
    best = std::min(best, pass.seconds);
    spent += pass.seconds;
    increasing = pass.increasing;
    ++passes;
  }
  const double ours = static_cast<double>(lines.size()) / best;

  const auto file =
      std::filesystem::temp_directory_path() / ("relforge-version-bench-" + std::to_string(::getpid()));
  {
    std::ofstream out(file);
    for (const auto& line : lines) out << line << '\n';
  }
  const std::string command =
      "/usr/bin/python3 '" + peer_script().string() + "' '" + file.string() + "' 2>&1";
  std::string answer;
  if (FILE* pipe = ::popen(command.c_str(), "r")) {
    char buffer[512];
    while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) answer += buffer;
    if (::pclose(pipe) != 0) answer = "failed: " + answer;
  }
  std::filesystem::remove(file);

  double theirs = 0;
  std::size_t their_increasing = 0;
  if (std::sscanf(answer.c_str(), "rate %lf increasing %zu", &theirs, &their_increasing) != 2 ||
      theirs <= 0) {
    std::cout << "PEP 440 parse+compare: relforge " << with_commas(ours)
              << " versions/s; packaging peer did not run (" << command << "): " << answer << '\n';
    return 1;
  }
  if (their_increasing != increasing) {
    std::cout << "PEP 440 parse+compare: relforge and packaging disagree on the input (" << increasing
              << " vs " << their_increasing << " increasing neighbours)\n";
    return 1;
  }
  const double count = static_cast<double>(lines.size());
  bench::record(
      {{"name", "PEP 440 parse+compare, in-process"},
       {"input", with_commas(count) + " index-like versions, parse each and compare with the previous, "
                                      "best pass of >= 1 s"},
       {"ours", bench::side("relforge (packaging/version)", count / ours, -1)},
       {"peer", bench::side("python3 packaging (Debian), same loop", count / theirs, -1)},
       {"target", {{"op", "report"}, {"text", "reported"}}}});
  return 0;
}
