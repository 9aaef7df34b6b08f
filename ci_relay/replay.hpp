#pragma once
// Offline ingestion for backfills and tests: JSON lines ({"event", "delivery_id", "received_at",
// "payload"} per line, .jsonl/.ndjson) or payload files laid out as <event>/<name>.json. A
// workflow_job line may carry its job's log ("log": text, or "log_file": a path relative to the
// .jsonl file), which is classified and stored on the job once the deliveries are normalised.
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

#include "ci_relay/relay.hpp"

namespace relforge::ci_relay {

struct ReplaySummary {
  std::map<std::string, int> outcomes;  // stored, duplicate, ignored, rejected, malformed
  int normalised = 0;
  int classified = 0;  // job logs classified
};

// Deliveries without an id get "replay-" + a digest of event and body, so replaying twice dedupes;
// without a time they get `now`.
Result<ReplaySummary> replay(Relay& relay, const std::filesystem::path& path, std::int64_t now);

std::string outcome_name(IntakeOutcome outcome);

}  // namespace relforge::ci_relay
