#pragma once
// A RelayStore over an in-memory database with the scenario config, and the parts wired over it
// the way Relay wires them, for testing each part on its own.
#include <memory>

#include <gtest/gtest.h>

#include "ci_relay/relay.hpp"
#include "relay_test_support.hpp"

namespace relforge::ci_relay::test {

inline std::unique_ptr<RelayStore> memory_store(RelayConfig config = scenario_config()) {
  auto store = RelayStore::open(std::move(config), ":memory:");
  EXPECT_TRUE(store) << store.error().describe();
  return store ? std::move(*store) : nullptr;
}

// Runs `sql` (no results) and fails the test when it cannot.
inline void exec(RelayStore& store, const std::string& sql) {
  auto ok = store.db().execute(sql);
  ASSERT_TRUE(ok) << sql << ": " << ok.error().describe();
}

// Upstream commits 1..n at seq 1..n (sha_of(i), committed at commit_time(i)).
inline void add_commits(RelayStore& store, int n) {
  for (int i = 1; i <= n; ++i)
    exec(store, "INSERT INTO commits(sha, seq, committed_at) VALUES('" + sha_of(i) + "', " +
                    std::to_string(i) + ", " + std::to_string(commit_time(i)) + ")");
}

}  // namespace relforge::ci_relay::test
