// End to end: `relforge promote --pypi-staging DIR` through the CLI: the dry run shows the copies,
// the real run writes wheels twine and `wheel unpack` accept, a re-run changes nothing, and
// colliding PyPI variants promote nothing (exit 5).
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/channels/support.hpp"
#include "tests/support/paths.hpp"
#include "tests/support/run.hpp"

namespace relforge::test {
namespace {

namespace fs = std::filesystem;

class PromoteE2e : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(relforge("keys generate --out " + shell_quote(m_dir.path() / "keys")).exit_code, 0);
    std::string files;
    for (const std::string variant : {"cpu", "cu126", "cu130"}) {
      const auto made =
          run_shell("/usr/bin/python3 " + shell_quote(source_path("tests/channels/pypi_staging_wheel.py")) +
                    " " + shell_quote(m_dir.path() / "in") + " minitensor 2.7.0+" + variant);
      ASSERT_EQ(made.exit_code, 0) << made.err;
      files += " " + shell_quote(made.out.substr(0, made.out.size() - 1));
    }
    ASSERT_EQ(relforge("sign" + files + " --key " + shell_quote(m_dir.path() / "keys/signing.key")).exit_code,
              0);
    const auto published = relforge("publish --channel test" + store() + key() + files);
    ASSERT_EQ(published.exit_code, 0) << published.err;
  }
  // The release matrix: Python 3.12 x these accelerators, wheels as minitensor's relforge.toml names them.
  std::string matrix(const std::vector<std::string>& accels) const {
    std::string values;
    for (const auto& accel : accels) values += (values.empty() ? "\"" : ", \"") + accel + "\"";
    const fs::path config = m_dir.path() / ("relforge-" + std::to_string(accels.size()) + ".toml");
    std::ofstream(config)
        << "[project]\nname = \"minitensor\"\n[matrix]\nid = \"{python}-{accel}\"\n"
        << "[[matrix.axis]]\nname = \"python\"\nvalues = [\"3.12\"]\n"
        << "[[matrix.axis]]\nname = \"accel\"\nvalues = [" << values << "]\n"
        << "[[matrix.field]]\nname = \"python_tag\"\ntemplate = \"cp{python|nodot}\"\n"
        << "[[matrix.field]]\nname = \"abi_tag\"\ntemplate = \"cp{python|nodot}\"\n"
        << "[[matrix.field]]\nname = \"platform_tag\"\ntemplate = \"manylinux_2_28_x86_64\"\n"
        << "[[matrix.field]]\nname = \"local_version\"\ntemplate = \"{accel}\"\n";
    return " --config " + shell_quote(config);
  }
  std::string complete() const { return matrix({"cpu", "cu126", "cu130"}); }
  std::string store() const { return " --root " + shell_quote(m_dir.path() / "store"); }
  std::string key() const { return " --key " + shell_quote(m_dir.path() / "keys/signing.pub"); }
  fs::path pypi() const { return m_dir.path() / "pypi"; }
  ChannelTempDir m_dir;
};

TEST_F(PromoteE2e, PypiStagingWritesLabelFreeCopiesOfThePypiVariant) {
  const std::string staging = " --pypi-staging " + shell_quote(pypi());
  const std::string staged_name = "minitensor-2.7.0-cp312-cp312-manylinux_2_28_x86_64.whl";
  const auto dry = relforge("promote --version 2.7.0 --dry-run" + staging + store() + key() + complete());
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("pypi: would stage " + (pypi() / staged_name).string() +
                         " (from cu130/minitensor-2.7.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl)"),
            std::string::npos)
      << dry.out;
  EXPECT_FALSE(fs::exists(pypi()));

  const auto done = relforge("promote --version 2.7.0 --json" + staging + store() + key() + complete());
  ASSERT_EQ(done.exit_code, 0) << done.err;
  EXPECT_NE(done.out.find("\"state\": \"staged\""), std::string::npos) << done.out;
  ASSERT_TRUE(fs::exists(pypi() / staged_name));
  EXPECT_TRUE(fs::exists(m_dir.path() / "store/whl/cpu/minitensor"));  // every variant was promoted
  const auto twine =
      run_shell("/usr/bin/python3 -m twine check --strict " + shell_quote(pypi() / staged_name) + " 2>&1");
  EXPECT_EQ(twine.exit_code, 0) << twine.out;
  const auto unpack =
      run_shell("/usr/bin/python3 -m wheel unpack -d " + shell_quote(m_dir.path() / "unpacked") + " " +
                shell_quote(pypi() / staged_name));
  EXPECT_EQ(unpack.exit_code, 0) << unpack.out << unpack.err;
  EXPECT_TRUE(fs::exists(m_dir.path() / "unpacked/minitensor-2.7.0/minitensor-2.7.0.dist-info/METADATA"));

  const auto again = relforge("promote --version 2.7.0" + staging + store() + key() + complete());
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("pypi: unchanged " + (pypi() / staged_name).string()), std::string::npos)
      << again.out;
}

TEST_F(PromoteE2e, CollidingPypiVariantsAreRefusedBeforeAnythingIsPromoted) {
  const auto clash =
      relforge("promote --version 2.7.0 --pypi-variant cpu --pypi-variant cu130 --pypi-staging " +
               shell_quote(pypi()) + store() + key() + complete());
  EXPECT_EQ(clash.exit_code, 5) << clash.err;
  EXPECT_NE(clash.err.find("collide"), std::string::npos) << clash.err;
  EXPECT_TRUE(clash.out.empty());
  EXPECT_FALSE(fs::exists(m_dir.path() / "store/whl/cpu"));
  EXPECT_FALSE(fs::exists(pypi()));

  const auto absent = relforge("promote --version 2.7.0 --pypi-variant xpu --pypi-staging " +
                               shell_quote(pypi()) + store() + key() + complete());
  EXPECT_EQ(absent.exit_code, 3) << absent.err;
  EXPECT_NE(absent.err.find("xpu"), std::string::npos) << absent.err;
}

TEST_F(PromoteE2e, ACompleteReleaseIsPromotedAndSaysSo) {
  const auto done = relforge("promote --version 2.7.0" + store() + key() + complete());
  ASSERT_EQ(done.exit_code, 0) << done.err;
  EXPECT_NE(
      done.out.find("complete: all 3 cells of the release matrix are present, signed and hash-verified"),
      std::string::npos)
      << done.out;
  for (const std::string variant : {"cpu", "cu126", "cu130"})
    EXPECT_TRUE(fs::exists(m_dir.path() / "store/whl" / variant / "minitensor")) << variant;
  const auto json = relforge("promote --version 2.7.0 --json" + store() + key() + complete());
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(json.out.find("\"cells_checked\": 3"), std::string::npos) << json.out;
}

TEST_F(PromoteE2e, AMissingCellPromotesNothingAndNamesTheCell) {
  const auto refused =
      relforge("promote --version 2.7.0" + store() + key() + matrix({"cpu", "cu126", "cu130", "rocm7.2"}));
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("(3 of 4 cells ready)"), std::string::npos) << refused.err;
  EXPECT_NE(
      refused.err.find("cell 3.12-rocm7.2: minitensor-2.7.0+rocm7.2-cp312-cp312-manylinux_2_28_x86_64.whl "
                       "is not in the test channel"),
      std::string::npos)
      << refused.err;
  EXPECT_FALSE(fs::exists(m_dir.path() / "store/whl/cpu"));
  // The dry run refuses too: the plan of an incomplete release is not a plan.
  EXPECT_EQ(relforge("promote --dry-run --version 2.7.0" + store() + key() +
                     matrix({"cpu", "cu126", "cu130", "rocm7.2"}))
                .exit_code,
            2);
}

TEST_F(PromoteE2e, AnUnsignedCellAndAFileOutsideTheMatrixAreBlockers) {
  const auto made =
      run_shell("/usr/bin/python3 " + shell_quote(source_path("tests/channels/pypi_staging_wheel.py")) + " " +
                shell_quote(m_dir.path() / "in") + " minitensor 2.7.0+xpu");
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const auto unsigned_publish = relforge("publish --channel test --allow-unsigned" + store() + " " +
                                         shell_quote(made.out.substr(0, made.out.size() - 1)));
  ASSERT_EQ(unsigned_publish.exit_code, 0) << unsigned_publish.err;
  const auto refused =
      relforge("promote --version 2.7.0" + store() + key() + matrix({"cpu", "cu126", "xpu"}));
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(
      refused.err.find("cell 3.12-xpu: xpu/minitensor-2.7.0+xpu-cp312-cp312-manylinux_2_28_x86_64.whl is not "
                       "signed"),
      std::string::npos)
      << refused.err;
  EXPECT_NE(
      refused.err.find("cu130/minitensor-2.7.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl is no cell of the "
                       "release matrix"),
      std::string::npos)
      << refused.err;
  EXPECT_FALSE(fs::exists(m_dir.path() / "store/whl/cpu"));
}

TEST_F(PromoteE2e, StableWithoutAMatrixAsksForOneAndNoCompleteSkipsTheCheck) {
  const auto refused =
      run_shell("cd " + shell_quote(m_dir.path()) + " && " + shell_quote(relforge::test::relforge_binary()) +
                " promote --version 2.7.0" + store() + key());
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("pass --config relforge.toml, or --no-complete"), std::string::npos)
      << refused.err;
  EXPECT_FALSE(fs::exists(m_dir.path() / "store/whl/cpu"));
  // Found from a subfolder when no --config names it.
  (void)complete();
  fs::copy_file(m_dir.path() / "relforge-3.toml", m_dir.path() / "relforge.toml");
  fs::create_directories(m_dir.path() / "sub/dir");
  const auto found = run_shell("cd " + shell_quote(m_dir.path() / "sub/dir") + " && " +
                               shell_quote(relforge::test::relforge_binary()) +
                               " promote --dry-run --version 2.7.0" + store() + key());
  EXPECT_EQ(found.exit_code, 0) << found.err;
  EXPECT_EQ(relforge("promote --no-complete --version 2.7.0" + store() + key()).exit_code, 0);
  // --complete and --no-complete exclude each other.
  EXPECT_EQ(relforge("promote --complete --no-complete --version 2.7.0" + store() + key()).exit_code, 2);
}

}  // namespace
}  // namespace relforge::test
