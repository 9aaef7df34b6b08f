// A CI log as the relay receives it, any bytes: classified with the built-in rules through the raw
// prefilter (Hyperscan over the uncleaned lines, ANSI escapes stripped eight bytes at a time), fed
// in three pieces cut where the input says, it gives the answer of cleaning and matching every line.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string_view>

#include "tests/fuzz/fuzz_check.hpp"
#include "triage/classify.hpp"

namespace tr = relforge::triage;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::shared_ptr<const tr::CompiledRules> rules = [] {
    auto compiled = tr::default_rules();
    if (!compiled) std::abort();
    return *compiled;
  }();
  const std::string_view log(reinterpret_cast<const char*>(data), size);
  const auto every_line = tr::classify(log, rules, tr::ScanOptions{.raw_prefilter = false});
  // The first two bytes, when there are any, choose the cuts.
  const std::size_t first = size > 0 ? data[0] * size / 256 : 0;
  const std::size_t second = size > 1 ? first + data[1] * (size - first) / 256 : first;
  tr::LogScanner scanner(rules);
  scanner.feed(log.substr(0, first));
  scanner.feed(log.substr(first, second - first));
  scanner.feed(log.substr(second));
  FUZZ_CHECK(every_line == scanner.finish(), "the prefiltered answer is the answer of every line");
  return 0;
}
