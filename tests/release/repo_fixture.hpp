#pragma once
// Test helper: a throwaway git repository (and bare "remotes") built and inspected with the real
// git CLI, so relforge's libgit2 results are checked by an independent client.
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "tests/support/run.hpp"

namespace relforge::test {

class TempRepo {
public:
  TempRepo() : root(new_root()), work(root / "work") {
    std::filesystem::create_directories(work);
    git("init -q -b main");
    git("config user.name 'Release Tester'");
    git("config user.email release@example.com");
    git("config commit.gpgsign false");
    git("config tag.gpgsign false");
  }
  // A copy of `from`'s folder (work tree and history) of its own, so a set-up made once serves every
  // run that starts from it; a remote `from` configured still names `from`'s bare repository.
  struct CopyOf {
    const TempRepo& from;
  };
  explicit TempRepo(CopyOf copy) : root(new_root()), work(root / "work") {
    std::filesystem::copy(
        copy.from.root, root,
        std::filesystem::copy_options::recursive | std::filesystem::copy_options::copy_symlinks);
  }
  ~TempRepo() { std::filesystem::remove_all(root); }
  TempRepo(const TempRepo&) = delete;
  TempRepo& operator=(const TempRepo&) = delete;

  // Runs git in the work tree; fails the test on a non-zero exit. Returns stdout without the last newline.
  std::string git(const std::string& args) const {
    const RunResult result = git_result(args);
    EXPECT_EQ(result.exit_code, 0) << "git " << args << "\n" << result.err;
    std::string out = result.out;
    if (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
  }
  RunResult git_result(const std::string& args) const {
    return run_shell("GIT_CONFIG_NOSYSTEM=1 HOME=" + shell_quote(root.string()) + " git -C " +
                     shell_quote(work.string()) + " " + args);
  }
  void write(const std::string& path, const std::string& content) const {
    const auto full = work / path;
    std::filesystem::create_directories(full.parent_path());
    std::ofstream(full, std::ios::binary) << content;
  }
  std::string read(const std::string& path) const { return slurp(work / path); }
  std::string commit_all(const std::string& message) const {
    git("add -A");
    git("commit -q -m " + shell_quote(message));
    return git("rev-parse HEAD");
  }
  // A bare repository beside the work tree, reachable as file://...
  std::string make_bare(const std::string& name) const {
    const auto path = root / name;
    const RunResult result = run_shell("git init -q --bare -b main " + shell_quote(path.string()));
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return "file://" + path.string();
  }

  // The project a release manager cuts: version file, channel file, a workflow pointing at @main.
  void seed_project() const {
    write("version.txt", "2.7.0a0\n");
    write("channel.txt", "nightly\n");
    write(".github/workflows/build.yml",
          "jobs:\n  build:\n    uses: org/infra/.github/workflows/wheel.yml@main\n"
          "  test:\n    uses: org/infra/.github/workflows/test.yml@main\n");
    write("src/a.txt", "one\ntwo\nthree\n");
    write("relforge.toml",
          "[release]\nversion_file = \"version.txt\"\nchannel_file = \"channel.txt\"\n"
          "final_rc_milestone = 1\n\n[[release.replace]]\nfile = \".github/workflows/build.yml\"\n"
          "from = \"@main\"\nto = \"@{branch}\"\n");
    commit_all("Initial import");
  }

  std::filesystem::path root;
  std::filesystem::path work;

private:
  // A new empty folder under the temp directory.
  static std::filesystem::path new_root() {
    std::string pattern = (std::filesystem::temp_directory_path() / "relforge-release-XXXXXX").string();
    return ::mkdtemp(pattern.data());
  }
};

// The relforge binary run on `temp`'s work tree (`--repo`), with `env` assignments before it and
// without the GITHUB_REF variables a CI job would set.
inline RunResult relforge_in(const TempRepo& temp, const std::string& args, const std::string& env = "") {
  return run_shell("env -u GITHUB_REF -u GITHUB_BASE_REF " + env + " " + shell_quote(relforge_binary()) +
                   " " + args + " --repo " + shell_quote(temp.work.string()));
}

}  // namespace relforge::test
