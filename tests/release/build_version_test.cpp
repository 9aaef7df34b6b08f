#include "release/build_version.hpp"

#include <gtest/gtest.h>

namespace relforge::release {
namespace {

BuildVersionInputs inputs(std::string file, std::string ref, std::string variant = "cu130") {
  BuildVersionInputs in;
  in.version_file_text = std::move(file);
  in.ref = std::move(ref);
  in.variant = std::move(variant);
  in.date = "20260415";
  return in;
}

TEST(BuildVersion, NightlyDropsA0AddsUtcDateAndVariant) {
  auto v = build_version(inputs("2.8.0a0\n", "refs/heads/main"));
  ASSERT_TRUE(v) << v.error().describe();
  EXPECT_EQ(v->version, "2.8.0.dev20260415+cu130");
  EXPECT_EQ(v->channel, "nightly");
  EXPECT_EQ(v->base, "2.8.0");
}

TEST(BuildVersion, DashedDateAndNoVariantAsOnMacos) {
  auto in = inputs("2.8.0a0", "main", "");
  in.date = "2026-01-02";
  auto v = build_version(in);
  ASSERT_TRUE(v) << v.error().describe();
  EXPECT_EQ(v->version, "2.8.0.dev20260102");
}

TEST(BuildVersion, RcTagGivesTestChannelAndTagVersion) {
  auto v = build_version(inputs("2.7.0\n", "refs/tags/v2.7.0-rc2"));
  ASSERT_TRUE(v) << v.error().describe();
  EXPECT_EQ(v->version, "2.7.0+cu130");
  EXPECT_EQ(v->channel, "test");
  EXPECT_EQ(v->source, "v2.7.0-rc2");
  auto bare = build_version(inputs("2.7.0\n", "v2.14.0-rc1", "cu126"));
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->version, "2.14.0+cu126");
}

TEST(BuildVersion, ChannelFromRef) {
  EXPECT_EQ(channel_for_ref("refs/tags/v2.7.0-rc1"), "test");
  EXPECT_EQ(channel_for_ref("refs/heads/release/2.7"), "test");
  EXPECT_EQ(channel_for_ref("release/2.14"), "test");
  EXPECT_EQ(channel_for_ref("refs/pull/12/merge", "release/2.7"), "test");
  EXPECT_EQ(channel_for_ref("refs/pull/12/merge", "main"), "nightly");
  EXPECT_EQ(channel_for_ref("refs/heads/main"), "nightly");
  EXPECT_EQ(channel_for_ref("refs/heads/release/2.7-fixes"), "nightly");
  EXPECT_EQ(channel_for_ref("refs/tags/v2.7.0"), "release");  // a final tag builds the final
  EXPECT_EQ(channel_for_ref("refs/tags/v2.7.0-rc1x"), "nightly");
  EXPECT_EQ(rc_tag_version("refs/tags/v2.7.0-rc12"), "2.7.0");
  EXPECT_FALSE(rc_tag_version("2.7.0-rc1"));
}

TEST(BuildVersion, FinalTagGivesTheFinalVersionOnTheReleaseChannel) {
  auto v = build_version(inputs("2.7.0\n", "refs/tags/v2.7.0"));
  ASSERT_TRUE(v) << v.error().describe();
  EXPECT_EQ(v->version, "2.7.0+cu130");
  EXPECT_EQ(v->channel, "release");
  EXPECT_EQ(v->source, "v2.7.0");
}

TEST(BuildVersion, DetachedHeadFollowsTheVersionFile) {
  auto nightly = build_version(inputs("2.8.0a0\n", "HEAD"));
  ASSERT_TRUE(nightly) << nightly.error().describe();
  EXPECT_EQ(nightly->channel, "nightly");
  EXPECT_EQ(nightly->version, "2.8.0.dev20260415+cu130");
  auto test = build_version(inputs("2.7.1\n", "HEAD"));
  ASSERT_TRUE(test) << test.error().describe();
  EXPECT_EQ(test->channel, "test");
  EXPECT_EQ(test->version, "2.7.1+cu130");
  auto empty = build_version(inputs("", "HEAD"));
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().message().find("empty"), std::string::npos);
}

TEST(BuildVersion, ReleaseBranchWithoutTagUsesTheReleaseVersionFile) {
  auto v = build_version(inputs("2.7.0\n", "refs/heads/release/2.7"));
  ASSERT_TRUE(v) << v.error().describe();
  EXPECT_EQ(v->version, "2.7.0+cu130");
  EXPECT_EQ(v->channel, "test");
}

TEST(BuildVersion, StaleVersionFileOnTestChannelIsAnError) {
  // The PyTorch incident: a test build whose version constant still says the nightly version.
  auto in = inputs("2.8.0a0\n", "refs/heads/main");
  in.channel = "test";
  auto v = build_version(in);
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().category(), ErrorCategory::invalid_input);
  EXPECT_NE(v.error().message().find("2.8.0a0"), std::string::npos);
}

TEST(BuildVersion, ChannelOverride) {
  auto in = inputs("2.7.0\n", "refs/tags/v2.7.0-rc1");
  in.channel = "release";
  auto v = build_version(in);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->channel, "release");
  EXPECT_EQ(v->version, "2.7.0+cu130");
  in.channel = "nightly";
  auto nightly = build_version(in);
  ASSERT_TRUE(nightly);
  EXPECT_EQ(nightly->version, "2.7.0.dev20260415+cu130");
}

TEST(BuildVersion, BadInputs) {
  auto bad_date = inputs("2.8.0a0", "main");
  // Days the calendar does not have too: 2026 is no leap year, 1900 was not one.
  for (const char* date :
       {"2026-4-15", "20261315", "20260400", "today", "", "20260229", "20260230", "20260431", "19000229"}) {
    bad_date.date = date;
    auto v = build_version(bad_date);
    ASSERT_FALSE(v) << date;
    EXPECT_NE(v.error().message().find("YYYYMMDD"), std::string::npos);
  }
  for (const char* date : {"20280229", "20000229", "20261231"}) {
    bad_date.date = date;
    EXPECT_TRUE(build_version(bad_date)) << date;
  }
  auto bad_channel = inputs("2.8.0a0", "main");
  bad_channel.channel = "beta";
  EXPECT_FALSE(build_version(bad_channel));
  EXPECT_FALSE(build_version(inputs("", "main")));
  EXPECT_FALSE(build_version(inputs("2.8.0b1", "main")));
  EXPECT_FALSE(build_version(inputs("not a version", "main")));
  EXPECT_FALSE(build_version(inputs("2.8.0a0", "main", "cu_130!")));
}

}  // namespace
}  // namespace relforge::release
