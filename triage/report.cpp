#include "triage/report.hpp"

#include "core/text.hpp"
#include "core/utf8.hpp"

namespace relforge::triage {
namespace {

std::vector<std::string> utf8_all(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  out.reserve(items.size());
  for (const auto& item : items) out.push_back(core::to_valid_utf8(item));
  return out;
}

}  // namespace

nlohmann::json classification_to_json(const Classification& result) {
  nlohmann::json out;
  if (result.match) {
    const auto& match = *result.match;
    out["rule"] = match.rule;
    out["category"] = match.category;
    out["flaky"] = match.flaky;
    out["line"] = core::to_valid_utf8(match.line);
    out["line_num"] = match.line_num;
    out["captures"] = utf8_all(match.captures);
    out["context"] = utf8_all(match.context);
    const std::string key = cluster_key(match.line);
    out["cluster"] = {
        {"id", cluster_id(key)}, {"key", core::to_valid_utf8(key)}, {"algorithm", k_cluster_algorithm}};
  } else {
    out["rule"] = nullptr;
  }
  out["lines"] = result.lines;
  out["bytes"] = result.bytes;
  out["long_lines_cut"] = result.long_lines_cut;
  out["ends_mid_line"] = result.ends_mid_line;
  return out;
}

std::string classification_to_text(const Classification& result) {
  if (!result.match) return "no rule matched (" + std::to_string(result.lines) + " lines)\n";
  const auto& match = *result.match;
  std::string text = match.rule + " [" + match.category + (match.flaky ? ", flaky" : "") + "] line " +
                     std::to_string(match.line_num) + ": " + core::to_valid_utf8(match.line) + "\n";
  for (const auto& capture : match.captures) text += "  capture: " + core::to_valid_utf8(capture) + "\n";
  for (const auto& line : match.context) text += "  context: " + core::to_valid_utf8(line) + "\n";
  if (result.ends_mid_line) text += "  note: the log ends mid-line (truncated?)\n";
  return text;
}

nlohmann::json clusters_to_json(const std::vector<ClusterSummary>& clusters) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : clusters) {
    out.push_back({{"id", c.id},
                   {"key", core::to_valid_utf8(c.key)},
                   {"algorithm", c.algorithm},
                   {"example", core::to_valid_utf8(c.example)},
                   {"rule", c.rule},
                   {"failures", {{"1d", c.failures_1d}, {"3d", c.failures_3d}, {"7d", c.failures_7d}}},
                   {"distinct_7d", {{"jobs", c.jobs_7d}, {"repos", c.repos_7d}, {"commits", c.commits_7d}}},
                   {"first_seen_commit", c.first_seen_commit},
                   {"first_seen_time", c.first_seen_time},
                   {"last_seen_time", c.last_seen_time},
                   {"new_failure", c.new_failure}});
  }
  return out;
}

std::string clusters_to_text(const std::vector<ClusterSummary>& clusters) {
  if (clusters.empty()) return "no failures in the last 7 days\n";
  std::string text = "cluster                           1d   3d   7d  jobs repos  first seen\n";
  for (const auto& c : clusters) {
    auto pad = [](std::uint64_t n, std::size_t width) {
      std::string s = std::to_string(n);
      return std::string(s.size() < width ? width - s.size() : 0, ' ') + s;
    };
    text += c.id + pad(c.failures_1d, 4) + pad(c.failures_3d, 5) + pad(c.failures_7d, 5) + pad(c.jobs_7d, 6) +
            pad(c.repos_7d, 6) + "  " + core::short_sha(c.first_seen_commit) + (c.new_failure ? " NEW" : "") +
            "\n";
    text += "  " + c.rule + ": " + core::to_valid_utf8(c.example) + "\n";
  }
  return text;
}

nlohmann::json flaky_to_json(const std::vector<FlakyTest>& flaky) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& test : flaky) {
    nlohmann::json evidence = nlohmann::json::array();
    for (const auto& item : test.evidence) {
      evidence.push_back({{"kind", flake_kind_name(item.kind)},
                          {"job", item.job},
                          {"platform", item.platform},
                          {"commit", item.commit},
                          {"time", item.time},
                          {"detail", item.detail}});
    }
    out.push_back({{"test", test.test},
                   {"file", test.file},
                   {"platforms", test.platforms},
                   {"distinct_jobs", test.distinct_jobs},
                   {"last_flake_time", test.last_flake_time},
                   {"evidence", evidence}});
  }
  return out;
}

std::string flaky_to_text(const std::vector<FlakyTest>& flaky) {
  if (flaky.empty()) return "no flaky tests found\n";
  std::string text;
  for (const auto& test : flaky) {
    std::string platforms;
    for (const auto& platform : test.platforms) platforms += (platforms.empty() ? "" : ",") + platform;
    text += test.test + "  (" + std::to_string(test.distinct_jobs) + " jobs; " + platforms + ")\n";
    for (const auto& item : test.evidence) text += "  - " + item.detail + "\n";
  }
  return text;
}

}  // namespace relforge::triage
