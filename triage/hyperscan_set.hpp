#pragma once
// Internal: every rule pattern in one Hyperscan database (prefilter mode), scanned over a chunk of
// cleaned ASCII lines to learn which rules may match there — a superset; RE2 decides per line.
// Hyperscan exists on x86-64 only; elsewhere (or if it refuses a pattern) the RE2::Set does this.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace relforge::triage {

class HyperscanSet {
public:
  // nullptr when Hyperscan is not built in or cannot compile one of the patterns.
  static std::shared_ptr<const HyperscanSet> compile(const std::vector<std::string>& patterns);
  static bool available();  // built with Hyperscan

  HyperscanSet(const HyperscanSet&) = delete;
  HyperscanSet& operator=(const HyperscanSet&) = delete;
  ~HyperscanSet();

  // One per scanning thread (Hyperscan's scratch space).
  class Scanner {
  public:
    explicit Scanner(std::shared_ptr<const HyperscanSet> set);
    ~Scanner();
    Scanner(const Scanner&) = delete;
    Scanner& operator=(const Scanner&) = delete;
    // Fills `hits` with the indices of patterns that may match in `text`; false on a scan error.
    bool scan(std::string_view text, std::vector<int>& hits);

  private:
    std::shared_ptr<const HyperscanSet> m_set;
    void* m_scratch = nullptr;
  };

private:
  HyperscanSet() = default;
  void* m_database = nullptr;
  void* m_scratch_prototype = nullptr;
};

}  // namespace relforge::triage
