// `relforge index deps` through the real binary: real wheels (with Requires-Dist, markers and
// platform tags) published to a channel, saved upstream listings (PEP 691 JSON and PEP 503 HTML),
// and target environments from --env or from the matrix of relforge.toml.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/paths.hpp"
#include "tests/support/run.hpp"

namespace relforge::test {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

// Writes a wheel with a correct RECORD: make.py OUT NAME VERSION TAG [REQUIREMENT...].
constexpr const char* k_make_wheel = R"(import base64, hashlib, os, sys, zipfile
out, name, version, tag = sys.argv[1:5]
meta = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
meta += "".join(f"Requires-Dist: {r}\n" for r in sys.argv[5:])
info = f"{name}-{version}.dist-info"
files = {f"{name}/__init__.py": "X = 1\n", f"{info}/METADATA": meta,
         f"{info}/WHEEL": f"Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: true\nTag: {tag}\n"}
rec = [f"{p},sha256={base64.urlsafe_b64encode(hashlib.sha256(d.encode()).digest()).rstrip(b'=').decode()},{len(d)}" for p, d in files.items()]
files[f"{info}/RECORD"] = "\n".join(rec + [f"{info}/RECORD,,"]) + "\n"
path = os.path.join(out, f"{name}-{version}-{tag}.whl")
with zipfile.ZipFile(path, "w") as z:
    for p, d in files.items(): z.writestr(p, d)
print(path)
)";

class IndexDeps : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("relforge-e2e-deps-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_dir);
    fs::create_directories(m_dir / "dist");
    std::ofstream(m_dir / "make.py") << k_make_wheel;
    wheel("app", "1.0", "py3-none-any",
          {"lib>=2.0", "native==1.0", "winonly; sys_platform == \"win32\"", "devtool; extra == \"dev\"",
           "upstreamdep>=1"});
    wheel("old", "1.0", "py3-none-any", {"lib<2"});
    wheel("lib", "2.1", "py3-none-any", {});
    wheel("native", "1.0", "cp312-cp312-manylinux_2_28_x86_64", {});
    const auto published = run_shell("cd " + shell_quote(m_dir.string()) + " && " +
                                     shell_quote(relforge::test::relforge_binary()) +
                                     " publish --root store --channel nightly --variant cpu dist/*.whl");
    ASSERT_EQ(published.exit_code, 0) << published.err;
    std::ofstream(m_dir / "upstream.json")
        << R"({"meta": {"api-version": "1.1"}, "name": "upstreamdep", "files": [)"
        << R"({"filename": "upstreamdep-1.5-py3-none-any.whl", "url": "x", "hashes": {}}]})";
    std::ofstream(m_dir / "upstream.html") << "<!DOCTYPE html><html><body>\n"
                                              "<a href=\"../f/upstreamdep-1.5-py3-none-any.whl#sha256=00\">"
                                              "upstreamdep-1.5-py3-none-any.whl</a><br/>\n</body></html>\n";
  }
  void TearDown() override { fs::remove_all(m_dir); }

  void wheel(const std::string& name, const std::string& version, const std::string& tag,
             const std::vector<std::string>& requires_dist) {
    std::string command = "/usr/bin/python3 " + shell_quote((m_dir / "make.py").string()) + " " +
                          shell_quote((m_dir / "dist").string()) + " " + name + " " + version + " " + tag;
    for (const auto& requirement : requires_dist) command += " " + shell_quote(requirement);
    const auto made = run_shell(command);
    ASSERT_EQ(made.exit_code, 0) << made.err;
  }

  RunResult deps(const std::string& args) {
    return run_shell("cd " + shell_quote(m_dir.string()) + " && " +
                     shell_quote(relforge::test::relforge_binary()) + " index deps --root store " + args);
  }

  fs::path m_dir;
};

const std::string k_envs =
    "--env 3.12:manylinux_2_28_x86_64 --env 3.13:manylinux_2_28_x86_64 --env 3.12:win_amd64";

TEST_F(IndexDeps, ReportsEachUnresolvedRequirementPerWheelAndEnvironment) {
  const auto result = deps(k_envs + " --upstream upstream.json --json");
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_EQ(result.err, "");
  const Json report = Json::parse(result.out);
  EXPECT_EQ(report["resolved"], false);
  EXPECT_EQ(report["wheels"], 4);
  std::set<std::string> found;
  for (const auto& item : report["unresolved"])
    found.insert(item["wheel"].get<std::string>() + " " + item["environment"].get<std::string>() + " " +
                 item["requirement"].get<std::string>() + " | " + item["reason"].get<std::string>());
  const std::set<std::string> expected = {
      // native has a wheel for CPython 3.12 on Linux only.
      "app-1.0-py3-none-any.whl 3.13-manylinux_2_28_x86_64 native==1.0 | no wheel of a matching version "
      "installs "
      "on 3.13-manylinux_2_28_x86_64",
      "app-1.0-py3-none-any.whl 3.12-win_amd64 native==1.0 | no wheel of a matching version installs on "
      "3.12-win_amd64",
      // the marker makes winonly a requirement on Windows alone; extra == "dev" never applies.
      "app-1.0-py3-none-any.whl 3.12-win_amd64 winonly; sys_platform == \"win32\" | no file of winonly on "
      "the "
      "channel or upstream",
      "old-1.0-py3-none-any.whl 3.12-manylinux_2_28_x86_64 lib<2 | no version matches '<2' (available: 2.1)",
      "old-1.0-py3-none-any.whl 3.13-manylinux_2_28_x86_64 lib<2 | no version matches '<2' (available: 2.1)",
      "old-1.0-py3-none-any.whl 3.12-win_amd64 lib<2 | no version matches '<2' (available: 2.1)",
  };
  EXPECT_EQ(found, expected);
}

TEST_F(IndexDeps, UpstreamListingsCountInJsonAndHtml) {
  const auto without = deps("--env 3.12:manylinux_2_28_x86_64");
  EXPECT_EQ(without.exit_code, 1);
  EXPECT_NE(
      without.out.find("app-1.0-py3-none-any.whl [3.12-manylinux_2_28_x86_64]: upstreamdep>=1: no file of "
                       "upstreamdep on the channel or upstream\n"),
      std::string::npos)
      << without.out;
  for (const char* listing : {"upstream.json", "upstream.html"}) {
    SCOPED_TRACE(listing);
    const auto with = deps("--env 3.12:manylinux_2_28_x86_64 --upstream " + std::string(listing));
    EXPECT_EQ(with.out.find("upstreamdep"), std::string::npos) << with.out;
  }
}

TEST_F(IndexDeps, ExitsZeroWhenEverythingResolves) {
  // Without the `old` wheel (lib<2), Linux CPython 3.12 has every requirement: lib, native and
  // upstreamdep (winonly is for Windows, devtool for the dev extra).
  fs::remove_all(m_dir / "store");
  fs::remove(m_dir / "dist" / "old-1.0-py3-none-any.whl");
  ASSERT_EQ(run_shell("cd " + shell_quote(m_dir.string()) + " && " +
                      shell_quote(relforge::test::relforge_binary()) +
                      " publish --root store --variant cpu dist/*.whl")
                .exit_code,
            0);
  const auto result = deps("--env 3.12:manylinux_2_28_x86_64 --upstream upstream.json");
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_EQ(result.out, "resolved: 3 wheel(s) in 1 environment(s), 3 requirement(s) checked\n");
}

TEST_F(IndexDeps, EnvironmentsComeFromTheMatrix) {
  fs::copy_file(source_path("tests/fixtures/matrix/good.toml"), m_dir / "relforge.toml");
  const auto result = deps("--upstream upstream.json --matrix-channel stable --json");
  const Json report = Json::parse(result.out, nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << result.out << result.err;
  std::set<std::string> environments;
  for (const auto& label : report["environments"]) environments.insert(label.get<std::string>());
  EXPECT_EQ(environments, (std::set<std::string>{"3.12-manylinux_2_28_x86_64", "3.14t-manylinux_2_28_x86_64",
                                                 "3.12-win_amd64", "3.14t-win_amd64",
                                                 "3.12-macosx_11_0_arm64", "3.14t-macosx_11_0_arm64"}));
}

TEST_F(IndexDeps, BadInputIsNamed) {
  const auto env = deps("--env 3.12");
  EXPECT_EQ(env.exit_code, 2);
  EXPECT_NE(env.err.find("--env '3.12' is not PYTHON:PLATFORM"), std::string::npos) << env.err;
  const auto missing = deps("--env 3.12:win_amd64 --upstream nope.json");
  EXPECT_EQ(missing.exit_code, 4);
  EXPECT_NE(missing.err.find("no such file: nope.json"), std::string::npos) << missing.err;
  std::ofstream(m_dir / "junk.txt") << "just text\n";
  const auto junk = deps("--env 3.12:win_amd64 --upstream junk.txt");
  EXPECT_EQ(junk.exit_code, 2);
  EXPECT_NE(junk.err.find("junk.txt: not a package index listing"), std::string::npos) << junk.err;
  const auto no_config = deps("--json");
  EXPECT_EQ(no_config.exit_code, 2);
  EXPECT_EQ(Json::parse(no_config.err, nullptr, false)["error"]["category"], "invalid_input")
      << no_config.err;
}

TEST_F(IndexDeps, HostileUpstreamListingsAreReadInOnePassOrRefused) {
  // Anchors that never close (minutes of rescanning before), hrefs that go anywhere (only an
  // anchor's text names a file), and JSON nested a million deep.
  std::string html =
      "<html><a href=\"javascript:alert(1)\">upstreamdep-1.5-py3-none-any.whl</a>"
      "<a href=\"https://elsewhere.example/../x\">other-1.0-py3-none-any.whl</a>";
  for (int i = 0; i < 1'000'000; ++i) html += "<a";
  std::ofstream(m_dir / "hostile.html") << html;
  const auto start = std::chrono::steady_clock::now();
  const auto read = deps("--env 3.12:manylinux_2_28_x86_64 --upstream hostile.html");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(read.out.find("upstreamdep"), std::string::npos) << read.out << read.err;

  std::ofstream(m_dir / "deep.json") << "{\"files\": " << std::string(1'000'000, '[');
  const auto deep = deps("--env 3.12:manylinux_2_28_x86_64 --upstream deep.json");
  EXPECT_EQ(deep.exit_code, 2) << deep.err;
  EXPECT_NE(deep.err.find("deep.json: not a PEP 691 project page: it nests deeper than 64"),
            std::string::npos)
      << deep.err;
}

}  // namespace
}  // namespace relforge::test
