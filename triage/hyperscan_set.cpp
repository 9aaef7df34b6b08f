#include "triage/hyperscan_set.hpp"

#ifdef RELFORGE_HAVE_HYPERSCAN
#include <hs/hs.h>
#endif

namespace relforge::triage {

#ifdef RELFORGE_HAVE_HYPERSCAN

bool HyperscanSet::available() {
  return true;
}

std::shared_ptr<const HyperscanSet> HyperscanSet::compile(const std::vector<std::string>& patterns,
                                                          Mode mode) {
  if (patterns.empty()) return nullptr;
  std::vector<const char*> expressions;
  std::vector<unsigned> flags, ids;
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    expressions.push_back(patterns[i].c_str());
    // Prefilter: constructs Hyperscan lacks are widened, never narrowed (a superset of RE2's matches).
    // Set mode needs one report per pattern; ends mode needs every line where one may match.
    const unsigned single = mode == Mode::set ? HS_FLAG_SINGLEMATCH : 0u;
    flags.push_back(HS_FLAG_MULTILINE | single | HS_FLAG_PREFILTER | HS_FLAG_ALLOWEMPTY);
    ids.push_back(static_cast<unsigned>(i));
  }
  hs_database_t* database = nullptr;
  hs_compile_error_t* error = nullptr;
  if (hs_compile_multi(expressions.data(), flags.data(), ids.data(),
                       static_cast<unsigned>(expressions.size()), HS_MODE_BLOCK, nullptr, &database,
                       &error) != HS_SUCCESS) {
    hs_free_compile_error(error);
    return nullptr;
  }
  hs_scratch_t* scratch = nullptr;
  if (hs_alloc_scratch(database, &scratch) != HS_SUCCESS) {
    hs_free_database(database);
    return nullptr;
  }
  std::shared_ptr<HyperscanSet> set(new HyperscanSet());
  set->m_database = database;
  set->m_scratch_prototype = scratch;
  return set;
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
