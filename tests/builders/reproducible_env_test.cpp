// The recipe's reproducible environment: what the executor sets whatever the caller's own
// environment, umask and clock, and the prefix maps for the compilers.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "builders/executor.hpp"
#include "platform/fs.hpp"
#include "tests/builders/support.hpp"

namespace relforge::builders {
namespace {

namespace fs = std::filesystem;

TEST(ReproducibleEnvironment, FixesTimeLocaleTempAndMapsBothFolders) {
  const auto env = reproducible_environment("/src/pkg", "/state/work/3.11-cpu", 1767225600);
  EXPECT_EQ(env.at("SOURCE_DATE_EPOCH"), "1767225600");
  EXPECT_EQ(env.at("TZ"), "UTC");
  EXPECT_EQ(env.at("LC_ALL"), "C.UTF-8");
  EXPECT_EQ(env.at("LANG"), "C.UTF-8");
  EXPECT_EQ(env.at("PYTHONHASHSEED"), "0");
  EXPECT_EQ(env.at("TMPDIR"), "/state/work/3.11-cpu/tmp");
  const std::string maps = "-ffile-prefix-map=/src/pkg=. -ffile-prefix-map=/state/work/3.11-cpu=.";
  EXPECT_EQ(env.at("CFLAGS"), maps);
  EXPECT_EQ(env.at("CXXFLAGS"), maps);
  EXPECT_EQ(env.at("RELFORGE_PREFIX_MAP"), maps);
  EXPECT_EQ(env.at("NVCC_APPEND_FLAGS"),
            "-Xcompiler=-ffile-prefix-map=/src/pkg=.,-ffile-prefix-map=/state/work/3.11-cpu=.");
}

class ReproducibleRecipe : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("relforge-repro-env-" + std::to_string(::getpid()));
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
  }
  void TearDown() override { fs::remove_all(m_dir); }
  fs::path m_dir;
};

// relforge's own umask (077 here) and time zone do not reach the recipe.
TEST_F(ReproducibleRecipe, TheRecipeSeesUmask022AndTheCommitTimeWhateverRelforgesOwn) {
  ASSERT_TRUE(platform::write_file_atomic(
      m_dir / "recipe.sh",
      "echo \"umask=$(umask) epoch=$SOURCE_DATE_EPOCH tz=$TZ lc=$LC_ALL tmp=$TMPDIR\"\n"
      "test -d \"$TMPDIR\" && echo tmpdir-exists\necho \"cxx=$CXXFLAGS\"\nexit 3\n"));
  BuildOptions options = test::recipe_options(m_dir);
  options.source_date_epoch = 1767225600;
  const mode_t saved = ::umask(077);
  const auto outcomes = run_build(options);
  ::umask(saved);
  ASSERT_TRUE(outcomes) << outcomes.error().describe();
  const auto log = platform::read_file(outcomes->front().log).value_or("");
  const auto work = fs::absolute(m_dir / "state/work/3.11-cpu");
  EXPECT_NE(log.find("umask=0022 epoch=1767225600 tz=UTC lc=C.UTF-8 tmp=" + (work / "tmp").string()),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("tmpdir-exists"), std::string::npos) << log;
  EXPECT_NE(
      log.find("cxx=-ffile-prefix-map=" + m_dir.string() + "=. -ffile-prefix-map=" + work.string() + "=."),
      std::string::npos)
      << log;
}

}  // namespace
}  // namespace relforge::builders
