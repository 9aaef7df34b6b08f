#include "core/channel_name.hpp"

#include <gtest/gtest.h>

namespace relforge::core {
namespace {

TEST(ChannelName, ReleaseIsTheStableChannel) {
  EXPECT_EQ(canonical_channel("release"), "stable");
  EXPECT_EQ(canonical_channel("stable"), "stable");
  EXPECT_EQ(canonical_channel("nightly"), "nightly");
  EXPECT_EQ(canonical_channel("Release"), "Release");  // names are exact; only the alias maps
  EXPECT_TRUE(same_channel("release", "stable"));
  EXPECT_TRUE(same_channel("stable", "release"));
  EXPECT_TRUE(same_channel("test", "test"));
  EXPECT_FALSE(same_channel("test", "stable"));
  EXPECT_FALSE(same_channel("nightly", "release"));
}

}  // namespace
}  // namespace relforge::core
