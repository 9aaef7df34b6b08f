// `release status X.Y --store DIR` through the real binary: real wheels for three of the release
// matrix's four cells are signed and published to test; status names every cell, and the missing
// wheel and the missing promotions as blockers, in text and --json.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/channels/support.hpp"
#include "tests/release/repo_fixture.hpp"
#include "tests/support/paths.hpp"
#include "tests/support/run.hpp"

namespace relforge::test {
namespace {

namespace fs = std::filesystem;

TEST(ReleaseStatusBuilds, CellsArePublishedSignedAndPromotedOrBlockers) {
  ChannelTempDir dir;
  ASSERT_EQ(relforge("keys generate --out " + shell_quote(dir.path() / "keys")).exit_code, 0);
  std::string files;
  for (const std::string variant : {"cpu", "cu126", "cu130"}) {
    const auto made =
        run_shell("/usr/bin/python3 " + shell_quote(source_path("tests/channels/pypi_staging_wheel.py")) +
                  " " + shell_quote(dir.path() / "in") + " minitensor 2.7.0+" + variant);
    ASSERT_EQ(made.exit_code, 0) << made.err;
    files += " " + shell_quote(made.out.substr(0, made.out.size() - 1));
  }
  ASSERT_EQ(relforge("sign" + files + " --key " + shell_quote(dir.path() / "keys/signing.key")).exit_code, 0);
  const std::string store = shell_quote(dir.path() / "store");
  const auto published = relforge("publish --channel test --root " + store + " --key " +
                                  shell_quote(dir.path() / "keys/signing.pub") + files);
  ASSERT_EQ(published.exit_code, 0) << published.err;

  TempRepo temp;
  temp.seed_project();
  temp.write("relforge.toml",
             temp.read("relforge.toml") +
                 "\n[project]\nname = \"minitensor\"\n[matrix]\nid = \"{python}-{accel}\"\n"
                 "[[matrix.axis]]\nname = \"python\"\nvalues = [\"3.12\"]\n"
                 "[[matrix.axis]]\nname = \"accel\"\nvalues = [\"cpu\", \"cu126\", \"cu130\", \"rocm7.2\"]\n"
                 "[[matrix.field]]\nname = \"python_tag\"\ntemplate = \"cp{python|nodot}\"\n"
                 "[[matrix.field]]\nname = \"abi_tag\"\ntemplate = \"cp{python|nodot}\"\n"
                 "[[matrix.field]]\nname = \"platform_tag\"\ntemplate = \"manylinux_2_28_x86_64\"\n"
                 "[[matrix.field]]\nname = \"local_version\"\ntemplate = \"{accel}\"\n");
  temp.commit_all("Release matrix");
  const auto in_repo = [&](const std::string& args) {
    return run_shell("cd " + shell_quote(temp.work) + " && env -u GITHUB_REF -u GITHUB_BASE_REF " +
                     shell_quote(relforge::test::relforge_binary()) + " " + args);
  };
  ASSERT_EQ(in_repo("release cut 2.7").exit_code, 0);

  const auto before_rc = in_repo("release status 2.7 --store " + store);
  ASSERT_EQ(before_rc.exit_code, 0) << before_rc.err;
  EXPECT_NE(before_rc.out.find("no RC is tagged yet"), std::string::npos) << before_rc.out;

  const auto rc = in_repo("release rc 2.7");
  ASSERT_EQ(rc.exit_code, 0) << rc.err;
  const auto text = in_repo("release status 2.7 --store " + store);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("builds   2.7.0 from v2.7.0-rc1"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("3.12-cpu  test=yes signed=yes stable=no  "
                          "minitensor-2.7.0+cpu-cp312-cp312-manylinux_2_28_x86_64.whl"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("3.12-rocm7.2  test=no signed=no stable=no"), std::string::npos) << text.out;
  EXPECT_NE(
      text.out.find("3.12-rocm7.2: minitensor-2.7.0+rocm7.2-cp312-cp312-manylinux_2_28_x86_64.whl is not "
                    "published to the test channel"),
      std::string::npos)
      << text.out;

  const auto json_run = in_repo("release status 2.7 --json --store " + store);
  ASSERT_EQ(json_run.exit_code, 0) << json_run.err;
  const auto json = nlohmann::json::parse(json_run.out, nullptr, false);
  ASSERT_FALSE(json.is_discarded()) << json_run.out;
  const auto& builds = json["builds"];
  EXPECT_EQ(builds["rc"], "v2.7.0-rc1");
  ASSERT_EQ(builds["cells"].size(), 4u);
  EXPECT_EQ(builds["cells"][1]["signed"], true);
  EXPECT_EQ(builds["cells"][3]["published"], false);
  EXPECT_EQ(builds["blockers"].size(), 5u);  // rocm7.2 unpublished, and four cells not on stable

  const auto missing = in_repo("release status 2.7 --store " + shell_quote(dir.path() / "nowhere"));
  EXPECT_EQ(missing.exit_code, 4) << missing.err;
  EXPECT_NE(missing.err.find("no channel store at"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace relforge::test
