#pragma once
// The upstream's commits in the store, ordered by the push chain (commit_order): a push GitHub
// delivers late (redelivered after a 503) still lands after the push it follows and before the
// pushes that follow it. Runs inside the caller's transaction.
#include <cstdint>
#include <string>
#include <vector>

#include "ci_relay/store.hpp"

namespace relforge::ci_relay {

struct PushedCommit {
  std::string sha, message, author;
  std::int64_t committed_at = 0;
};

struct OrderedPush {
  std::vector<std::string> added;  // the push's commits the store did not know, in push order
  std::vector<std::string> moved;  // known commits whose position changed (their attribution may)
};

// Stores the commits of `pushed` (oldest first) that are new, the first after `before`; when the
// chain puts them anywhere but last, every commit is re-sequenced in chain order.
Result<OrderedPush> record_push(RelayStore& store, const std::string& before,
                                const std::vector<PushedCommit>& pushed);

}  // namespace relforge::ci_relay
