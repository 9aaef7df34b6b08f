// `relforge wheel parse` and `relforge wheel tags` through the real binary: text and JSON output,
// and bad input (message on stderr, nothing on stdout, exit code 2).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/e2e.hpp"
#include "tests/support/run.hpp"

namespace {

using relforge::test::relforge;
using relforge::test::RunResult;
using relforge::test::shell_quote;
using Json = nlohmann::json;

const std::string k_torch = "torch-2.6.0+cu126-cp313-cp313t-manylinux_2_28_x86_64.whl";
const std::string k_mac = "torch-2.9.0-cp313-none-macosx_11_0_arm64.whl";

void expect_usage_error(const RunResult& result, const std::string& message) {
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.out, "");
  EXPECT_NE(result.err.find(message), std::string::npos) << result.err;
}

TEST(WheelCli, ParsesFreeThreadedTorchAsText) {
  const auto result = relforge("wheel parse " + shell_quote(k_torch));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, k_torch +
                            "\n"
                            "  name:          torch (normalized: torch)\n"
                            "  version:       2.6.0+cu126\n"
                            "  build:         none\n"
                            "  tags:          cp313-cp313t-manylinux_2_28_x86_64\n"
                            "  free-threaded: yes\n");
}

TEST(WheelCli, JsonHasOneObjectPerFile) {
  const auto json = parse_json(relforge("wheel parse --json " + shell_quote(k_torch) + " " +
                                        shell_quote(k_mac) + " dist/Foo.Bar-1.0-1abc-py2.py3-none-any.whl"));
  ASSERT_TRUE(json.is_array());
  ASSERT_EQ(json.size(), 3u);

  const auto& torch = json[0];
  EXPECT_EQ(torch["filename"], k_torch);
  EXPECT_EQ(torch["name"], "torch");
  EXPECT_EQ(torch["normalized_name"], "torch");
  EXPECT_EQ(torch["version"], "2.6.0+cu126");
  EXPECT_TRUE(torch["build"].is_null());
  EXPECT_EQ(torch["tags"], Json({"cp313-cp313t-manylinux_2_28_x86_64"}));
  EXPECT_EQ(torch["interpreters"], Json({"cp313"}));
  EXPECT_EQ(torch["abis"], Json({"cp313t"}));
  EXPECT_EQ(torch["platforms"], Json({"manylinux_2_28_x86_64"}));
  EXPECT_EQ(torch["free_threaded"], true);

  EXPECT_EQ(json[1]["abis"], Json({"none"}));
  EXPECT_EQ(json[1]["free_threaded"], false);

  const auto& foo = json[2];
  EXPECT_EQ(foo["filename"], "Foo.Bar-1.0-1abc-py2.py3-none-any.whl");  // the directory is not part of it
  EXPECT_EQ(foo["name"], "Foo.Bar");
  EXPECT_EQ(foo["normalized_name"], "foo-bar");
  EXPECT_EQ(foo["build"], Json({{"number", 1}, {"tag", "abc"}}));
  EXPECT_EQ(foo["tags"], Json({"py2-none-any", "py3-none-any"}));
  EXPECT_EQ(foo["canonical_filename"], "foo_bar-1.0-1abc-py2.py3-none-any.whl");
}

TEST(WheelCli, NormalisesVersionInOutput) {
  const auto json =
      parse_json(relforge("wheel parse --json Torch_Audio-V2.6.0_RC1+CU126-CP313-CP313-WIN_AMD64.whl"));
  ASSERT_EQ(json.size(), 1u);
  EXPECT_EQ(json[0]["version"], "2.6.0rc1+cu126");
  EXPECT_EQ(json[0]["tags"], Json({"cp313-cp313-win_amd64"}));
  EXPECT_EQ(json[0]["canonical_filename"], "torch_audio-2.6.0rc1+cu126-cp313-cp313-win_amd64.whl");
}

TEST(WheelCli, BadNamesExitTwoWithTheReason) {
  expect_usage_error(
      relforge("wheel parse torch-2.6.0-py3-none-any.zip"),
      "relforge: error: invalid wheel file name 'torch-2.6.0-py3-none-any.zip': the extension must be "
      "'.whl'");
  expect_usage_error(relforge("wheel parse torch-2.6.0-any.whl"), "it has 3 '-'-separated parts");
  expect_usage_error(relforge("wheel parse torch-2.6.x-py3-none-any.whl"), "version part '2.6.x'");
  expect_usage_error(relforge("wheel parse foo__bar-1.0-py3-none-any.whl"), "contains '__'");
  expect_usage_error(relforge("wheel parse torch-2.6.0-abc-py3-none-any.whl"),
                     "build tag 'abc' must start with a digit");
}

TEST(WheelCli, EveryBadNameIsReportedAndStdoutStaysClean) {
  const auto result = relforge("wheel parse " + shell_quote(k_torch) + " a.zip b-1.0-x-py3-none-any.whl");
  expect_usage_error(result, "2 of 3 wheel file names are invalid:");
  EXPECT_NE(result.err.find("'a.zip'"), std::string::npos);
  EXPECT_NE(result.err.find("build tag 'x'"), std::string::npos);
}

TEST(WheelCli, JsonErrorsGoToStderr) {
  const auto result = relforge("wheel parse --json torch-2.6.0-abc-py3-none-any.whl");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.out, "");
  const auto error = Json::parse(result.err, nullptr, false);
  ASSERT_TRUE(error.is_object()) << result.err;
  EXPECT_EQ(error["error"]["category"], "invalid_input");
  EXPECT_EQ(error["error"]["exit_code"], 2);
}

TEST(WheelCli, StrictRejectsTagsPipNeverSelects) {
  const std::string lenient = "x-1.0-cp313t-cp313t-win_amd64.whl";
  EXPECT_EQ(relforge("wheel parse " + lenient).exit_code, 0);  // packaging accepts it, so parse does
  expect_usage_error(relforge("wheel parse --strict " + lenient),
                     "use interpreter 'cp313' with ABI 'cp313t'");
  EXPECT_EQ(relforge("wheel parse --strict " + shell_quote(k_torch) + " " + shell_quote(k_mac)).exit_code, 0);
}

TEST(WheelCli, TagsExpandsACompressedSet) {
  const auto result = relforge("wheel tags py2.py3-none-any");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "py2-none-any\npy3-none-any\n");

  const auto json =
      parse_json(relforge("wheel tags --json cp313-cp313t-manylinux_2_17_x86_64.manylinux2014_x86_64"));
  EXPECT_EQ(json["tags"], Json({"cp313-cp313t-manylinux_2_17_x86_64", "cp313-cp313t-manylinux2014_x86_64"}));
  ASSERT_EQ(json["details"].size(), 2u);
  for (const auto& detail : json["details"]) {
    EXPECT_EQ(detail["free_threaded"], true);
    EXPECT_EQ(detail["cpython"], "3.13");
    EXPECT_EQ(detail["glibc"], "2.17");  // manylinux2014 is the PEP 599 alias of manylinux_2_17
    EXPECT_EQ(detail["platform_info"]["kind"], "manylinux");
  }
}

TEST(WheelCli, TagsRejectsBadSets) {
  expect_usage_error(relforge("wheel tags py3-none"), "has 2 '-'-separated parts; expected 3");
  expect_usage_error(relforge("wheel tags --strict cp313-abi3-anny"), "did you mean 'any'?");
  expect_usage_error(relforge("wheel tags --strict cp312-cp313t-manylinux_2_28_x86_64"),
                     "ABI 'cp313t' needs interpreter 'cp313'");
  EXPECT_EQ(relforge("wheel tags").exit_code, 2);  // missing argument: a usage error
  EXPECT_EQ(relforge("wheel parse").exit_code, 2);
}

TEST(WheelCli, TagsForATargetInterpreter) {
  const auto result = relforge("wheel tags --python 3.13t --platform manylinux_2_28_x86_64");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(result.out.starts_with("cp313-cp313t-linux_x86_64\ncp313-cp313t-manylinux_2_28_x86_64\n"));
  EXPECT_NE(result.out.find("cp313-abi3t-manylinux2014_x86_64\n"), std::string::npos);
  EXPECT_EQ(result.out.find("-abi3-"), std::string::npos);  // free-threaded: abi3t, never abi3
  EXPECT_TRUE(result.out.ends_with("py31-none-any\npy30-none-any\n"));

  const auto json = parse_json(relforge("wheel tags --json --python 3.12 --platform macosx_14_0_arm64"));
  EXPECT_EQ(json["python"], "3.12");
  EXPECT_EQ(json["platforms"][1], "macosx_14_0_universal2");
  EXPECT_EQ(json["tags"][0], "cp312-cp312-macosx_14_0_arm64");

  expect_usage_error(relforge("wheel tags --python 3.13 --platform 'win amd64'"), "is not of the form");
  expect_usage_error(relforge("wheel tags --python 3.12t --platform win_amd64"),
                     "free-threaded CPython starts at 3.13");
  EXPECT_EQ(relforge("wheel tags --python 3.13").exit_code, 2);  // needs --platform
  EXPECT_EQ(relforge("wheel tags py3-none-any --python 3.13 --platform win_amd64").exit_code, 2);  // one form
}

TEST(WheelCli, BestPicksWhatPipWouldInstall) {
  const std::string files =
      "torch-2.6.0-cp313-cp313t-manylinux_2_28_x86_64.whl torch-2.6.0-cp313-cp313-manylinux_2_28_x86_64.whl "
      "torch-2.6.0-cp313-abi3t-manylinux_2_17_x86_64.manylinux2014_x86_64.whl "
      "torch-2.5.0-cp313-cp313t-manylinux_2_28_x86_64.whl "
      "torch-2.7.0rc1-cp313-cp313t-manylinux_2_28_x86_64.whl "
      "torch-2.6.0-py3-none-any.whl torch-2.8.0-cp313-cp313t-manylinux_2_34_x86_64.whl";
  const auto result = relforge("wheel best --python 3.13t --platform manylinux_2_28_x86_64 " + files);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  // 2.8.0 needs glibc 2.34 and 2.7.0rc1 is a pre-release: 2.6.0 wins, in its best-ranked tag.
  EXPECT_EQ(result.out, "torch-2.6.0-cp313-cp313t-manylinux_2_28_x86_64.whl\n");
  EXPECT_EQ(relforge("wheel best --pre --python 3.13t --platform manylinux_2_28_x86_64 " + files).out,
            "torch-2.7.0rc1-cp313-cp313t-manylinux_2_28_x86_64.whl\n");

  const auto json = parse_json(relforge("wheel best --json --python 3.13 --platform win_amd64 " + files +
                                        " numpy-2.0-cp313-cp313-win_amd64.whl"));
  ASSERT_EQ(json.size(), 2u);
  EXPECT_EQ(json[0]["project"], "torch");
  EXPECT_EQ(json[0]["chosen"], "torch-2.6.0-py3-none-any.whl");
  EXPECT_EQ(json[1]["chosen"], "numpy-2.0-cp313-cp313-win_amd64.whl");
  EXPECT_EQ(json[0]["candidates"][0]["compatible"], false);

  const auto none = relforge(
      "wheel best --python 3.13 --platform win_amd64 torch-2.6.0-cp313-cp313-manylinux_2_28_x86_64.whl");
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_EQ(none.out, "");
  EXPECT_NE(none.err.find("no file of torch is compatible"), std::string::npos);
  expect_usage_error(relforge("wheel best --python 3.13 --platform win_amd64 torch-2.6-x.whl"),
                     "wheel file name");
}

}  // namespace
