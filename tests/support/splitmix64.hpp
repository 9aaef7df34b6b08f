#pragma once
// splitmix64: a small generator with a fixed seed, so generated test cases are the same on every
// machine and standard library.
#include <cstddef>
#include <cstdint>
#include <iterator>

namespace relforge::test {

class SplitMix64 {
public:
  explicit SplitMix64(std::uint64_t seed) : m_state(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (m_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
  bool percent(std::size_t p) { return below(100) < p; }
  template <typename Items>
  const auto& pick(const Items& items) {
    return items[below(std::size(items))];
  }

private:
  std::uint64_t m_state;
};

}  // namespace relforge::test
