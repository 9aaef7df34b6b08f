#include <gtest/gtest.h>

#include <filesystem>
#include <optional>

#include "release/git.hpp"
#include "tests/release/repo_fixture.hpp"

namespace relforge::release {
namespace {

using test::TempRepo;

// main at `before`, then `after`: edit.txt changed, gone.txt and old/dir/gone.txt deleted,
// new/dir/added.txt added. HEAD stays on main; each test leaves index and work tree half-way.
class SyncWorktreeTest : public ::testing::Test {
protected:
  void SetUp() override {
    temp.write("keep.txt", "keep\n");
    temp.write("edit.txt", "old\n");
    temp.write("gone.txt", "gone\n");
    temp.write("old/dir/gone.txt", "gone too\n");
    before = temp.commit_all("Before");
    temp.write("edit.txt", "new\n");
    std::filesystem::remove(temp.work / "gone.txt");
    std::filesystem::remove_all(temp.work / "old");
    temp.write("new/dir/added.txt", "added\n");
    after = temp.commit_all("After");
    temp.git("reset -q --hard " + before);
    auto opened = Repository::open(temp.work);
    ASSERT_TRUE(opened);
    repo.emplace(std::move(*opened));
  }

  // What a checkout killed after its first files leaves: some files at `after`, the index at `before`.
  void half_checked_out() const {
    temp.write("new/dir/added.txt", "added\n");
    temp.write("edit.txt", "new\n");
    std::filesystem::remove(temp.work / "gone.txt");
  }

  bool exists(const std::string& path) const { return std::filesystem::exists(temp.work / path); }

  TempRepo temp;
  std::optional<Repository> repo;
  std::string before, after;
};

TEST_F(SyncWorktreeTest, ACheckoutCutShortIsFinished) {
  temp.git("update-ref refs/heads/main " + after + " " + before);
  half_checked_out();
  auto ok = repo->sync_worktree("refs/heads/main", before, after);
  ASSERT_TRUE(ok) << ok.error().describe();
  EXPECT_EQ(temp.git("status --porcelain --ignored --untracked-files=all"), "");
  EXPECT_EQ(temp.read("edit.txt"), "new\n");
  EXPECT_FALSE(exists("old"));
  EXPECT_FALSE(exists("gone.txt"));
  // Once there, running it again changes nothing.
  ASSERT_TRUE(repo->sync_worktree("refs/heads/main", before, after));
  EXPECT_EQ(temp.git("status --porcelain --ignored --untracked-files=all"), "");
}

TEST_F(SyncWorktreeTest, ACheckoutCutShortIsUndoneWithoutAStrayFileOrFolder) {
  half_checked_out();
  int files = 0;
  auto ok = repo->sync_worktree("refs/heads/main", after, before, [&] { ++files; });
  ASSERT_TRUE(ok) << ok.error().describe();
  EXPECT_GT(files, 0);
  EXPECT_EQ(temp.git("status --porcelain --ignored --untracked-files=all"), "");
  EXPECT_FALSE(exists("new")) << "the folder the checkout created is left behind";
  EXPECT_EQ(temp.read("edit.txt"), "old\n");
  EXPECT_EQ(temp.read("gone.txt"), "gone\n");
  EXPECT_EQ(temp.read("old/dir/gone.txt"), "gone too\n");
}

TEST_F(SyncWorktreeTest, AFileThatIsNeitherSideIsRefusedAndNothingIsWritten) {
  temp.git("update-ref refs/heads/main " + after + " " + before);
  half_checked_out();
  temp.write("edit.txt", "mine\n");
  temp.write("new/dir/added.txt", "someone else's\n");
  auto refused = repo->sync_worktree("refs/heads/main", before, after);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().category(), ErrorCategory::conflict);
  EXPECT_NE(refused.error().message().find("changes in edit.txt, new/dir/added.txt that match neither"),
            std::string::npos)
      << refused.error().message();
  EXPECT_EQ(temp.read("edit.txt"), "mine\n");
  EXPECT_EQ(temp.read("new/dir/added.txt"), "someone else's\n");
  EXPECT_EQ(temp.read("old/dir/gone.txt"), "gone too\n");
}

TEST_F(SyncWorktreeTest, AnotherBranchOrAnUnrelatedEditIsLeftAlone) {
  temp.write("keep.txt", "my unrelated edit\n");
  ASSERT_TRUE(repo->sync_worktree("refs/heads/other", before, after));
  EXPECT_EQ(temp.read("edit.txt"), "old\n");
  temp.git("update-ref refs/heads/main " + after + " " + before);
  ASSERT_TRUE(repo->sync_worktree("refs/heads/main", before, after));
  EXPECT_EQ(temp.read("edit.txt"), "new\n");
  EXPECT_EQ(temp.read("keep.txt"), "my unrelated edit\n");
  EXPECT_EQ(temp.git("status --porcelain --ignored --untracked-files=all"), " M keep.txt");
}

}  // namespace
}  // namespace relforge::release
