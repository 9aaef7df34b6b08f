#include "packaging/wheel_name.hpp"

#include <gtest/gtest.h>

namespace relforge::packaging {
namespace {

std::vector<std::string> strings(const std::vector<Tag>& tags) {
  std::vector<std::string> out;
  for (const auto& tag : tags) out.push_back(tag.to_string());
  return out;
}

std::string error_of(std::string_view filename) {
  const auto wheel = parse_wheel_filename(filename);
  EXPECT_FALSE(wheel) << filename;
  return wheel ? "" : wheel.error().message();
}

TEST(WheelName, FreeThreadedTorchWithLocalVersion) {
  const auto wheel = parse_wheel_filename("torch-2.6.0+cu126-cp313-cp313t-manylinux_2_28_x86_64.whl");
  ASSERT_TRUE(wheel) << wheel.error().message();
  EXPECT_EQ(wheel->distribution, "torch");
  EXPECT_EQ(wheel->normalized_name(), "torch");
  EXPECT_EQ(wheel->version.to_string(), "2.6.0+cu126");
  EXPECT_EQ(wheel->build, std::nullopt);
  EXPECT_EQ(strings(wheel->tags()), std::vector<std::string>{"cp313-cp313t-manylinux_2_28_x86_64"});
  EXPECT_TRUE(wheel->free_threaded());
  EXPECT_EQ(format_wheel_filename(*wheel).value(),
            "torch-2.6.0+cu126-cp313-cp313t-manylinux_2_28_x86_64.whl");
}

TEST(WheelName, MacTorchUsesAbiNone) {
  const auto wheel = parse_wheel_filename("torch-2.9.0-cp313-none-macosx_11_0_arm64.whl");
  ASSERT_TRUE(wheel);
  EXPECT_EQ(wheel->version.to_string(), "2.9.0");
  EXPECT_EQ(wheel->tag_set.abis, std::vector<std::string>{"none"});
  EXPECT_EQ(strings(wheel->tags()), std::vector<std::string>{"cp313-none-macosx_11_0_arm64"});
  EXPECT_FALSE(wheel->free_threaded());
}

TEST(WheelName, CompressedTagSet) {
  const auto wheel = parse_wheel_filename("six-1.16.0-py2.py3-none-any.whl");
  ASSERT_TRUE(wheel);
  EXPECT_EQ(wheel->tag_set.to_string(), "py2.py3-none-any");
  EXPECT_EQ(strings(wheel->tags()), (std::vector<std::string>{"py2-none-any", "py3-none-any"}));
}

TEST(WheelName, BuildTagSplitsNumberAndRest) {
  const auto wheel = parse_wheel_filename("Foo_Bar-1.0-1abc-py3-none-any.whl");
  ASSERT_TRUE(wheel);
  EXPECT_EQ(wheel->distribution, "Foo_Bar");
  EXPECT_EQ(wheel->normalized_name(), "foo-bar");
  ASSERT_TRUE(wheel->build);
  EXPECT_EQ(wheel->build->number, 1u);
  EXPECT_EQ(wheel->build->tag, "abc");
  EXPECT_EQ(parse_wheel_filename("a-1.0-007-py3-none-any.whl")->build, (BuildTag{7, ""}));
  // packaging 26.3 reads the build number with re.ASCII: ARABIC-INDIC DIGIT THREE is no digit.
  EXPECT_FALSE(parse_wheel_filename("a-1.0-\xD9\xA3x-py3-none-any.whl"));
  EXPECT_EQ(parse_wheel_filename("a-1.0-123456789012345678901x-py3-none-any.whl")->build->to_string(),
            "123456789012345678901x");
  EXPECT_LT((BuildTag{2, "z"}), (BuildTag{10, "a"}));
  EXPECT_LT((BuildTag{1, ""}), (BuildTag{1, "a"}));
}

TEST(WheelName, NormalisesVersionAndName) {
  const auto wheel = parse_wheel_filename("Torch.Audio-V2.6.0_RC1-CP313-cp313-Win_AMD64.whl");
  ASSERT_TRUE(wheel);
  EXPECT_EQ(wheel->distribution, "Torch.Audio");
  EXPECT_EQ(wheel->normalized_name(), "torch-audio");
  EXPECT_EQ(wheel->version.to_string(), "2.6.0rc1");
  EXPECT_EQ(wheel->tag_set.to_string(), "cp313-cp313-win_amd64");
  EXPECT_EQ(format_wheel_filename(*wheel).value(), "torch_audio-2.6.0rc1-cp313-cp313-win_amd64.whl");
  // With a '-' the "RC1" would be a sixth part, the build tag, which must start with a digit.
  EXPECT_FALSE(parse_wheel_filename("torch-2.6.0-RC1-cp313-cp313-win_amd64.whl"));
}

TEST(WheelName, WrongExtension) {
  EXPECT_EQ(error_of("torch-2.6.0-py3-none-any.zip"),
            "invalid wheel file name 'torch-2.6.0-py3-none-any.zip': the extension must be '.whl'");
  error_of("torch-2.6.0-py3-none-any.WHL");
  error_of(".whl");
}

TEST(WheelName, WrongPartCount) {
  const auto message = error_of("torch-2.6.0-py3-any.whl");
  EXPECT_NE(message.find("'torch-2.6.0-py3-any.whl'"), std::string::npos);
  EXPECT_NE(message.find("it has 4 '-'-separated parts"), std::string::npos);
  EXPECT_NE(error_of("my-project-name-1.0-1-py3-none-any.whl").find("has 8"), std::string::npos);
}

TEST(WheelName, BadProjectNames) {
  EXPECT_NE(error_of("foo__bar-1.0-py3-none-any.whl").find("project name part 'foo__bar' contains '__'"),
            std::string::npos);
  EXPECT_NE(error_of("foo+bar-1.0-py3-none-any.whl").find("contains '+'"), std::string::npos);
  EXPECT_NE(error_of("foo bar-1.0-py3-none-any.whl").find("contains ' '"), std::string::npos);
  // re.UNICODE: letters of any script are word characters, and the name is lower-cased by Python's rules.
  const auto unicode = parse_wheel_filename("\xC3\x89t\xC3\xA9-1.0-py3-none-any.whl");
  ASSERT_TRUE(unicode);
  EXPECT_EQ(unicode->normalized_name(), "\xC3\xA9t\xC3\xA9");
  // packaging 26.3 anchors with \Z and needs one character at least (23.0 took both of these).
  EXPECT_FALSE(parse_wheel_filename("abc\n-1.0-py3-none-any.whl"));
  EXPECT_NE(error_of("-1.0-py3-none-any.whl").find("the project name part is empty"), std::string::npos);
}

TEST(WheelName, BadVersion) {
  const auto message = error_of("torch-2.6.x-py3-none-any.whl");
  EXPECT_NE(message.find("invalid wheel file name 'torch-2.6.x-py3-none-any.whl': version part '2.6.x'"),
            std::string::npos)
      << message;
  error_of("torch--py3-none-any.whl");
}

TEST(WheelName, BadBuildTag) {
  EXPECT_EQ(
      error_of("torch-2.6.0-abc-py3-none-any.whl"),
      "invalid wheel file name 'torch-2.6.0-abc-py3-none-any.whl': build tag 'abc' must start with a digit "
      "(PEP 427)");
  error_of("torch-2.6.0--py3-none-any.whl");
  // Any size, as Python's int(), up to its 4300 digits.
  EXPECT_TRUE(parse_wheel_filename("torch-2.6.0-123456789012345678901-py3-none-any.whl"));
  EXPECT_NE(
      error_of("torch-2.6.0-" + std::string(4301, '1') + "-py3-none-any.whl").find("more than 4300 digits"),
      std::string::npos);
}

TEST(WheelName, FormatsCanonicalName) {
  auto wheel = parse_wheel_filename("Foo.Bar--Baz-1.0.0-RC1+CU126-py3-none-any.whl");
  EXPECT_FALSE(wheel);  // '-' runs split the name: too many parts
  WheelName built;
  built.distribution = "Foo.Bar--Baz";
  built.version = parse_version("1.0.0-RC1+CU126").value();
  built.build = BuildTag{2, "nightly"};
  built.tag_set = parse_tag_set("cp313-cp313t-manylinux_2_28_x86_64.manylinux_2_28_aarch64").value();
  EXPECT_EQ(
      format_wheel_filename(built).value(),
      "foo_bar_baz-1.0.0rc1+cu126-2nightly-cp313-cp313t-manylinux_2_28_x86_64.manylinux_2_28_aarch64.whl");

  built.build = BuildTag{2, "a-b"};
  const auto broken = format_wheel_filename(built);
  ASSERT_FALSE(broken);
  EXPECT_NE(broken.error().message().find("cannot write a wheel file name for 'Foo.Bar--Baz'"),
            std::string::npos);
  built.build.reset();
  built.distribution = "foo+bar";
  EXPECT_FALSE(format_wheel_filename(built));
}

TEST(WheelName, RoundTripsThroughFormat) {
  for (const auto& name : {"torch-2.6.0+cu126-cp313-cp313t-manylinux_2_28_x86_64.whl",
                           "six-1.16.0-py2.py3-none-any.whl", "numpy-2.1.0-12-cp312-cp312-win_amd64.whl",
                           "a_b_c-1!2.0.post1.dev3+abc.5-cp39-abi3-macosx_10_9_universal2.whl"}) {
    const auto wheel = parse_wheel_filename(name);
    ASSERT_TRUE(wheel) << name;
    EXPECT_EQ(format_wheel_filename(*wheel).value(), name);
  }
}

}  // namespace
}  // namespace relforge::packaging
