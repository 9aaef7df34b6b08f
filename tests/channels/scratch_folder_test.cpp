#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "channels/object_store.hpp"

namespace relforge::channels {
namespace {

// Sets TMPDIR for one test and puts the old value back.
class TmpdirScope {
public:
  explicit TmpdirScope(const std::string& value) {
    if (const char* old = std::getenv("TMPDIR")) m_old = old;
    ::setenv("TMPDIR", value.c_str(), 1);
  }
  ~TmpdirScope() {
    if (m_old)
      ::setenv("TMPDIR", m_old->c_str(), 1);
    else
      ::unsetenv("TMPDIR");
  }
  TmpdirScope(const TmpdirScope&) = delete;
  TmpdirScope& operator=(const TmpdirScope&) = delete;

private:
  std::optional<std::string> m_old;
};

TEST(ScratchFolder, AChosenFolderIsUsedAsGiven) {
  TmpdirScope scope("/nonexistent-relforge-tmp");
  auto folder = scratch_folder("/some/where");
  ASSERT_TRUE(folder);
  EXPECT_EQ(*folder, "/some/where");
}

TEST(ScratchFolder, NoTempFolderIsAnIoErrorNotAnAbort) {
  TmpdirScope scope("/nonexistent-relforge-tmp");
  auto folder = scratch_folder({});
  ASSERT_FALSE(folder);
  EXPECT_EQ(folder.error().category(), ErrorCategory::io);
  EXPECT_NE(folder.error().message().find("set TMPDIR to a folder that exists"), std::string::npos)
      << folder.error().message();
}

}  // namespace
}  // namespace relforge::channels
