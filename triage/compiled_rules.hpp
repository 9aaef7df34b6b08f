#pragma once
// Internal: the compiled form of a RuleSpec (one RE2 per rule plus RE2::Sets used to skip whole
// chunks of a log that no rule can match). Only the triage module looks inside.
#include <memory>
#include <vector>

#include <re2/re2.h>
#include <re2/set.h>

#include "triage/hyperscan_set.hpp"
#include "triage/raw_prefilter.hpp"
#include "triage/rules.hpp"

namespace relforge::triage {

class CompiledRules {
public:
  RuleSpec spec;
  std::vector<std::unique_ptr<re2::RE2>> rules;  // index = priority
  std::vector<std::unique_ptr<re2::RE2>> ignore;
  std::vector<std::unique_ptr<re2::RE2>> block_start;
  std::vector<std::unique_ptr<re2::RE2>> block_end;
  // Multi-line mode, over a chunk of cleaned lines: index i < rules.size() is rule i, the rest are
  // the skip-block starts in order.
  std::unique_ptr<re2::RE2::Set> rule_set;
  // The same patterns for Hyperscan, used on ASCII chunks where it exists (x86-64) and
  // raw_prefilter could not be built; nullptr otherwise.
  std::shared_ptr<const HyperscanSet> fast_set;
  // Which raw lines need cleaning at all (Hyperscan over the uncleaned log), and which rules may
  // match in a chunk of cleaned lines; nullptr: every line, and the sets above.
  std::shared_ptr<const RawPrefilter> raw_prefilter;
};

}  // namespace relforge::triage
