#pragma once
// Internal: patterns in one Hyperscan database (prefilter mode: a superset of RE2's matches; RE2
// decides per line). `set` mode says which patterns may match in a text (a chunk of cleaned
// ASCII lines); `ends` mode reports every offset where some pattern may end (to find the lines of
// a raw log that are worth cleaning). Hyperscan exists on x86-64 only; elsewhere (or if it
// refuses a pattern) the callers fall back to RE2 alone.
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace relforge::triage {

class HyperscanSet {
public:
  enum class Mode { set, ends };
  // nullptr when Hyperscan is not built in or cannot compile one of the patterns. Patterns are
  // Hyperscan syntax (see hs_pattern.hpp), compiled multi-line.
  // A set built into the binary (precompiled_databases(): the built-in rules' database, made at
  // build time) is loaded instead of compiled when its patterns and mode are the same.
  static std::shared_ptr<const HyperscanSet> compile(const std::vector<std::string>& patterns,
                                                     Mode mode = Mode::set);
  static bool available();  // built with Hyperscan

  // What identifies a set: its mode and patterns (a built-in database is looked up by it).
  static std::string key_of(const std::vector<std::string>& patterns, Mode mode);
  const std::string& key() const { return m_key; }
  bool loaded_from_binary() const { return m_loaded; }  // not compiled in this process
  // The key's patterns compiled for any x86-64 (no AVX2/AVX-512 assumed), serialized as
  // hs_serialize_database writes it; empty when they do not compile.
  static std::string serialize_portable(const std::string& key);

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
    // Ends mode: calls on_end(context, pattern, offset) for every offset where a match of the
    // pattern may end (repeats possible, roughly ascending); false on a scan error.
    using EndCallback = void (*)(void* context, unsigned pattern, std::size_t end);
    bool scan_ends(std::string_view text, EndCallback on_end, void* context);

  private:
    std::shared_ptr<const HyperscanSet> m_set;
    void* m_scratch = nullptr;
  };

private:
  HyperscanSet() = default;
  void* m_database = nullptr;
  void* m_scratch_prototype = nullptr;
  std::string m_key;
  bool m_loaded = false;
};

// Hyperscan databases built into the binary: the key (HyperscanSet::key_of) and the serialized
// database. Defined in the build's generated precompiled_default_rules.cpp (empty without Hyperscan,
// and in the tool that generates it).
struct PrecompiledDatabase {
  std::string_view key;
  std::string_view bytes;
};
std::span<const PrecompiledDatabase> precompiled_databases();

}  // namespace relforge::triage
