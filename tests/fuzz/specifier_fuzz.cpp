// PEP 440 specifiers: the input's first line is a specifier set, the rest a version. Parsing fails
// cleanly or gives a set whose printed form parses to the same set (same text, same answers);
// every member reprints to an equal specifier; pre-release gating only ever narrows contains();
// filter() returns in-range indices in input order.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "packaging/specifier.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

namespace pk = relforge::packaging;

void check_set(const pk::SpecifierSet& set, const pk::Version* version) {
  const std::string printed = set.to_string();
  auto again = pk::parse_specifier_set(printed);
  FUZZ_CHECK(again.has_value(), "the printed set parses");
  FUZZ_CHECK(again->to_string() == printed, "the printed set is a fixed point");
  FUZZ_CHECK(again->size() <= set.size(), "printing drops only repeated specifiers");
  FUZZ_CHECK(again->mentions_prerelease() == set.mentions_prerelease(), "reparsing keeps prereleases");
  for (const auto& spec : set.specifiers()) {
    auto one = pk::parse_specifier(spec.to_string());
    FUZZ_CHECK(one.has_value(), "a member's printed form parses");
    FUZZ_CHECK(one->canonical_key() == spec.canonical_key(), "a member reprints to an equal specifier");
    FUZZ_CHECK(one->op() == spec.op(), "a member keeps its operator");
    if (version == nullptr) continue;
    FUZZ_CHECK(one->contains(*version) == spec.contains(*version), "a reprinted member answers alike");
    FUZZ_CHECK(!spec.contains(*version) || spec.contains(*version, pk::PreReleases::allow),
               "allowing pre-releases never excludes more");
    FUZZ_CHECK(!spec.contains(*version, pk::PreReleases::allow) || spec.matches(*version),
               "contains implies the operator matches");
  }
  if (version == nullptr) return;
  for (const auto mode : {pk::PreReleases::by_specifier, pk::PreReleases::allow}) {
    FUZZ_CHECK(again->contains(*version, mode) == set.contains(*version, mode),
               "the reparsed set answers alike");
  }
  FUZZ_CHECK(!set.contains(*version) || set.contains(*version, pk::PreReleases::allow),
             "allowing pre-releases never excludes more");
  const std::vector<pk::Version> versions = {*version, *version};
  for (const auto mode : {pk::PreReleases::by_specifier, pk::PreReleases::allow}) {
    const auto kept = set.filter(versions, mode);
    for (std::size_t i = 0; i < kept.size(); ++i) {
      FUZZ_CHECK(kept[i] < versions.size(), "filter indices are in range");
      FUZZ_CHECK(i == 0 || kept[i - 1] < kept[i], "filter keeps input order");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::size_t cut = text.find('\n');
  const std::string_view spec_text = text.substr(0, cut);
  auto version =
      cut == std::string_view::npos ? pk::parse_version("1.0") : pk::parse_version(text.substr(cut + 1));

  if (auto one = pk::parse_specifier(spec_text)) {
    auto again = pk::parse_specifier(one->to_string());
    FUZZ_CHECK(again.has_value(), "a specifier's printed form parses");
    FUZZ_CHECK(again->canonical_key() == one->canonical_key(), "a specifier reprints to an equal one");
    FUZZ_CHECK(again->to_string() == one->to_string(), "the printed specifier is a fixed point");
  }
  if (auto set = pk::parse_specifier_set(spec_text)) check_set(*set, version ? &*version : nullptr);
  return 0;
}
