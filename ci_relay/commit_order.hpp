#pragma once
// The upstream commit order as the push chain gives it: every commit follows the commit it was
// pushed after (its push's `before`, or the commit before it in its push), whatever order GitHub
// delivered the pushes in.
#include <cstddef>
#include <string>
#include <vector>

namespace relforge::ci_relay {

struct ChainLink {
  std::string sha;
  std::string parent;  // the commit it was pushed after; empty or an unknown SHA: a chain start
};

// `links` in their current order; returns their indices in chain order: each chain start in
// current order, each followed by what was pushed after it (children in current order).
std::vector<std::size_t> chain_order(const std::vector<ChainLink>& links);

}  // namespace relforge::ci_relay
