#include "triage/hyperscan_set.hpp"

#include <cstdlib>

#ifdef RELFORGE_HAVE_HYPERSCAN
#include <hs/hs.h>
#endif

namespace relforge::triage {

#ifdef RELFORGE_HAVE_HYPERSCAN

bool HyperscanSet::available() {
  return true;
}

namespace {

// The key: the mode's letter, then each pattern followed by a NUL (patterns hold none).
std::vector<std::string_view> key_patterns(std::string_view key) {
  std::vector<std::string_view> patterns;
  for (std::size_t start = 1; start < key.size();) {
    const auto end = key.find('\0', start);
    patterns.push_back(key.substr(start, end - start));
    start = end + 1;
  }
  return patterns;
}

hs_database_t* compile_key(const std::string& key, const hs_platform_info_t* platform) {
  const auto patterns = key_patterns(key);
  if (patterns.empty()) return nullptr;
  std::vector<const char*> expressions;
  std::vector<unsigned> flags, ids;
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    expressions.push_back(patterns[i].data());  // the key's NUL after each pattern ends it
    // Prefilter: constructs Hyperscan lacks are widened, never narrowed (a superset of RE2's matches).
    // Set mode needs one report per pattern; ends mode needs every line where one may match.
    const unsigned single = key[0] == 's' ? HS_FLAG_SINGLEMATCH : 0u;
    flags.push_back(HS_FLAG_MULTILINE | single | HS_FLAG_PREFILTER | HS_FLAG_ALLOWEMPTY);
    ids.push_back(static_cast<unsigned>(i));
  }
  hs_database_t* database = nullptr;
  hs_compile_error_t* error = nullptr;
  if (hs_compile_multi(expressions.data(), flags.data(), ids.data(),
                       static_cast<unsigned>(expressions.size()), HS_MODE_BLOCK, platform, &database,
                       &error) != HS_SUCCESS) {
    hs_free_compile_error(error);
    return nullptr;
  }
  return database;
}

// A database built into the binary, when one has this key and this machine can run it (a
// database from another Hyperscan version, or one the CPU cannot run, is compiled instead).
hs_database_t* load_built_in(const std::string& key) {
  for (const auto& entry : precompiled_databases()) {
    if (entry.key != key) continue;
    hs_database_t* database = nullptr;
    if (hs_deserialize_database(entry.bytes.data(), entry.bytes.size(), &database) == HS_SUCCESS)
      return database;
    return nullptr;
  }
  return nullptr;
}

}  // namespace

std::string HyperscanSet::key_of(const std::vector<std::string>& patterns, Mode mode) {
  std::string key(1, mode == Mode::set ? 's' : 'e');
  for (const auto& pattern : patterns) {
    key += pattern;
    key += '\0';
  }
  return key;
}

std::shared_ptr<const HyperscanSet> HyperscanSet::compile(const std::vector<std::string>& patterns,
                                                          Mode mode) {
  if (patterns.empty()) return nullptr;
  for (const auto& pattern : patterns)
    if (pattern.find('\0') != std::string::npos) return nullptr;  // not a C string: not a pattern
  std::string key = key_of(patterns, mode);
  hs_database_t* database = load_built_in(key);
  const bool loaded = database != nullptr;
  if (database == nullptr) database = compile_key(key, nullptr);
  if (database == nullptr) return nullptr;
  hs_scratch_t* scratch = nullptr;
  if (hs_alloc_scratch(database, &scratch) != HS_SUCCESS) {
    hs_free_database(database);
    return nullptr;
  }
  std::shared_ptr<HyperscanSet> set(new HyperscanSet());
  set->m_database = database;
  set->m_scratch_prototype = scratch;
  set->m_key = std::move(key);
  set->m_loaded = loaded;
  return set;
}

std::string HyperscanSet::serialize_portable(const std::string& key) {
  hs_platform_info_t portable{};  // tune generic, no optional CPU features
  hs_database_t* database = compile_key(key, &portable);
  if (database == nullptr) return {};
  char* bytes = nullptr;
  std::size_t size = 0;
  std::string serialized;
  if (hs_serialize_database(database, &bytes, &size) == HS_SUCCESS) {
    serialized.assign(bytes, size);
    std::free(bytes);  // hs_serialize_database allocates with malloc (the default allocator)
  }
  hs_free_database(database);
  return serialized;
}

HyperscanSet::~HyperscanSet() {
  hs_free_scratch(static_cast<hs_scratch_t*>(m_scratch_prototype));
  hs_free_database(static_cast<hs_database_t*>(m_database));
}

HyperscanSet::Scanner::Scanner(std::shared_ptr<const HyperscanSet> set) : m_set(std::move(set)) {
  hs_scratch_t* scratch = nullptr;
  if (hs_clone_scratch(static_cast<const hs_scratch_t*>(m_set->m_scratch_prototype), &scratch) == HS_SUCCESS)
    m_scratch = scratch;
}

HyperscanSet::Scanner::~Scanner() {
  hs_free_scratch(static_cast<hs_scratch_t*>(m_scratch));
}

bool HyperscanSet::Scanner::scan(std::string_view text, std::vector<int>& hits) {
  hits.clear();
  if (m_scratch == nullptr) return false;
  const auto on_match = [](unsigned id, unsigned long long, unsigned long long, unsigned,
                           void* context) -> int {
    static_cast<std::vector<int>*>(context)->push_back(static_cast<int>(id));
    return 0;
  };
  const hs_error_t rc =
      hs_scan(static_cast<const hs_database_t*>(m_set->m_database), text.data(),
              static_cast<unsigned>(text.size()), 0, static_cast<hs_scratch_t*>(m_scratch), on_match, &hits);
  return rc == HS_SUCCESS;
}

bool HyperscanSet::Scanner::scan_ends(std::string_view text, EndCallback on_end, void* context) {
  if (m_scratch == nullptr) return false;
  struct Target {
    EndCallback on_end;
    void* context;
  } target{on_end, context};
  const auto on_match = [](unsigned id, unsigned long long, unsigned long long to, unsigned,
                           void* data) -> int {
    auto* t = static_cast<Target*>(data);
    t->on_end(t->context, id, static_cast<std::size_t>(to));
    return 0;
  };
  const hs_error_t rc = hs_scan(static_cast<const hs_database_t*>(m_set->m_database), text.data(),
                                static_cast<unsigned>(text.size()), 0, static_cast<hs_scratch_t*>(m_scratch),
                                on_match, &target);
  return rc == HS_SUCCESS;
}

#else

bool HyperscanSet::available() {
  return false;
}
std::shared_ptr<const HyperscanSet> HyperscanSet::compile(const std::vector<std::string>&, Mode) {
  return nullptr;
}
std::string HyperscanSet::key_of(const std::vector<std::string>&, Mode) {
  return {};
}
std::string HyperscanSet::serialize_portable(const std::string&) {
  return {};
}
HyperscanSet::~HyperscanSet() = default;
HyperscanSet::Scanner::Scanner(std::shared_ptr<const HyperscanSet> set) : m_set(std::move(set)) {}
HyperscanSet::Scanner::~Scanner() = default;
bool HyperscanSet::Scanner::scan(std::string_view, std::vector<int>& hits) {
  hits.clear();
  return false;
}
bool HyperscanSet::Scanner::scan_ends(std::string_view, EndCallback, void*) {
  return false;
}

#endif

}  // namespace relforge::triage
