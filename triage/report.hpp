#pragma once
// Renderings of triage results for the CLI and the relay: JSON documents (valid UTF-8 whatever the
// log held) and plain-text lines.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "triage/classify.hpp"
#include "triage/cluster.hpp"
#include "triage/flaky.hpp"

namespace relforge::triage {

nlohmann::json classification_to_json(const Classification& result);
std::string classification_to_text(const Classification& result);  // one line, plus captures/context

nlohmann::json clusters_to_json(const std::vector<ClusterSummary>& clusters);
std::string clusters_to_text(const std::vector<ClusterSummary>& clusters);

nlohmann::json flaky_to_json(const std::vector<FlakyTest>& flaky);
std::string flaky_to_text(const std::vector<FlakyTest>& flaky);

}  // namespace relforge::triage
