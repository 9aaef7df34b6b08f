#pragma once
// Attribution over the store: recomputes one job's breakages from its results on ordered upstream
// commits (find_breakages) and writes them back, keeping each breakage row's identity and
// opened_at while later results narrow its suspect range. Called inside the caller's transaction.
#include <cstdint>
#include <string>
#include <vector>

#include "ci_relay/store.hpp"

namespace relforge::ci_relay {

// One job of one downstream repository: the unit breakages are tracked for.
struct JobKey {
  std::string repo, workflow, job;
};

class Attribution {
public:
  explicit Attribution(RelayStore& store) : m_store(store) {}

  // Re-attributes `key` at `now` (L1 repositories are never attributed).
  Status attribute(const JobKey& key, std::int64_t now);
  // Re-attributes every job with a result on a commit of `shas` (each job once): commits that
  // were ordered after their results, or moved by a late push.
  Status attribute_shas(const std::vector<std::string>& shas, std::int64_t now);

private:
  RelayStore& m_store;
};

}  // namespace relforge::ci_relay
