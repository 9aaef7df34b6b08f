#include "ci_relay/replay.hpp"

#include <algorithm>
#include <vector>

#include <nlohmann/json.hpp>

#include "ci_relay/json_fields.hpp"
#include "core/text.hpp"
#include "platform/digest.hpp"
#include "platform/fs.hpp"

namespace relforge::ci_relay {
namespace {

using nlohmann::json;

std::string replay_id(const std::string& event, const std::string& body) {
  return "replay-" + platform::to_hex(platform::sha256(event + "\n" + body)).substr(0, 32);
}

struct PendingLog {
  std::string repo;
  std::int64_t github_job_id = 0;
  std::string text;
  std::filesystem::path file;
};

Status take(Relay& relay, ReplaySummary& summary, Delivery delivery) {
  if (delivery.delivery_id.empty()) delivery.delivery_id = replay_id(delivery.event, delivery.body);
  const Intake intake = relay.intake(delivery);
  if (intake.outcome == IntakeOutcome::unavailable) {
    return fail(ErrorCategory::io, "storing delivery " + delivery.delivery_id + ": " + intake.message);
  }
  ++summary.outcomes[outcome_name(intake.outcome)];
  return {};
}

bool is_lines(const std::filesystem::path& path) {
  const auto ext = path.extension().string();
  return ext == ".jsonl" || ext == ".ndjson";
}

Status replay_lines(Relay& relay, ReplaySummary& summary, const std::filesystem::path& path, std::int64_t now,
                    std::vector<PendingLog>& logs) {
  auto text = platform::read_file(path);
  if (!text) return tl::unexpected(text.error());
  int line_no = 0;
  for (const auto& line : core::split(*text, '\n')) {
    ++line_no;
    if (core::trim(line).empty()) continue;
    // The payload sits one level inside its entry.
    if (!core::json_nesting_within(line, k_max_json_nesting + 1)) {
      return fail(ErrorCategory::invalid_input, path.string() + ":" + std::to_string(line_no) +
                                                    ": nested deeper than " +
                                                    std::to_string(k_max_json_nesting) + " levels");
    }
    const json entry = json::parse(line, nullptr, false);
    const std::string event = text_field(entry, "event");
    if (entry.is_discarded() || event.empty() || !field(entry, "payload").is_object()) {
      return fail(ErrorCategory::invalid_input,
                  path.string() + ":" + std::to_string(line_no) +
                      ": expected {\"event\": ..., \"payload\": {...}} on each line");
    }
    if (field(entry, "log").is_string() || field(entry, "log_file").is_string()) {
      const auto& payload = field(entry, "payload");
      const auto job_id = int_field(field(payload, "workflow_job"), "id");
      if (event != "workflow_job" || !job_id) {
        return fail(ErrorCategory::invalid_input,
                    path.string() + ":" + std::to_string(line_no) +
                        ": a log belongs to a workflow_job delivery with workflow_job.id");
      }
      PendingLog log{
          text_field(field(payload, "repository"), "full_name"), *job_id, text_field(entry, "log"), {}};
      if (field(entry, "log_file").is_string()) log.file = path.parent_path() / text_field(entry, "log_file");
      logs.push_back(std::move(log));
    }
    Delivery d{event, text_field(entry, "delivery_id"), field(entry, "payload").dump(),
               int_field(entry, "received_at").value_or(now)};
    if (auto ok = take(relay, summary, std::move(d)); !ok) return ok;
  }
  return {};
}

}  // namespace

std::string outcome_name(IntakeOutcome outcome) {
  switch (outcome) {
    case IntakeOutcome::stored:
      return "stored";
    case IntakeOutcome::duplicate:
      return "duplicate";
    case IntakeOutcome::ignored:
      return "ignored";
    case IntakeOutcome::rejected:
      return "rejected";
    case IntakeOutcome::malformed:
      return "malformed";
    case IntakeOutcome::unavailable:
      return "unavailable";
  }
  return "unknown";
}

Result<ReplaySummary> replay(Relay& relay, const std::filesystem::path& path, std::int64_t now) {
  ReplaySummary summary;
  std::vector<PendingLog> logs;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(path, ec)) {
      if (entry.is_regular_file() && (entry.path().extension() == ".json" || is_lines(entry.path()))) {
        files.push_back(entry.path());
      }
    }
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
      if (is_lines(file)) {
        if (auto ok = replay_lines(relay, summary, file, now, logs); !ok) return tl::unexpected(ok.error());
        continue;
      }
      auto body = platform::read_file(file);
      if (!body) return tl::unexpected(body.error());
      // The folder names the event, as in octokit/webhooks' examples.
      if (auto ok = take(relay, summary, {file.parent_path().filename().string(), "", *body, now}); !ok) {
        return tl::unexpected(ok.error());
      }
    }
  } else if (std::filesystem::is_regular_file(path, ec)) {
    if (auto ok = replay_lines(relay, summary, path, now, logs); !ok) return tl::unexpected(ok.error());
  } else {
    return fail(ErrorCategory::not_found,
                path.string() + " is neither a JSON-lines file nor a directory of payloads");
  }
  auto handled = relay.process_pending();
  if (!handled) return tl::unexpected(handled.error());
  summary.normalised = *handled;
  for (const auto& log : logs) {
    Result<triage::Classification> result =
        log.file.empty() ? Result<triage::Classification>(triage::classify(log.text, relay.rules()))
                         : triage::classify_file(log.file, relay.rules());
    if (!result)
      return tl::unexpected(
          Error(result.error())
              .with_context("classifying the log of job " + std::to_string(log.github_job_id)));
    auto stored = relay.store_classification(log.repo, log.github_job_id, *result);
    if (!stored) return tl::unexpected(stored.error());
    if (*stored > 0) ++summary.classified;
  }
  return summary;
}

}  // namespace relforge::ci_relay
