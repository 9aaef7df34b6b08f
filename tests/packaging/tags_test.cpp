#include "packaging/tags.hpp"

#include <gtest/gtest.h>

namespace relforge::packaging {
namespace {

std::vector<std::string> strings(const std::vector<Tag>& tags) {
  std::vector<std::string> out;
  for (const auto& tag : tags) out.push_back(tag.to_string());
  return out;
}

std::string error_of(const Status& status) {
  return status ? "" : status.error().message();
}

TEST(Tags, ExpandsCompressedSetInProductOrder) {
  const auto tags = parse_tag("py2.py3-none-any");
  ASSERT_TRUE(tags);
  EXPECT_EQ(strings(*tags), (std::vector<std::string>{"py2-none-any", "py3-none-any"}));

  const auto many = parse_tag("cp313-cp313.cp313t-manylinux_2_17_x86_64.manylinux2014_x86_64");
  ASSERT_TRUE(many);
  EXPECT_EQ(strings(*many), (std::vector<std::string>{
                                "cp313-cp313-manylinux_2_17_x86_64", "cp313-cp313-manylinux2014_x86_64",
                                "cp313-cp313t-manylinux_2_17_x86_64", "cp313-cp313t-manylinux2014_x86_64"}));
}

TEST(Tags, LowerCasesAndDropsRepeatsLikePackaging) {
  const auto tags = parse_tag("PY3.py3-NONE-Any");
  ASSERT_TRUE(tags);
  EXPECT_EQ(strings(*tags), std::vector<std::string>{"py3-none-any"});
  // packaging 26.3 refuses empty values (23.0 took "py3.-none-any" as py3 and "").
  const auto empty = parse_tag("py3.-none-any");
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().message().find("has an empty value in 'py3.'"), std::string::npos);
  EXPECT_FALSE(parse_tag("py3-none-"));
  EXPECT_FALSE(parse_tag("py3--any"));
  // ... and interpreters that are not identifiers.
  EXPECT_FALSE(parse_tag("3py-none-any"));
  EXPECT_FALSE(parse_tag("py+3-none-any"));
  EXPECT_TRUE(parse_tag("_py3-none-any"));
  EXPECT_TRUE(parse_tag("\xC3\xA9py-none-any"));  // letters of any script
  EXPECT_TRUE(parse_tag("py3-\xC3\xA9-+"));       // only the interpreter is checked
}

TEST(Tags, RejectsWrongPartCount) {
  const auto two = parse_tag("py3-none");
  ASSERT_FALSE(two);
  EXPECT_EQ(two.error().category(), ErrorCategory::invalid_input);
  EXPECT_NE(two.error().message().find("has 2 '-'-separated parts; expected 3"), std::string::npos);
  EXPECT_FALSE(parse_tag("a-b-c-d"));
}

TEST(Tags, FormatsAndCompressesBack) {
  const auto set = parse_tag_set("cp313-cp313t-manylinux_2_28_x86_64.manylinux_2_28_aarch64");
  ASSERT_TRUE(set);
  EXPECT_EQ(set->to_string(), "cp313-cp313t-manylinux_2_28_x86_64.manylinux_2_28_aarch64");
  const auto again = compress_tags(set->expand());
  ASSERT_TRUE(again);
  EXPECT_EQ(*again, *set);

  const auto not_product = compress_tags({{"cp312", "cp312", "win_amd64"}, {"cp313", "cp313", "win_amd64"}});
  ASSERT_FALSE(not_product);
  EXPECT_NE(not_product.error().message().find("not every combination of cp312.cp313-cp312.cp313-win_amd64"),
            std::string::npos);
  EXPECT_FALSE(compress_tags({}));
}

TEST(Tags, InterpreterTags) {
  const auto cp = parse_interpreter_tag("cp313");
  ASSERT_TRUE(cp);
  EXPECT_EQ(cp->implementation, "cp");
  EXPECT_EQ(cp->python->to_string(), "3.13");
  EXPECT_EQ(parse_interpreter_tag("py3")->python->to_string(), "3");
  EXPECT_EQ(parse_interpreter_tag("pp310")->python->to_string(), "3.10");

  const auto threaded = parse_interpreter_tag("cp313t");
  ASSERT_FALSE(threaded);
  EXPECT_NE(threaded.error().message().find("use interpreter 'cp313' with ABI 'cp313t'"), std::string::npos);
  EXPECT_FALSE(parse_interpreter_tag("xx313"));
  EXPECT_FALSE(parse_interpreter_tag("cp"));
  EXPECT_FALSE(parse_interpreter_tag("cp3x"));
}

TEST(Tags, AbiTags) {
  EXPECT_EQ(parse_abi_tag("none")->kind, AbiKind::none);
  EXPECT_EQ(parse_abi_tag("abi3")->kind, AbiKind::abi3);
  const auto threaded = parse_abi_tag("cp313t");
  ASSERT_TRUE(threaded);
  EXPECT_EQ(threaded->kind, AbiKind::cpython);
  EXPECT_TRUE(threaded->free_threaded());
  EXPECT_EQ(threaded->python->to_string(), "3.13");
  EXPECT_FALSE(parse_abi_tag("cp313")->free_threaded());
  EXPECT_EQ(parse_abi_tag("cp37m")->flags, "m");
  EXPECT_EQ(parse_abi_tag("pypy310_pp73")->kind, AbiKind::other);
  EXPECT_FALSE(parse_abi_tag("cp313x"));
  EXPECT_FALSE(parse_abi_tag("cp313tt"));
  const auto typo = parse_abi_tag("nnoe");
  ASSERT_FALSE(typo);
  EXPECT_NE(typo.error().message().find("did you mean 'none'?"), std::string::npos);
}

TEST(Tags, PlatformTags) {
  const auto many = parse_platform_tag("manylinux_2_28_x86_64");
  ASSERT_TRUE(many);
  EXPECT_EQ(many->kind, PlatformKind::manylinux);
  EXPECT_EQ(many->arch, "x86_64");
  EXPECT_EQ(many->version->to_string(), "2.28");
  EXPECT_TRUE(many->legacy_alias.empty());

  const auto mac = parse_platform_tag("macosx_11_0_arm64");
  ASSERT_TRUE(mac);
  EXPECT_EQ(mac->kind, PlatformKind::macos);
  EXPECT_EQ(mac->arch, "arm64");
  EXPECT_EQ(mac->version->to_string(), "11.0");
  EXPECT_EQ(parse_platform_tag("macosx_10_9_universal2")->arch, "universal2");

  const auto musl = parse_platform_tag("musllinux_1_2_aarch64");
  ASSERT_TRUE(musl);
  EXPECT_EQ(musl->kind, PlatformKind::musllinux);
  EXPECT_EQ(musl->version->to_string(), "1.2");

  EXPECT_EQ(parse_platform_tag("any")->kind, PlatformKind::any);
  EXPECT_EQ(parse_platform_tag("linux_x86_64")->kind, PlatformKind::generic_linux);
  EXPECT_EQ(parse_platform_tag("win32")->arch, "x86");
  EXPECT_EQ(parse_platform_tag("win_amd64")->arch, "amd64");
  EXPECT_EQ(parse_platform_tag("win_arm64")->kind, PlatformKind::windows);
}

TEST(Tags, LegacyManylinuxAliases) {
  for (const auto& [tag, glibc] : std::vector<std::pair<std::string, std::string>>{
           {"manylinux1_x86_64", "2.5"}, {"manylinux2010_i686", "2.12"}, {"manylinux2014_aarch64", "2.17"}}) {
    const auto parsed = parse_platform_tag(tag);
    ASSERT_TRUE(parsed) << tag;
    EXPECT_EQ(parsed->kind, PlatformKind::manylinux);
    EXPECT_EQ(parsed->version->to_string(), glibc) << tag;
    EXPECT_EQ(parsed->legacy_alias, tag.substr(0, tag.find('_')));
  }
  // manylinux1 was only ever defined for x86_64 and i686.
  const auto wrong = parse_platform_tag("manylinux1_aarch64");
  ASSERT_FALSE(wrong);
  EXPECT_NE(wrong.error().message().find("unknown manylinux1 architecture 'aarch64'"), std::string::npos);
}

TEST(Tags, BadPlatformTagsSayWhatIsExpected) {
  const auto arch = parse_platform_tag("manylinux_2_28_x86_46");
  ASSERT_FALSE(arch);
  EXPECT_NE(arch.error().message().find("did you mean 'x86_64'?"), std::string::npos);
  const auto form = parse_platform_tag("manylinux_228_x86_64");
  ASSERT_FALSE(form);
  EXPECT_NE(form.error().message().find("manylinux_MAJOR_MINOR_ARCH"), std::string::npos);
  const auto unknown = parse_platform_tag("win_amd46");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message().find("did you mean 'win_amd64'?"), std::string::npos);
  EXPECT_FALSE(parse_platform_tag("macosx_11_0_sparc"));
  EXPECT_FALSE(parse_platform_tag("linux"));
}

TEST(Tags, ValidateAcceptsRealWheels) {
  for (const auto& text : {"cp313-cp313t-manylinux_2_28_x86_64", "cp313-none-macosx_11_0_arm64",
                           "py3-none-any", "cp39-abi3-win_amd64", "cp313-cp313-win_arm64", "cp312-none-any",
                           "cp310-cp310-macosx_10_9_universal2", "pp310-pypy310_pp73-manylinux2014_x86_64"}) {
    const auto tags = parse_tag(text);
    ASSERT_TRUE(tags);
    EXPECT_EQ(error_of(validate_tag(tags->front())), "") << text;
  }
}

TEST(Tags, ValidateRejectsTagsPipNeverSelects) {
  const std::vector<std::pair<Tag, std::string>> cases = {
      {{"cp312", "cp313t", "win_amd64"}, "needs interpreter 'cp313'"},
      {{"cp312", "cp312t", "win_amd64"}, "start with cp313t"},
      {{"py3", "abi3", "win_amd64"}, "goes with ABI 'none'"},
      {{"pp310", "abi3", "win_amd64"}, "abi3 needs a CPython 3"},
      {{"cp313", "cp313", "any"}, "concrete platform"},
      {{"cp313", "none", "macosx_11_1_arm64"}, "use macosx_11_0_arm64"},
      {{"cp313", "none", "macosx_10_15_arm64"}, "arm64 macOS starts at 11.0"},
      {{"cp313t", "cp313t", "win_amd64"}, "free-threading is marked in the ABI tag"},
  };
  for (const auto& [tag, message] : cases) {
    const auto error = error_of(validate_tag(tag));
    EXPECT_NE(error.find(message), std::string::npos) << tag.to_string() << ": " << error;
    EXPECT_EQ(error.rfind("tag '" + tag.to_string() + "': ", 0), 0u) << error;
  }
}

TEST(Tags, Helpers) {
  EXPECT_TRUE(is_free_threaded({"cp313", "cp313t", "manylinux_2_28_x86_64"}));
  EXPECT_FALSE(is_free_threaded({"cp313", "cp313", "manylinux_2_28_x86_64"}));
  EXPECT_FALSE(is_free_threaded({"cp313", "abi3", "manylinux_2_28_x86_64"}));
  EXPECT_EQ(cpython_version("cp313t")->to_string(), "3.13");
  EXPECT_EQ(cpython_version("cp39")->to_string(), "3.9");
  EXPECT_EQ(cpython_version("py3"), std::nullopt);
  EXPECT_EQ(cpython_version("abi3"), std::nullopt);
  EXPECT_EQ(glibc_version("manylinux_2_28_aarch64")->to_string(), "2.28");
  EXPECT_EQ(glibc_version("manylinux2014_x86_64")->to_string(), "2.17");
  EXPECT_EQ(glibc_version("manylinux1_i686")->to_string(), "2.5");
  EXPECT_EQ(glibc_version("musllinux_1_2_x86_64"), std::nullopt);
  EXPECT_EQ(glibc_version("win_amd64"), std::nullopt);
}

}  // namespace
}  // namespace relforge::packaging
