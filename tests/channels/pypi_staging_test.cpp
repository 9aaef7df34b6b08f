#include "channels/pypi_staging.hpp"

#include <gtest/gtest.h>

#include "channels/maintain.hpp"
#include "platform/digest.hpp"
#include "platform/fs.hpp"
#include "tests/channels/support.hpp"

namespace relforge::channels {
namespace {

namespace fs = std::filesystem;
using test::run_shell;
using test::shell_quote;

constexpr const char* k_linux_tag = "cp312-cp312-manylinux_2_28_x86_64";

// A wheel twine accepts (long description and all), written by pypi_staging_wheel.py.
fs::path pypi_wheel(const fs::path& dir, const std::string& version, const std::string& tag = k_linux_tag) {
  const auto result = run_shell(
      "/usr/bin/python3 " + shell_quote(test::source_path("tests/channels/pypi_staging_wheel.py").string()) +
      " " + shell_quote(dir.string()) + " minitensor " + shell_quote(version) + " " + tag);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  std::string path = result.out;
  while (!path.empty() && path.back() == '\n') path.pop_back();
  return path;
}

StoredFile stored(const std::string& variant, const fs::path& wheel) {
  StoredFile file;
  file.variant = variant;
  file.info.filename = wheel.filename().string();
  file.path = wheel;
  return file;
}

std::string python(const std::string& code) {
  const auto result = run_shell("/usr/bin/python3 -c " + shell_quote(code));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return result.out;
}

TEST(PypiStaging, FileNamesLoseOnlyTheLocalLabel) {
  EXPECT_EQ(pypi_filename("mini-2.7.0+cu130-py3-none-any.whl").value(), "mini-2.7.0-py3-none-any.whl");
  EXPECT_EQ(pypi_filename("torch-2.6.0rc1+cu126.x-cp313-cp313t-manylinux_2_28_x86_64.whl").value(),
            "torch-2.6.0rc1-cp313-cp313t-manylinux_2_28_x86_64.whl");
  EXPECT_EQ(pypi_filename("mini-1.0-2-py3-none-any.whl").value(), "mini-1.0-2-py3-none-any.whl");
  EXPECT_FALSE(pypi_filename("not-a-wheel.tar.gz"));
}

TEST(PypiStaging, PlanTakesOnlyThePypiVariantsAndRefusesCollisions) {
  const std::vector<StoredFile> files = {
      stored("cpu", "/s/whl/cpu/minitensor/minitensor-2.7.0+cpu-cp312-cp312-manylinux_2_28_x86_64.whl"),
      stored("cpu", "/s/whl/cpu/minitensor/minitensor-2.7.0+cpu-cp312-cp312-win_amd64.whl"),
      stored("cu130",
             "/s/whl/cu130/minitensor/minitensor-2.7.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl")};
  const auto plan = plan_pypi_staging(files, {"cu130"}, "/out");
  ASSERT_TRUE(plan) << plan.error().describe();
  ASSERT_EQ(plan->size(), 1U);
  EXPECT_EQ((*plan)[0].filename, "minitensor-2.7.0-cp312-cp312-manylinux_2_28_x86_64.whl");
  EXPECT_EQ((*plan)[0].target, fs::path("/out/minitensor-2.7.0-cp312-cp312-manylinux_2_28_x86_64.whl"));
  EXPECT_EQ((*plan)[0].state, StagingState::planned);

  const auto clash = plan_pypi_staging(files, {"cpu", "cu130"}, "/out");
  ASSERT_FALSE(clash);
  EXPECT_EQ(clash.error().category(), ErrorCategory::conflict);
  const auto message = clash.error().message();
  EXPECT_NE(message.find("cpu/minitensor-2.7.0+cpu-cp312-cp312-manylinux_2_28_x86_64.whl"), std::string::npos)
      << message;
  EXPECT_NE(message.find("cu130/minitensor-2.7.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl"),
            std::string::npos)
      << message;

  const auto none = plan_pypi_staging(files, {"rocm7.2"}, "/out");
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().category(), ErrorCategory::nothing_selected);
}

TEST(PypiStaging, TheCopyPassesWheelUnpackTwineAndPackagingAndARerunChangesNothing) {
  test::ChannelTempDir dir;
  const auto source = pypi_wheel(dir.path() / "in", "2.7.0+cu130");
  const auto out = dir.path() / "pypi";
  auto plan = plan_pypi_staging({stored("cu130", source)}, {"cu130"}, out);
  ASSERT_TRUE(plan) << plan.error().describe();
  ASSERT_TRUE(build_pypi_copies(*plan, out));
  EXPECT_FALSE(fs::exists((*plan)[0].target));  // built aside until the commit
  ASSERT_TRUE(commit_pypi_copies(*plan, out));
  const auto& staged = (*plan)[0];
  EXPECT_EQ(staged.state, StagingState::staged);
  ASSERT_TRUE(fs::exists(staged.target));
  EXPECT_EQ(platform::to_hex(platform::sha256_file(staged.target).value()), staged.sha256);
  EXPECT_EQ(std::distance(fs::directory_iterator(out), fs::directory_iterator()), 1);  // no temp left

  const auto wheel = shell_quote(staged.target.string());
  const auto unpack = run_shell("cd " + shell_quote(dir.path().string()) +
                                " && /usr/bin/python3 -m wheel unpack -d unpacked " + wheel);
  ASSERT_EQ(unpack.exit_code, 0) << unpack.out << unpack.err;  // wheel checks every RECORD hash
  const auto unpacked = dir.path() / "unpacked/minitensor-2.7.0";
  EXPECT_TRUE(fs::exists(unpacked / "minitensor-2.7.0.dist-info/RECORD"));
  EXPECT_FALSE(fs::exists(unpacked / "minitensor-2.7.0+cu130.dist-info"));
  const auto metadata = platform::read_file(unpacked / "minitensor-2.7.0.dist-info/METADATA").value();
  EXPECT_NE(metadata.find("\nVersion: 2.7.0\n"), std::string::npos) << metadata;
  EXPECT_NE(metadata.find("A small tensor runtime"), std::string::npos);  // the description is kept

  const auto twine = run_shell("/usr/bin/python3 -m twine check --strict " + wheel + " 2>&1");
  EXPECT_EQ(twine.exit_code, 0) << twine.out;
  EXPECT_NE(twine.out.find("PASSED"), std::string::npos) << twine.out;
  const auto twine_source =
      run_shell("/usr/bin/python3 -m twine check --strict " + shell_quote(source.string()) + " 2>&1");
  EXPECT_EQ(twine_source.exit_code, 0) << twine_source.out;  // the input was fine apart from its label

  EXPECT_EQ(python("from packaging.utils import parse_wheel_filename as p\n"
                   "n, v, b, t = p('" +
                   staged.filename + "')\nprint(n, v, v.local, sorted(str(x) for x in t))"),
            "minitensor 2.7.0 None ['cp312-cp312-manylinux_2_28_x86_64']\n");

  auto again = plan_pypi_staging({stored("cu130", source)}, {"cu130"}, out);
  ASSERT_TRUE(again);
  ASSERT_TRUE(build_pypi_copies(*again, out));
  ASSERT_TRUE(commit_pypi_copies(*again, out));
  EXPECT_EQ((*again)[0].state, StagingState::unchanged);
  EXPECT_EQ((*again)[0].sha256, staged.sha256);
}

TEST(PypiStaging, ADifferentFileAlreadyThereIsAConflictAndNothingChanges) {
  test::ChannelTempDir dir;
  const auto source = pypi_wheel(dir.path() / "in", "2.7.0+cu130");
  const auto out = dir.path() / "pypi";
  fs::create_directories(out);
  const auto target = out / "minitensor-2.7.0-cp312-cp312-manylinux_2_28_x86_64.whl";
  ASSERT_TRUE(platform::write_file_atomic(target, "an older upload"));
  auto plan = plan_pypi_staging({stored("cu130", source)}, {"cu130"}, out);
  ASSERT_TRUE(plan);
  const auto built = build_pypi_copies(*plan, out);
  ASSERT_FALSE(built);
  EXPECT_EQ(built.error().category(), ErrorCategory::conflict);
  EXPECT_NE(built.error().message().find("different bytes"), std::string::npos);
  EXPECT_EQ(platform::read_file(target).value(), "an older upload");
  EXPECT_EQ(std::distance(fs::directory_iterator(out), fs::directory_iterator()), 1);
}

class PromoteToPypi : public ::testing::Test {
protected:
  fs::path root() const { return m_dir.path() / "store"; }
  fs::path out() const { return m_dir.path() / "pypi"; }
  void publish_test(const std::string& version, const std::string& tag = k_linux_tag) {
    PublishOptions options;
    options.root = root();
    options.channel = Channel::test;
    options.files = {pypi_wheel(m_dir.path() / ("in-" + version + tag), version, tag)};
    options.signatures = SignaturePolicy::optional;
    options.upload_time = "2025-01-02T03:04:05Z";
    const auto result = run_publish(options);
    ASSERT_TRUE(result) << result.error().describe();
  }
  PromoteOptions promote() const {
    PromoteOptions options;
    options.root = root();
    options.version = "2.7.0";
    options.signatures = SignaturePolicy::optional;
    options.upload_time = "2025-02-03T00:00:00Z";
    options.pypi_staging = out();
    return options;
  }
  test::ChannelTempDir m_dir;
};

TEST_F(PromoteToPypi, DryRunShowsTheCopiesAndARealRunWritesThem) {
  publish_test("2.7.0+cpu");
  publish_test("2.7.0+cu130");
  auto options = promote();
  options.dry_run = DryRun::yes;
  const auto dry = run_promote(options);
  ASSERT_TRUE(dry) << dry.error().describe();
  ASSERT_EQ(dry->staged.size(), 1U);
  EXPECT_EQ(dry->staged[0].state, StagingState::planned);
  EXPECT_EQ(dry->staged[0].filename, "minitensor-2.7.0-cp312-cp312-manylinux_2_28_x86_64.whl");
  EXPECT_FALSE(fs::exists(out()));

  options.dry_run = DryRun::no;
  const auto done = run_promote(options);
  ASSERT_TRUE(done) << done.error().describe();
  EXPECT_EQ(done->published.size(), 2U);
  ASSERT_EQ(done->staged.size(), 1U);
  EXPECT_EQ(done->staged[0].state, StagingState::staged);
  EXPECT_TRUE(fs::exists(out() / "minitensor-2.7.0-cp312-cp312-manylinux_2_28_x86_64.whl"));
  EXPECT_TRUE(fs::exists(
      root() / "whl/cu130/minitensor/minitensor-2.7.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl"));

  const auto again = run_promote(options);
  ASSERT_TRUE(again) << again.error().describe();
  EXPECT_EQ(again->staged[0].state, StagingState::unchanged);
  for (const auto& file : again->published) EXPECT_EQ(file.state, PublishState::unchanged);
}

TEST_F(PromoteToPypi, CollidingPypiVariantsPromoteNothing) {
  publish_test("2.7.0+cpu");
  publish_test("2.7.0+cu130");
  auto options = promote();
  options.pypi_variants = {"cpu", "cu130"};
  const auto result = run_promote(options);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().category(), ErrorCategory::conflict);
  EXPECT_FALSE(fs::exists(root() / "whl/cpu"));
  EXPECT_FALSE(fs::exists(out()));

  // Different platforms do not collide: CPU for Windows and CUDA for Linux both go to PyPI.
  publish_test("2.8.0+cpu", "cp312-cp312-win_amd64");
  publish_test("2.8.0+cu130");
  options.version = "2.8.0";
  const auto both = run_promote(options);
  ASSERT_TRUE(both) << both.error().describe();
  ASSERT_EQ(both->staged.size(), 2U);
  EXPECT_TRUE(fs::exists(out() / "minitensor-2.8.0-cp312-cp312-win_amd64.whl"));
  EXPECT_TRUE(fs::exists(out() / "minitensor-2.8.0-cp312-cp312-manylinux_2_28_x86_64.whl"));
}

}  // namespace
}  // namespace relforge::channels
