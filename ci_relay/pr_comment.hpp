#pragma once
// A pull request's failed downstream jobs classified against its base commit with triage's PR
// rules (BROKEN_TRUNK, FLAKY, NEW, ...), from the relay's job rows and their classifications.
#include <cstdint>
#include <string>
#include <vector>

#include "ci_relay/config.hpp"
#include "core/error.hpp"
#include "platform/sqlite.hpp"
#include "triage/pr.hpp"

namespace relforge::ci_relay {

struct PrReport {
  std::int64_t number = 0;
  std::string head_sha, base_sha, author;
  std::vector<triage::PrJobVerdict> verdicts;
  std::string markdown;  // the comment body
};

// Jobs are named "repo · workflow / job"; the latest attempt of each counts. Trunk jobs for the
// "similar failure elsewhere" rule are those on upstream commits from 24 h before the base on;
// open upstream issues titled "UNSTABLE <job>" / "DISABLED <test>" explain failures. With the
// config, tiers gate merging: L4 jobs are required, L2/L3 advisory, L1 results are left out
// (without it every job weighs as in Dr. CI).
Result<PrReport> pr_report(platform::Database& db, std::int64_t number, const RelayConfig* config = nullptr);

}  // namespace relforge::ci_relay
