#include "ci_relay/commit_order.hpp"

#include <unordered_map>

namespace relforge::ci_relay {

std::vector<std::size_t> chain_order(const std::vector<ChainLink>& links) {
  std::unordered_map<std::string, std::size_t> index;
  index.reserve(links.size());
  for (std::size_t i = 0; i < links.size(); ++i) index.emplace(links[i].sha, i);
  std::vector<std::vector<std::size_t>> children(links.size());
  std::vector<std::size_t> starts;
  for (std::size_t i = 0; i < links.size(); ++i) {
    auto parent = index.find(links[i].parent);
    if (parent == index.end() || parent->second == i)
      starts.push_back(i);
    else
      children[parent->second].push_back(i);
  }
  std::vector<std::size_t> order;
  order.reserve(links.size());
  std::vector<bool> placed(links.size(), false);
  // Iterative: a trunk's chain is as deep as its history.
  auto walk = [&](std::size_t from) {
    std::vector<std::size_t> stack{from};
    while (!stack.empty()) {
      const std::size_t at = stack.back();
      stack.pop_back();
      if (placed[at]) continue;
      placed[at] = true;
      order.push_back(at);
      for (auto child = children[at].rbegin(); child != children[at].rend(); ++child) stack.push_back(*child);
    }
  };
  for (std::size_t start : starts) walk(start);
  // Only payloads that contradict each other (A pushed after B and B after A) form a cycle no
  // start reaches: those commits keep their current order, after the rest.
  for (std::size_t i = 0; i < links.size(); ++i) walk(i);
  return order;
}

}  // namespace relforge::ci_relay
