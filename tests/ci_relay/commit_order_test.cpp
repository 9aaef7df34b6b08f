// chain_order: commits follow the commit they were pushed after, whatever order they arrived in.
#include "ci_relay/commit_order.hpp"

#include <gtest/gtest.h>

namespace relforge::ci_relay {
namespace {

std::vector<std::string> ordered(const std::vector<ChainLink>& links) {
  std::vector<std::string> out;
  for (std::size_t i : chain_order(links)) out.push_back(links[i].sha);
  return out;
}

TEST(ChainOrder, AChainInOrderStaysAsItIs) {
  EXPECT_EQ(ordered({{"c1", "c0"}, {"c2", "c1"}, {"c3", "c2"}}),
            (std::vector<std::string>{"c1", "c2", "c3"}));
}

TEST(ChainOrder, ALatePushGoesBeforeThePushThatFollowsIt) {
  // c3,c4 (pushed after c2) arrived before c1,c2.
  EXPECT_EQ(ordered({{"c3", "c2"}, {"c4", "c3"}, {"c1", ""}, {"c2", "c1"}}),
            (std::vector<std::string>{"c1", "c2", "c3", "c4"}));
  // c5 (after c4) came first, then c1,c2, then the missing c3,c4 join the two.
  EXPECT_EQ(ordered({{"c5", "c4"}, {"c1", "x"}, {"c2", "c1"}, {"c3", "c2"}, {"c4", "c3"}}),
            (std::vector<std::string>{"c1", "c2", "c3", "c4", "c5"}));
}

TEST(ChainOrder, UnlinkedChainsKeepTheirOrderAndACycleStillPlacesEveryCommit) {
  EXPECT_EQ(ordered({{"b1", "x"}, {"a1", "y"}, {"b2", "b1"}}), (std::vector<std::string>{"b1", "b2", "a1"}));
  EXPECT_EQ(ordered({{"s", ""}, {"p", "q"}, {"q", "p"}, {"self", "self"}}),
            (std::vector<std::string>{"s", "self", "p", "q"}));
  EXPECT_TRUE(ordered({}).empty());
}

}  // namespace
}  // namespace relforge::ci_relay
