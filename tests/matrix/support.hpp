#pragma once
// Helpers for the matrix tests: expand TOML text, read fields and ids of the result.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "matrix/config.hpp"
#include "matrix/expand.hpp"

namespace relforge::matrix::test {

inline Result<Expansion> expand_text(const std::string& toml, const std::string& channel = "nightly") {
  auto spec = parse_spec(toml, "t.toml");
  if (!spec) return tl::unexpected(spec.error());
  return expand(*spec, channel);
}

inline std::vector<std::string> ids(const Expansion& expansion) {
  std::vector<std::string> out;
  for (const auto& cell : expansion.cells) out.emplace_back(cell.id());
  return out;
}

// The value of `field` in each cell ("<none>" where the cell lacks it).
inline std::vector<std::string> column(const Expansion& expansion, const std::string& field) {
  std::vector<std::string> out;
  for (const auto& cell : expansion.cells) {
    const auto value = cell.find(field);
    out.push_back(value ? std::string(*value) : "<none>");
  }
  return out;
}

// The error message of a config that must fail to load or expand.
inline std::string error_of(const std::string& toml, const std::string& channel = "nightly") {
  auto result = expand_text(toml, channel);
  EXPECT_FALSE(result.has_value()) << "expected an error for:\n" << toml;
  return result ? std::string() : result.error().message();
}

}  // namespace relforge::matrix::test
