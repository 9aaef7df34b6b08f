// `relforge wheel verify` and `wheel repair` on Windows and macOS wheels through the real binary:
// wheels written by Python's zipfile around DLLs (mingw-w64) and dylibs (clang + ld64.lld) built
// here; findings on stderr (text) or in the --json report, exit code 9, nothing repaired.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/packaging/foreign_binaries.hpp"
#include "tests/support/run.hpp"

namespace {

namespace fs = std::filesystem;
using relforge::test::relforge;
using relforge::test::run_shell;
using relforge::test::shell_quote;
using Json = nlohmann::json;

class WheelForeignTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("relforge-e2e-foreign-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_dir);
    fs::create_directories(m_dir / "out");
  }
  void TearDown() override { fs::remove_all(m_dir); }

  // demo-1.0-cp311-cp311-<platform>.whl written by Python's zipfile, with `files` (path in the
  // wheel → file on disk) and a correct RECORD.
  std::string wheel(const std::string& platform,
                    const std::vector<std::pair<std::string, std::string>>& files) {
    const auto path = m_dir / ("demo-1.0-cp311-cp311-" + platform + ".whl");
    const std::string script =
        "import base64, hashlib, sys, zipfile\n"
        "files = {'demo/__init__.py': b'X = 1\\n',\n"
        " 'demo-1.0.dist-info/METADATA': b'Metadata-Version: 2.1\\nName: demo\\nVersion: 1.0\\n',\n"
        " 'demo-1.0.dist-info/WHEEL': ('Wheel-Version: 1.0\\nGenerator: t\\nRoot-Is-Purelib: false\\n'\n"
        "                              'Tag: cp311-cp311-%s\\n' % sys.argv[2]).encode()}\n"
        "for pair in sys.argv[3:]:\n"
        "    name, source = pair.split('=', 1)\n"
        "    files[name] = open(source, 'rb').read()\n"
        "h = lambda d: base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b'=').decode()\n"
        "lines = ['%s,sha256=%s,%d' % (p, h(d), len(d)) for p, d in files.items()]\n"
        "with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:\n"
        "    for p, d in files.items(): z.writestr(p, d)\n"
        "    z.writestr('demo-1.0.dist-info/RECORD', '\\n'.join(lines + ['demo-1.0.dist-info/RECORD,,']))\n";
    std::string args;
    for (const auto& [name, source] : files) args += " " + shell_quote(name + "=" + source);
    const auto made = run_shell("/usr/bin/python3 -c " + shell_quote(script) + " " +
                                shell_quote(path.string()) + " " + platform + args);
    EXPECT_EQ(made.exit_code, 0) << made.err;
    return path.string();
  }

  // Builds the binary with `build` (which writes it under m_dir/b) and returns its path.
  std::string saved(const std::string& name, const std::string& bytes) {
    EXPECT_FALSE(bytes.empty()) << name;
    return (m_dir / "b" / name).string();
  }

  std::string windows_wheel_with_unbundled_dll() {
    const auto dir = m_dir / "b";
    const auto sys = saved("sys.dll", relforge::test::mingw_dll(
                                          dir, "sys.dll",
                                          "#include <windows.h>\n__declspec(dllexport) int f(void) { return "
                                          "(int)GetTickCount(); }\n"));
    EXPECT_TRUE(relforge::test::mingw_import_library(dir, "foo.dll", "foo"));
    const auto user =
        saved("usefoo.dll", relforge::test::mingw_dll(dir, "usefoo.dll",
                                                      "__declspec(dllimport) int foo(int);\n"
                                                      "__declspec(dllexport) int g(int x) { return "
                                                      "foo(x); }\n",
                                                      false, "-lfoo"));
    return wheel("win_amd64", {{"demo/_sys.pyd", sys}, {"demo/_user.pyd", user}});
  }

  fs::path m_dir;
};

TEST_F(WheelForeignTest, VerifyJsonListsEachBinaryWithItsFindingsAndExits9) {
  const auto path = windows_wheel_with_unbundled_dll();
  const auto result = relforge("wheel verify --json " + shell_quote(path));
  EXPECT_EQ(result.exit_code, 9) << result.err;
  const auto report = Json::parse(result.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << result.out;
  EXPECT_EQ(report["ok"], false);
  EXPECT_EQ(report["platforms"], Json({"win_amd64"}));
  ASSERT_EQ(report["binaries"].size(), 2u);
  const auto& sys = report["binaries"][0];
  EXPECT_EQ(sys["file"], "demo/_sys.pyd");
  EXPECT_EQ(sys["format"], "pe");
  EXPECT_EQ(sys["archs"], Json({"AMD64"}));
  EXPECT_EQ(sys["findings"], Json::array());
  const auto& user = report["binaries"][1];
  EXPECT_EQ(user["file"], "demo/_user.pyd");
  EXPECT_EQ(user["imports"][0], "foo.dll");
  ASSERT_EQ(user["findings"].size(), 1u);
  EXPECT_NE(user["findings"][0].get<std::string>().find("demo/_user.pyd imports foo.dll"), std::string::npos);
  const auto error = Json::parse(result.err, nullptr, false);
  ASSERT_TRUE(error.is_object()) << result.err;
  EXPECT_EQ(error["error"]["category"], "integrity");
  EXPECT_EQ(error["error"]["exit_code"], 9);
}

TEST_F(WheelForeignTest, VerifyTextNamesWheelFileDllAndRemedyAndAllowDllPasses) {
  const auto path = windows_wheel_with_unbundled_dll();
  auto result = relforge("wheel verify " + shell_quote(path));
  EXPECT_EQ(result.exit_code, 9);
  EXPECT_EQ(result.out, "");
  EXPECT_NE(result.err.find("demo-1.0-cp311-cp311-win_amd64.whl' fails the win_amd64 check (1 finding)"),
            std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find(
                "demo/_user.pyd imports foo.dll, which is neither a Windows system DLL nor in the wheel: "
                "bundle foo.dll in the wheel"),
            std::string::npos)
      << result.err;
  result = relforge("wheel verify --allow-dll 'FOO*.dll' " + shell_quote(path));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("; 2 binaries pass win_amd64)"), std::string::npos) << result.out;
}

TEST_F(WheelForeignTest, RepairRunsTheSameCheckFirstAndWritesNothingOnFindings) {
  const auto path = windows_wheel_with_unbundled_dll();
  const auto out = shell_quote((m_dir / "out").string());
  auto result = relforge("wheel repair --local cu130 --out " + out + " " + shell_quote(path));
  EXPECT_EQ(result.exit_code, 9);
  EXPECT_EQ(result.out, "");
  EXPECT_NE(result.err.find("refusing to repair"), std::string::npos) << result.err;
  EXPECT_TRUE(fs::is_empty(m_dir / "out"));
  result = relforge("wheel repair --json --allow-dll foo.dll --local cu130 --out " + out + " " +
                    shell_quote(path));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto report = Json::parse(result.out, nullptr, false);
  EXPECT_EQ(report["binaries"], 2);
  EXPECT_EQ(report["tags"], Json({"cp311-cp311-win_amd64"}));
  EXPECT_TRUE(fs::exists(m_dir / "out" / "demo-1.0+cu130-cp311-cp311-win_amd64.whl"));
}

TEST_F(WheelForeignTest, MacosWheelNewerThanItsTagIsRefusedWithTheDeploymentTarget) {
  const auto dir = m_dir / "b";
  const auto arm14 = saved(
      "arm14.so",
      relforge::test::macho_dylib(dir, "arm14.so", "int f(void) { return 1; }\n", "arm64-apple-macos14"));
  const auto bad = wheel("macosx_11_0_arm64", {{"demo/_ext.cpython-311-darwin.so", arm14}});
  auto result = relforge("wheel verify " + shell_quote(bad));
  EXPECT_EQ(result.exit_code, 9);
  EXPECT_NE(
      result.err.find("demo/_ext.cpython-311-darwin.so (arm64) needs macOS 14.0, newer than the 11.0 that "
                      "macosx_11_0_arm64 promises: rebuild it with MACOSX_DEPLOYMENT_TARGET=11.0"),
      std::string::npos)
      << result.err;
  const auto good = wheel("macosx_14_0_arm64", {{"demo/_ext.cpython-311-darwin.so", arm14}});
  result = relforge("wheel verify --json " + shell_quote(good));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto report = Json::parse(result.out, nullptr, false);
  EXPECT_EQ(report["ok"], true);
  EXPECT_EQ(report["binaries"][0]["min_macos"], Json({"arm64 14.0"}));
  EXPECT_EQ(report["binaries"][0]["imports"], Json({"/usr/lib/libSystem.B.dylib"}));
}

}  // namespace
