#pragma once
// A pull request's failed downstream jobs classified against its base commit with triage's PR
// rules (BROKEN_TRUNK, FLAKY, NEW, ...), from the relay's job rows and their classifications.
#include <cstdint>
#include <string>
#include <vector>

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
// "similar failure elsewhere" rule are those on upstream commits from 24 h before the base on.
Result<PrReport> pr_report(platform::Database& db, std::int64_t number);

}  // namespace relforge::ci_relay
