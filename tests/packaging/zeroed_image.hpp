#pragma once
// Test helper: an ElfImage over bytes in memory that shows only what was covered, the rest as
// zeros (as a zip entry inflated on request does), and counts how many bytes were made readable.
// Reading lazily through it must give what reading the whole bytes gives.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "packaging/wheel_elf_policy.hpp"

namespace relforge::test {

class ZeroedImage final : public packaging::ElfImage {
public:
  explicit ZeroedImage(std::string source)
      : m_source(std::move(source)), m_bytes(m_source.size(), '\0'), m_seen(m_source.size(), false) {}
  std::uint64_t size() const override { return m_source.size(); }
  char* data() override { return m_bytes.data(); }
  Status cover_prefix(std::uint64_t end) override {
    copy(0, std::min<std::uint64_t>(end, m_source.size()));
    return {};
  }
  Status cover_ranges(std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges) override {
    for (const auto& [first, length] : ranges) {
      if (first >= m_source.size()) continue;
      copy(first, first + std::min<std::uint64_t>(length, m_source.size() - first));
    }
    return {};
  }
  std::uint64_t covered() const {
    return static_cast<std::uint64_t>(std::count(m_seen.begin(), m_seen.end(), true));
  }

private:
  void copy(std::uint64_t first, std::uint64_t end) {
    if (end <= first) return;
    std::copy(m_source.begin() + static_cast<std::ptrdiff_t>(first),
              m_source.begin() + static_cast<std::ptrdiff_t>(end),
              m_bytes.begin() + static_cast<std::ptrdiff_t>(first));
    std::fill(m_seen.begin() + static_cast<std::ptrdiff_t>(first),
              m_seen.begin() + static_cast<std::ptrdiff_t>(end), true);
  }
  std::string m_source;
  std::string m_bytes;
  std::vector<bool> m_seen;
};

}  // namespace relforge::test
