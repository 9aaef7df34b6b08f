// --push sends exactly the refs a release command made, in one push, to a real git server (git
// daemon on loopback, so the remote's hooks run as on a hosted remote); a rejection is a named
// error saying what was and was not pushed and leaves the command resumable; --bump-via sends
// main's bump to a branch for a pull request; release status compares local refs with the remote's.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "tests/release/repo_fixture.hpp"
#include "tests/support/paths.hpp"
#include "tests/support/run.hpp"

namespace {

using relforge::test::RunResult;
using relforge::test::shell_quote;
using relforge::test::TempRepo;
using Json = nlohmann::json;

int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t size = sizeof address;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), size) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) != 0) {
    ::close(fd);
    return 0;
  }
  ::close(fd);
  return ntohs(address.sin_port);
}

// A bare repository served by `git daemon` (push enabled) on 127.0.0.1; stopped by its pid.
class GitServer {
public:
  explicit GitServer(const TempRepo& temp) : m_temp(temp) {
    m_bare = temp.root / "remote.git";
    EXPECT_EQ(
        relforge::test::run_shell("git init -q --bare -b main " + shell_quote(m_bare.string())).exit_code, 0);
    temp.git("push -q " + shell_quote(m_bare.string()) + " main");
    for (int attempt = 0; attempt < 5 && url.empty(); ++attempt) {
      const int port = free_port();
      const auto pid_file = temp.root / "daemon.pid";
      const RunResult started = relforge::test::run_shell(
          "git daemon --reuseaddr --detach --export-all --enable=receive-pack --listen=127.0.0.1 --port=" +
          std::to_string(port) + " --base-path=" + shell_quote(temp.root.string()) +
          " --pid-file=" + shell_quote(pid_file.string()) + " " + shell_quote(temp.root.string()));
      if (started.exit_code != 0) continue;
      const std::string candidate = "git://127.0.0.1:" + std::to_string(port) + "/remote.git";
      for (int wait = 0; wait < 50; ++wait) {
        m_pid = relforge::test::slurp(pid_file);
        if (!m_pid.empty() &&
            relforge::test::run_shell("git ls-remote -q " + shell_quote(candidate)).exit_code == 0) {
          url = candidate;
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    }
    EXPECT_FALSE(url.empty()) << "git daemon did not start";
  }
  ~GitServer() {
    while (!m_pid.empty() && (m_pid.back() == '\n')) m_pid.pop_back();
    if (!m_pid.empty()) relforge::test::run_shell("kill " + m_pid);
  }
  GitServer(const GitServer&) = delete;
  GitServer& operator=(const GitServer&) = delete;

  // The remote refuses any push that updates main (as a protected branch does).
  void protect_main() const {
    const auto hook = m_bare / "hooks" / "pre-receive";
    std::ofstream(hook)
        << "#!/bin/sh\nwhile read old new ref; do\n  if [ \"$ref\" = refs/heads/main ]; then\n"
           "    echo 'main is protected: open a pull request' >&2; exit 1\n  fi\ndone\nexit 0\n";
    std::filesystem::permissions(hook, std::filesystem::perms::owner_all);
  }
  void unprotect_main() const { std::filesystem::remove(m_bare / "hooks" / "pre-receive"); }
  std::string rev(const std::string& ref) const {
    std::string out = relforge::test::run_shell("git --git-dir=" + shell_quote(m_bare.string()) +
                                                " rev-parse -q --verify " + shell_quote(ref))
                          .out;
    if (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
  }

  std::string url;

private:
  const TempRepo& m_temp;
  std::filesystem::path m_bare;
  std::string m_pid;
};

TEST(ReleasePush, ARejectedPushIsNamedAndTheCutStaysResumableSlow) {
  TempRepo temp;
  temp.seed_project();
  const std::string base = temp.git("rev-parse main");
  GitServer server(temp);
  ASSERT_FALSE(server.url.empty());
  server.protect_main();

  const RunResult rejected = relforge_in(temp, "release cut 2.7 --push " + server.url);
  EXPECT_EQ(rejected.exit_code, 5) << rejected.err;
  EXPECT_EQ(rejected.out, "");
  EXPECT_NE(rejected.err.find("rejected: not pushed"), std::string::npos) << rejected.err;
  EXPECT_NE(rejected.err.find("refs/heads/main (pre-receive hook declined)"), std::string::npos)
      << rejected.err;
  EXPECT_NE(rejected.err.find("pushed nothing"), std::string::npos) << rejected.err;
  EXPECT_NE(rejected.err.find("run the same command again"), std::string::npos) << rejected.err;
  // One push: the pre-receive hook refused it whole, so the release branch is not there either.
  EXPECT_EQ(server.rev("refs/heads/release/2.7"), "");
  EXPECT_EQ(server.rev("refs/heads/main"), base);
  // Locally the cut is complete, and unfinished until the push succeeds.
  EXPECT_EQ(temp.git("show release/2.7:version.txt"), "2.7.0");
  const RunResult status = relforge_in(temp, "release status");
  EXPECT_NE(status.out.find("unfinished 'release cut 2.7'"), std::string::npos) << status.out << status.err;

  // The remote is fixed; the same command, re-run, pushes what it made (the journal keeps the remote).
  server.unprotect_main();
  const RunResult retried = relforge_in(temp, "release cut 2.7 --json");
  ASSERT_EQ(retried.exit_code, 0) << retried.err;
  const Json cut = Json::parse(retried.out, nullptr, false);
  EXPECT_EQ(cut["resumed"], true);
  EXPECT_EQ(cut["pushed"].size(), 3u);
  EXPECT_EQ(server.rev("refs/heads/release/2.7"), temp.git("rev-parse release/2.7"));
  EXPECT_EQ(server.rev("refs/heads/orig/release/2.7"), base);
  EXPECT_EQ(server.rev("refs/heads/main"), temp.git("rev-parse main"));

  // Status compares with the remote: in sync, then one ahead after a local pick.
  Json compared =
      Json::parse(relforge_in(temp, "release status --json --remote " + server.url).out, nullptr, false);
  ASSERT_TRUE(compared.is_object());
  for (const auto& ref : compared["remote_refs"]) EXPECT_EQ(ref["local"], ref["remote"]) << ref.dump();
  temp.write("src/fix.txt", "fixed\n");
  const std::string fix = temp.commit_all("Fix a crash");
  ASSERT_EQ(relforge_in(temp, "release pick request " + fix + " --reason regression").exit_code, 0);
  ASSERT_EQ(relforge_in(temp, "release pick approve 1").exit_code, 0);
  ASSERT_EQ(relforge_in(temp, "release pick apply 1").exit_code, 0);
  const RunResult text = relforge_in(temp, "release status --remote " + server.url);
  EXPECT_NE(text.out.find("refs/heads/release/2.7: 1 ahead, 0 behind"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("refs/heads/main: 1 ahead, 0 behind"), std::string::npos) << text.out;

  // rc --push sends its tag; pick apply --push the branch.
  const RunResult rc = relforge_in(temp, "release rc --push " + server.url);
  EXPECT_EQ(rc.exit_code, 0) << rc.err;
  EXPECT_EQ(server.rev("refs/tags/v2.7.0-rc1"), temp.git("rev-parse refs/tags/v2.7.0-rc1"));
  compared =
      Json::parse(relforge_in(temp, "release status --json --remote " + server.url).out, nullptr, false);
  bool saw_tag = false;
  for (const auto& ref : compared["remote_refs"]) {
    if (ref["ref"] == "refs/tags/v2.7.0-rc1") saw_tag = ref["local"] == ref["remote"];
    if (ref["ref"] == "refs/heads/release/2.7") {
      EXPECT_EQ(ref["ahead"], 1) << ref.dump();
    }
  }
  EXPECT_TRUE(saw_tag) << compared.dump();
  // pick apply --push sends the release branch it moved.
  temp.write("src/fix2.txt", "fixed again\n");
  const std::string fix2 = temp.commit_all("Fix a crash in the allocator");
  ASSERT_EQ(relforge_in(temp, "release pick request " + fix2 + " --reason critical").exit_code, 0);
  ASSERT_EQ(relforge_in(temp, "release pick approve 2").exit_code, 0);
  const RunResult applied = relforge_in(temp, "release pick apply 2 --push " + server.url);
  EXPECT_EQ(applied.exit_code, 0) << applied.err;
  EXPECT_NE(applied.out.find("pushed refs/heads/release/2.7:refs/heads/release/2.7"), std::string::npos)
      << applied.out;
  EXPECT_EQ(server.rev("refs/heads/release/2.7"), temp.git("rev-parse release/2.7"));
}

TEST(ReleasePush, BumpViaSendsMainsBumpToABranchForAPullRequest) {
  TempRepo temp;
  temp.seed_project();
  const std::string base = temp.git("rev-parse main");
  GitServer server(temp);
  ASSERT_FALSE(server.url.empty());
  server.protect_main();
  const RunResult cut = relforge_in(temp, "release cut 2.7 --bump-via bump/2.8.0a0 --push " + server.url);
  ASSERT_EQ(cut.exit_code, 0) << cut.err;
  // Main is untouched here and there; the bump waits on its branch for review.
  EXPECT_EQ(temp.git("rev-parse main"), base);
  EXPECT_EQ(server.rev("refs/heads/main"), base);
  EXPECT_EQ(temp.git("show bump/2.8.0a0:version.txt"), "2.8.0a0");
  EXPECT_EQ(temp.git("rev-parse bump/2.8.0a0^"), base);
  EXPECT_EQ(server.rev("refs/heads/bump/2.8.0a0"), temp.git("rev-parse bump/2.8.0a0"));
  EXPECT_EQ(server.rev("refs/heads/release/2.7"), temp.git("rev-parse release/2.7"));
  EXPECT_EQ(temp.git("status --porcelain"), "");
  // The branch must be new.
  const RunResult again = relforge_in(temp, "release cut 2.8 --bump-via bump/2.8.0a0 --dry-run");
  EXPECT_EQ(again.exit_code, 5) << again.err;
  EXPECT_NE(again.err.find("choose another --bump-via branch"), std::string::npos) << again.err;
}

}  // namespace
