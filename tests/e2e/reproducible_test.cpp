// End-to-end: minitensor's wheels are reproducible (two builds of one commit in other folders, under
// another TZ and umask, give the same bytes, CPU and CUDA 13.0); `verify --rebuild` reproduces a
// published wheel and reports the diff of a tampered one, with a named error for each reason it
// cannot rebuild; and a publish of other bytes names the entries that differ.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include <nlohmann/json.hpp>

#include "tests/support/paths.hpp"
#include "tests/support/run.hpp"

namespace relforge::test {
namespace {

namespace fs = std::filesystem;

bool have_python311() {
  return fs::exists("/usr/bin/python3.11") && fs::exists("/usr/include/python3.11/Python.h");
}

bool have_nvcc() {
  return fs::exists("/usr/local/cuda/bin/nvcc");
}

// The commit every source copy gets: same tree, author and dates, so the same hash wherever it is.
constexpr const char* k_commit_env =
    "GIT_AUTHOR_DATE=2026-01-02T03:04:05Z GIT_COMMITTER_DATE=2026-01-02T03:04:05Z "
    "GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org";

class Reproducible : public ::testing::Test {
protected:
  Reproducible() {
    std::random_device random;
    m_dir = fs::temp_directory_path() / ("relforge-e2e-repro-" + std::to_string(random()));
    fs::create_directories(m_dir);
  }
  ~Reproducible() override { fs::remove_all(m_dir); }

  // A git repository holding a copy of examples/minitensor at `folder`; returns its commit.
  std::string source_copy(const fs::path& folder) {
    fs::create_directories(folder.parent_path());
    const auto made =
        run_shell("cp -r " + shell_quote(source_path("examples/minitensor")) + " " + shell_quote(folder) +
                  " && cd " + shell_quote(folder) + " && git init -q && git add -A && " + k_commit_env +
                  " git commit -qm source && git rev-parse HEAD");
    EXPECT_EQ(made.exit_code, 0) << made.err;
    return made.out.substr(0, made.out.find('\n'));
  }

  // `relforge build` of one cell; the path of its wheel.
  fs::path build(const fs::path& source, const fs::path& state, const std::string& select,
                 const std::string& prefix = "") {
    const auto result = run_shell(prefix + shell_quote(relforge::test::relforge_binary()) +
                                  " build --config " + shell_quote(source / "relforge.toml") + " --select " +
                                  shell_quote(select) + " --state-dir " + shell_quote(state) + " --json");
    EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
    const auto json = nlohmann::json::parse(result.out, nullptr, false);
    if (json.is_discarded() || !json.contains("cells") || json["cells"].empty()) return {};
    return json["cells"][0]["wheel"].get<std::string>();
  }

  // Builds `select` in two copies of the source, the second elsewhere, under another TZ and umask,
  // and expects the same bytes.
  void expect_reproducible(const std::string& select) {
    source_copy(m_dir / "a/minitensor");
    source_copy(m_dir / "elsewhere/deeper/minitensor");
    const auto first = build(m_dir / "a/minitensor", m_dir / "state-a", select);
    const auto second = build(m_dir / "elsewhere/deeper/minitensor", m_dir / "other/state", select,
                              "umask 077 && TZ=Asia/Kolkata LC_ALL=C ");
    ASSERT_FALSE(first.empty());
    ASSERT_FALSE(second.empty());
    const auto diff = relforge("wheel diff " + shell_quote(first) + " " + shell_quote(second));
    EXPECT_EQ(diff.exit_code, 0) << diff.out << diff.err;
    EXPECT_EQ(diff.out, "identical\n");
    // Every entry carries the commit's time (zip times have a 2 s step), not the time of the build.
    const auto times = run_shell("/usr/bin/python3 -c " +
                                 shell_quote("import sys, zipfile; print(sorted({i.date_time for i in "
                                             "zipfile.ZipFile(sys.argv[1]).infolist()}))") +
                                 " " + shell_quote(first));
    EXPECT_EQ(times.out, "[(2026, 1, 2, 3, 4, 4)]\n") << times.err;
  }

  fs::path m_dir;
};

TEST_F(Reproducible, CpuWheelIsTheSameBuiltInAnotherFolderSlow) {
  if (!have_python311()) GTEST_SKIP() << "no /usr/bin/python3.11 with headers (install python3-dev)";
  expect_reproducible("cp311-*-cpu");
}

// nvcc puts the source's absolute path into the module id and its temp file names into the host
// object; the recipe's flags take both out (docs/building.md "Reproducible builds").
TEST_F(Reproducible, Cuda130WheelIsTheSameBuiltInAnotherFolderSlow) {
  if (!have_python311()) GTEST_SKIP() << "no /usr/bin/python3.11 with headers (install python3-dev)";
  if (!have_nvcc()) GTEST_SKIP() << "no CUDA toolkit at /usr/local/cuda";
  expect_reproducible("cp311-*-cu130");
}

// `wheel diff` answers like a query: 0 identical, 1 different (the report on stdout), 4 unreadable.
TEST_F(Reproducible, WheelDiffExitsOneWithTheDifferencesAndZeroWhenIdentical) {
  const auto made = run_shell("cd " + shell_quote(m_dir) + " && /usr/bin/python3 -",
                              "import zipfile\n"
                              "for name, init in (('a', b'X = 1\\n'), ('b', b'X = 2\\n')):\n"
                              "    with zipfile.ZipFile(name + '.whl', 'w') as z:\n"
                              "        z.writestr('demo/__init__.py', init)\n"
                              "        z.writestr('demo-1.0.dist-info/METADATA', 'Metadata-Version: "
                              "2.1\\nName: demo\\nVersion: 1.0\\n')\n");
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const auto same =
      relforge("wheel diff " + shell_quote(m_dir / "a.whl") + " " + shell_quote(m_dir / "a.whl"));
  EXPECT_EQ(same.exit_code, 0) << same.err;
  EXPECT_EQ(same.out, "identical\n");
  const auto text =
      relforge("wheel diff " + shell_quote(m_dir / "a.whl") + " " + shell_quote(m_dir / "b.whl"));
  EXPECT_EQ(text.exit_code, 1) << text.err;
  EXPECT_EQ(text.out, "~ demo/__init__.py (6 -> 6 bytes)\n    -X = 1\n    +X = 2\n");
  const auto json =
      relforge("wheel diff " + shell_quote(m_dir / "a.whl") + " " + shell_quote(m_dir / "b.whl") + " --json");
  EXPECT_EQ(json.exit_code, 1);
  const auto parsed = nlohmann::json::parse(json.out);
  EXPECT_EQ(parsed["identical"], false);
  EXPECT_EQ(parsed["entries"][0]["lines"], nlohmann::json::array({"-X = 1", "+X = 2"}));
  const auto missing =
      relforge("wheel diff " + shell_quote(m_dir / "a.whl") + " " + shell_quote(m_dir / "nowhere.whl"));
  EXPECT_EQ(missing.exit_code, 4) << missing.err;
  EXPECT_TRUE(missing.out.empty());
}

class VerifyRebuild : public Reproducible {
protected:
  void SetUp() override {
    if (!have_python311()) GTEST_SKIP() << "no /usr/bin/python3.11 with headers (install python3-dev)";
    m_commit = source_copy(source());
    ASSERT_EQ(relforge("keys generate --out " + shell_quote(m_dir / "keys")).exit_code, 0);
    const auto nightly =
        relforge("nightly --config " + shell_quote(source() / "relforge.toml") + " --root " +
                 shell_quote(root()) + " --state-dir " + shell_quote(m_dir / "state") +
                 " --select 'cp311-*-cpu' --date 20260102 --key " + shell_quote(m_dir / "keys/signing.key"));
    ASSERT_EQ(nightly.exit_code, 0) << nightly.out << nightly.err;
  }
  fs::path source() const { return m_dir / "src/minitensor"; }
  fs::path root() const { return m_dir / "channel"; }
  fs::path published() const {
    return root() /
           "whl/nightly/cpu/minitensor/"
           "minitensor-0.3.0.dev20260102+cpu-cp311-cp311-manylinux_2_28_x86_64.whl";
  }
  // TMPDIR inside the test's folder: a rebuild that does not reproduce keeps its folder there.
  RunResult verify(const fs::path& wheel, const std::string& extra = "") {
    return run_shell("TMPDIR=" + shell_quote(m_dir) + " " + shell_quote(relforge_binary()) + " verify " +
                     shell_quote(wheel) + " --key " + shell_quote(m_dir / "keys/signing.pub") +
                     " --rebuild --config " + shell_quote(source() / "relforge.toml") + " " + extra);
  }
  // The store and the checkout, listed with every file's hash: a verification changes neither.
  std::string snapshot() {
    return run_shell("cd " + shell_quote(m_dir) +
                     " && find channel src -path src/minitensor/.git -prune -o -type f -print0 | sort -z | "
                     "xargs -0 sha256sum && git -C src/minitensor status --porcelain")
        .out;
  }
  // `wheel` signed with provenance `facts` (a JSON object) into `folder`.
  fs::path signed_copy(const fs::path& wheel, const std::string& folder, nlohmann::json facts) {
    const auto dir = m_dir / folder;
    fs::create_directories(dir);
    const auto copy = dir / wheel.filename();
    fs::copy_file(wheel, copy, fs::copy_options::overwrite_existing);
    facts["wheel"] = copy.filename().string();
    std::ofstream(dir / "facts.json") << facts.dump();
    const auto sign =
        relforge("sign " + shell_quote(copy) + " --key " + shell_quote(m_dir / "keys/signing.key") +
                 " --provenance-from " + shell_quote(dir / "facts.json"));
    EXPECT_EQ(sign.exit_code, 0) << sign.err;
    return copy;
  }
  nlohmann::json facts(const std::string& build_id = "cp311-manylinux_2_28_x86_64-cpu") const {
    return {{"cell", {{"id", "3.11-cpu"}, {"build_id", build_id}}},
            {"channel", "nightly"},
            {"source_commit", m_commit}};
  }
  std::string m_commit;
};

TEST_F(VerifyRebuild, APublishedWheelIsReproducedAndNothingChangesSlow) {
  const auto before = snapshot();
  const auto result = verify(published(), "--json");
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  const auto json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json[0]["reproduced"], true);
  EXPECT_EQ(json[0]["cell"], "3.11-cpu");
  EXPECT_EQ(json[0]["commit"], m_commit);
  EXPECT_GT(json[0]["rebuild_ms"].get<long>(), 0);
  EXPECT_EQ(snapshot(), before);
  const auto text = verify(published());
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("reproduced " + published().string() + " (cell 3.11-cpu from " + m_commit),
            std::string::npos)
      << text.out;
}

// A wheel whose bytes are not what its source builds (signed by the key all the same) is not
// reproduced: exit 9 and the diff names the changed file.
TEST_F(VerifyRebuild, ATamperedWheelIsNotReproducedAndTheDiffSaysWhereSlow) {
  const auto tampered = signed_copy(published(), "tampered", facts());
  const auto patch = run_shell(
      "/usr/bin/python3 - " + shell_quote(tampered),
      "import sys, zipfile, hashlib, base64\n"
      "p = sys.argv[1]; z = zipfile.ZipFile(p); items = [(i, z.read(i)) for i in z.infolist()]; z.close()\n"
      "items = [(i, d + b'import os  # backdoor\\n' if i.filename == 'minitensor/__init__.py' else d) for i, "
      "d in items]\n"
      "rec = [i for i, _ in items if i.filename.endswith('RECORD')][0]\n"
      "h = lambda d: base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b'=').decode()\n"
      "lines = ['%s,sha256=%s,%d' % (i.filename, h(d), len(d)) for i, d in items if i is not rec] + "
      "[rec.filename + ',,']\n"
      "items = [(i, ('\\n'.join(lines) + '\\n').encode() if i is rec else d) for i, d in items]\n"
      "with zipfile.ZipFile(p, 'w', zipfile.ZIP_DEFLATED) as out:\n"
      "    [out.writestr(i, d) for i, d in items]\n");
  ASSERT_EQ(patch.exit_code, 0) << patch.err;
  // Signed again after the change, so only the rebuild can tell.
  signed_copy(tampered, "tampered-signed", facts());
  const auto wheel = m_dir / "tampered-signed" / tampered.filename();
  ASSERT_EQ(relforge("verify " + shell_quote(wheel) + " --key " + shell_quote(m_dir / "keys/signing.pub"))
                .exit_code,
            0);
  const auto result = verify(wheel);
  EXPECT_EQ(result.exit_code, 9) << result.out << result.err;
  EXPECT_NE(result.out.find("NOT reproduced"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("~ minitensor/__init__.py"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("-import os  # backdoor"), std::string::npos) << result.out;
  EXPECT_NE(result.err.find("not reproduced: changed minitensor/__init__.py"), std::string::npos)
      << result.err;
}

TEST_F(VerifyRebuild, EachReasonItCannotRebuildIsNamedSlow) {
  const auto before = snapshot();
  // No provenance: no bundle beside the wheel.
  fs::create_directories(m_dir / "bare");
  fs::copy_file(published(), m_dir / "bare" / published().filename());
  auto result = verify(m_dir / "bare" / published().filename());
  EXPECT_EQ(result.exit_code, 4) << result.err;
  EXPECT_NE(result.err.find("wheel without provenance"), std::string::npos) << result.err;

  auto unknown = facts();
  unknown["source_commit"] = std::string(40, 'e');
  result = verify(signed_copy(published(), "unknown-commit", unknown));
  EXPECT_EQ(result.exit_code, 4) << result.err;
  EXPECT_NE(
      result.err.find("commit " + std::string(40, 'e') + " (the wheel's source) is not in the repository"),
      std::string::npos)
      << result.err;

  result = verify(signed_copy(published(), "gone-cell", facts("cp399-manylinux_2_28_x86_64-cpu")));
  EXPECT_EQ(result.exit_code, 4) << result.err;
  EXPECT_NE(result.err.find("cell no longer in the matrix"), std::string::npos) << result.err;

  auto option = facts();
  option["source_commit"] = "--output=/tmp/x";
  result = verify(signed_copy(published(), "option-commit", option));
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_NE(result.err.find("is not a full hex commit id"), std::string::npos) << result.err;

  // A --work folder with something in it is refused before anything is removed from it.
  fs::create_directories(m_dir / "busy");
  std::ofstream(m_dir / "busy/keep.txt") << "mine\n";
  result = verify(published(), "--work " + shell_quote(m_dir / "busy"));
  EXPECT_EQ(result.exit_code, 5) << result.err;
  EXPECT_NE(result.err.find("is not empty"), std::string::npos) << result.err;
  EXPECT_TRUE(fs::exists(m_dir / "busy/keep.txt"));

  auto imaged = facts();
  imaged["image"] = "ghcr.io/minitensor/manylinux_2_28-builder:cpu";
  result = verify(signed_copy(published(), "image", imaged));
  EXPECT_EQ(result.exit_code, 4) << result.err;
  EXPECT_NE(result.err.find("builder image not available"), std::string::npos) << result.err;
  // Neither the store nor the checkout changed (the signed copies above live outside both).
  EXPECT_EQ(snapshot(), before);
}

// A rebuild whose bytes differ (here: the working tree changed, not committed) is refused at
// publish, and the error names the entry that differs rather than only the hash.
TEST_F(VerifyRebuild, PublishingOtherBytesNamesTheDifferingEntriesSlow) {
  std::ofstream(source() / "python/minitensor/__init__.py", std::ios::app) << "EXTRA = 1\n";
  const auto again =
      relforge("nightly --config " + shell_quote(source() / "relforge.toml") + " --root " +
               shell_quote(root()) + " --state-dir " + shell_quote(m_dir / "state") +
               " --select 'cp311-*-cpu' --date 20260102 --key " + shell_quote(m_dir / "keys/signing.key"));
  EXPECT_EQ(again.exit_code, 5) << again.out << again.err;
  EXPECT_NE(again.err.find("already published with different bytes"), std::string::npos) << again.err;
  EXPECT_NE(again.err.find("it differs in: changed minitensor/__init__.py (1 lines)"), std::string::npos)
      << again.err;
  EXPECT_NE(again.err.find("RECORD"), std::string::npos) << again.err;
}

}  // namespace
}  // namespace relforge::test
