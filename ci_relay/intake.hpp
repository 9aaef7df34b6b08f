#pragma once
// Durable intake of webhook deliveries: each is stored raw in delivery_log (deduplicated on its
// delivery id) or, when its body is not a JSON object, in dead_letters; unsupported events and
// unknown repositories are stored and settled at once. Normalisation happens later (Normaliser).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ci_relay/intake_scan.hpp"
#include "ci_relay/normaliser.hpp"
#include "ci_relay/store.hpp"

namespace relforge::ci_relay {

enum class IntakeOutcome { stored, duplicate, ignored, rejected, malformed, unavailable };

// The answer to one delivery.
struct Intake {
  IntakeOutcome outcome = IntakeOutcome::stored;
  std::string message;  // why, for ignored / rejected / malformed / unavailable
};

struct Delivery {
  std::string event;        // X-GitHub-Event
  std::string delivery_id;  // X-GitHub-Delivery
  std::string body;         // raw bytes
  std::int64_t received_at = 0;
};

// Whether a header value is printable ASCII, as GitHub's event names and delivery ids are; the
// webhook refuses others before storing anything (they end up in answers, metrics and dispatches).
bool is_header_token(std::string_view value);

// Who makes a group commit durable: the commit itself (synchronous=FULL), or the caller, which
// syncs the log (platform::WalSync) after releasing its lock and before answering anyone.
enum class CommitSync { in_commit, by_caller };

class DeliveryIntake {
public:
  DeliveryIntake(RelayStore& store, Normaliser& normaliser) : m_store(store), m_normaliser(normaliser) {}

  // Stores the raw delivery durably (or says why not); does not normalise it.
  Intake intake(const Delivery& delivery);
  // Group commit: stores every delivery in one transaction (one fsync) and answers each; when the
  // commit fails, every answer is `unavailable` (nothing acknowledged that was not stored).
  // `scans` are each body's scan_delivery(), done beforehand (outside any lock); the workflow_job
  // fields a scan read are handed to the normaliser, which then skips its own pass.
  std::vector<Intake> intake_batch(const std::vector<Delivery>& deliveries,
                                   std::vector<std::optional<IntakeScan>> scans,
                                   CommitSync sync = CommitSync::in_commit);

private:
  Intake store(const Delivery& delivery, const std::optional<IntakeScan>& scan);

  RelayStore& m_store;
  Normaliser& m_normaliser;
};

}  // namespace relforge::ci_relay
