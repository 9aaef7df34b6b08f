#include "packaging/wheel_binary_check.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "packaging/wheel_archive.hpp"
#include "packaging/wheel_record.hpp"
#include "packaging/wheel_repair.hpp"
#include "tests/packaging/foreign_binaries.hpp"

namespace relforge::packaging {
namespace {

namespace fs = std::filesystem;
using Files = std::vector<std::pair<std::string, std::string>>;

const char* const k_win_source =
    "#include <windows.h>\n__declspec(dllexport) int f(void) { return (int)GetTickCount(); }\n";
const char* const k_mac_source = "int f(int x) { return x + 1; }\n";

class WheelBinaryCheckTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("relforge-binaries-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_dir);
    fs::create_directories(m_dir / "out");
  }
  void TearDown() override { fs::remove_all(m_dir); }

  // demo-1.0-cp311-cp311-<platform>.whl holding `files` with a correct RECORD.
  fs::path wheel(const std::string& platform, const Files& extra) {
    Files files = {
        {"demo/__init__.py", "X = 1\n"},
        {"demo-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n"},
        {"demo-1.0.dist-info/WHEEL",
         "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: false\nTag: cp311-cp311-" + platform + "\n"}};
    files.insert(files.end(), extra.begin(), extra.end());
    std::vector<RecordEntry> record;
    std::vector<PlannedEntry> planned;
    for (const auto& [name, bytes] : files) {
      record.push_back({name, record_hash_of(bytes), bytes.size()});
      planned.push_back({name, nullptr, bytes});
    }
    record.push_back({"demo-1.0.dist-info/RECORD", "", std::nullopt});
    planned.push_back({"demo-1.0.dist-info/RECORD", nullptr, format_record(record)});
    const auto path = m_dir / ("demo-1.0-cp311-cp311-" + platform + ".whl");
    EXPECT_TRUE(write_zip(path, nullptr, planned));
    return path;
  }

  BinaryCheck check(const fs::path& path, std::vector<std::string> allow = {}) {
    auto result = check_wheel_binaries(path, {std::move(allow)});
    EXPECT_TRUE(result) << result.error().describe();
    return result ? *result : BinaryCheck{};
  }

  std::vector<std::string> findings(const BinaryCheck& result) {
    std::vector<std::string> out;
    for (const auto& binary : result.binaries)
      out.insert(out.end(), binary.findings.begin(), binary.findings.end());
    return out;
  }

  // A DLL importing foo.dll (through an import library of a foo.dll that is not built).
  std::string foo_user() {
    if (!test::mingw_import_library(m_dir / "foo", "foo.dll", "foo")) return "";
    return test::mingw_dll(m_dir / "foo", "usefoo.dll",
                           "__declspec(dllimport) int foo(int);\n"
                           "__declspec(dllexport) int g(int x) { return foo(x); }\n",
                           false, "-lfoo");
  }

  fs::path m_dir;
};

TEST_F(WheelBinaryCheckTest, WindowsDllImportingOnlySystemDllsPasses) {
  const auto dll = test::mingw_dll(m_dir / "b", "sys.dll", k_win_source);
  ASSERT_FALSE(dll.empty());
  const auto result = check(wheel("win_amd64", {{"demo/_ext.cp311-win_amd64.pyd", dll}}));
  EXPECT_EQ(result.platforms, std::vector<std::string>{"win_amd64"});
  ASSERT_EQ(result.binaries.size(), 1u);
  EXPECT_EQ(result.binaries[0].file, "demo/_ext.cp311-win_amd64.pyd");
  EXPECT_EQ(result.binaries[0].format, "pe");
  EXPECT_EQ(result.binaries[0].archs, std::vector<std::string>{"AMD64"});
  EXPECT_TRUE(result.binaries[0].findings.empty());
  EXPECT_TRUE(binary_check_status("w.whl", result));
}

TEST_F(WheelBinaryCheckTest, UnbundledDllIsRefusedBundledOrAllowedPasses) {
  const auto user = foo_user();
  ASSERT_FALSE(user.empty());
  const auto missing = check(wheel("win_amd64", {{"demo/_ext.pyd", user}}));
  const auto found = findings(missing);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(
      found[0].find("demo/_ext.pyd imports foo.dll, which is neither a Windows system DLL nor in the wheel"),
      std::string::npos)
      << found[0];
  const auto status = binary_check_status("demo-1.0-cp311-cp311-win_amd64.whl", missing);
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().category(), ErrorCategory::integrity);
  EXPECT_NE(status.error().message().find(
                "'demo-1.0-cp311-cp311-win_amd64.whl' fails the win_amd64 check (1 finding)"),
            std::string::npos)
      << status.error().message();

  // Bundled anywhere in the wheel, under any case, as Windows compares DLL names.
  const auto bundled =
      test::mingw_dll(m_dir / "b", "foo.dll", "__declspec(dllexport) int foo(int x) { return x; }\n");
  ASSERT_FALSE(bundled.empty());
  EXPECT_TRUE(
      findings(check(wheel("win_amd64", {{"demo/_ext.pyd", user}, {"demo.libs/FOO.DLL", bundled}}))).empty());
  EXPECT_TRUE(findings(check(wheel("win_amd64", {{"demo/_ext.pyd", user}}), {"Fo?.dll"})).empty());
}

TEST_F(WheelBinaryCheckTest, I686DllInAmd64WheelIsRefused) {
  const auto dll = test::mingw_dll(m_dir / "b", "sys32.dll", k_win_source, true);
  ASSERT_FALSE(dll.empty());
  const auto found = findings(check(wheel("win_amd64", {{"demo/_ext.pyd", dll}})));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("demo/_ext.pyd is built for I386, but win_amd64 needs AMD64"), std::string::npos);
  EXPECT_TRUE(findings(check(wheel("win32", {{"demo/_ext.pyd", dll}}))).empty());
}

TEST_F(WheelBinaryCheckTest, WindowsNamedFilesThatAreNoPeOrBrokenPeAreRefused) {
  const auto dll = test::mingw_dll(m_dir / "b", "sys.dll", k_win_source);
  ASSERT_FALSE(dll.empty());
  const auto found = findings(check(wheel("win_amd64", {{"demo/elf.pyd", std::string("\x7f"
                                                                                     "ELF\x02\x01\x01",
                                                                                     7) +
                                                                             std::string(100, '\0')},
                                                        {"demo/cut.dll", dll.substr(0, 400)},
                                                        {"demo/readme.txt", "MZ is not always a program"}})));
  ASSERT_EQ(found.size(), 2u);
  EXPECT_NE(found[0].find("demo/elf.pyd is named like a Windows binary but is not a PE file"),
            std::string::npos);
  EXPECT_NE(found[1].find("demo/cut.dll: malformed PE file"), std::string::npos) << found[1];
  EXPECT_NE(found[1].find("never passed"), std::string::npos);
}

TEST_F(WheelBinaryCheckTest, MacosWheelsCheckVersionArchAndDylibs) {
  const auto arm11 = test::macho_dylib(m_dir / "b", "arm11.dylib", k_mac_source, "arm64-apple-macos11");
  const auto arm14 = test::macho_dylib(m_dir / "b", "arm14.dylib", k_mac_source, "arm64-apple-macos14");
  const auto x86 = test::macho_dylib(m_dir / "b", "x86.dylib", k_mac_source, "x86_64-apple-macos10.9");
  ASSERT_FALSE(arm11.empty() || arm14.empty() || x86.empty());

  const auto good = check(wheel("macosx_11_0_arm64", {{"demo/_ext.cpython-311-darwin.so", arm11}}));
  ASSERT_EQ(good.binaries.size(), 1u);
  EXPECT_EQ(good.binaries[0].format, "macho");
  EXPECT_EQ(good.binaries[0].min_macos, std::vector<std::string>{"arm64 11.0"});
  EXPECT_EQ(good.binaries[0].imports, std::vector<std::string>{"/usr/lib/libSystem.B.dylib"});
  EXPECT_TRUE(good.binaries[0].findings.empty());

  auto found = findings(check(wheel("macosx_11_0_arm64", {{"demo/_ext.so", arm14}})));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("demo/_ext.so (arm64) needs macOS 14.0, newer than the 11.0 that macosx_11_0_arm64 "
                          "promises: rebuild it with MACOSX_DEPLOYMENT_TARGET=11.0"),
            std::string::npos)
      << found[0];
  EXPECT_TRUE(findings(check(wheel("macosx_14_0_arm64", {{"demo/_ext.so", arm14}}))).empty());

  found = findings(check(wheel("macosx_11_0_arm64", {{"demo/_ext.so", x86}})));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("demo/_ext.so holds x86_64 but macosx_11_0_arm64 needs arm64"), std::string::npos);

  const auto fat = test::fat_binary({{test::k_cpu_x86_64, x86}, {test::k_cpu_arm64, arm11}});
  const auto universal = check(wheel("macosx_10_9_universal2", {{"demo/_ext.so", fat}}));
  EXPECT_TRUE(findings(universal).empty()) << findings(universal).front();
  EXPECT_EQ(universal.binaries.at(0).archs, (std::vector<std::string>{"x86_64", "arm64"}));
  found = findings(check(wheel("macosx_10_9_universal2", {{"demo/_ext.so", arm11}})));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("needs x86_64"), std::string::npos);
}

TEST_F(WheelBinaryCheckTest, RpathDependencyMustBeInTheWheel) {
  const auto dir = m_dir / "b";
  const auto missing = test::macho_dylib(dir, "libmissing.dylib", "int dep(void) { return 1; }\n",
                                         "arm64-apple-macos11", "-Wl,-install_name,@rpath/libmissing.dylib");
  ASSERT_FALSE(missing.empty());
  const auto user = test::macho_dylib(
      dir, "user.so", "int dep(void);\nint g(void) { return dep(); }\n", "arm64-apple-macos11",
      "-Wl,-rpath,@loader_path/.dylibs " + test::shell_quote((dir / "libmissing.dylib").string()));
  ASSERT_FALSE(user.empty());
  const auto found = findings(check(wheel("macosx_11_0_arm64", {{"demo/_ext.so", user}})));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(
      found[0].find(
          "demo/_ext.so (arm64) loads @rpath/libmissing.dylib, which is neither a macOS system "
          "library (/usr/lib/, /System/Library/) nor found in the wheel (rpaths: @loader_path/.dylibs)"),
      std::string::npos)
      << found[0];
  // Bundled where the rpath points: both files pass.
  const auto bundled =
      check(wheel("macosx_11_0_arm64", {{"demo/_ext.so", user}, {"demo/.dylibs/libmissing.dylib", missing}}));
  EXPECT_EQ(bundled.binaries.size(), 2u);
  EXPECT_TRUE(findings(bundled).empty()) << findings(bundled).front();
}

TEST_F(WheelBinaryCheckTest, LinuxAndPureWheelsHaveNothingToCheck) {
  const auto dll = test::mingw_dll(m_dir / "b", "sys32.dll", k_win_source, true);
  const auto result = check(wheel("linux_x86_64", {{"demo/x.dll", dll}}));
  EXPECT_TRUE(result.platforms.empty());
  EXPECT_TRUE(result.binaries.empty());
}

TEST_F(WheelBinaryCheckTest, RepairRefusesAFailingWindowsWheelAndWritesNothing) {
  const auto user = foo_user();
  ASSERT_FALSE(user.empty());
  const auto input = wheel("win_amd64", {{"demo/_ext.pyd", user}});
  RepairOptions options{input, m_dir / "out", std::nullopt, "cu130", std::nullopt};
  auto result = repair_wheel(options);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().category(), ErrorCategory::integrity);
  EXPECT_NE(
      result.error().message().find("refusing to repair: 'demo-1.0-cp311-cp311-win_amd64.whl' fails the "
                                    "win_amd64 check"),
      std::string::npos)
      << result.error().message();
  EXPECT_NE(result.error().message().find("imports foo.dll"), std::string::npos);
  EXPECT_TRUE(fs::is_empty(m_dir / "out"));
  options.allow_dlls = {"foo.dll"};
  result = repair_wheel(options);
  ASSERT_TRUE(result) << result.error().describe();
  EXPECT_EQ(result->output.filename(), "demo-1.0+cu130-cp311-cp311-win_amd64.whl");
  EXPECT_EQ(result->binaries, 1u);
}

TEST_F(WheelBinaryCheckTest, RepairChecksAMacosWheelAgainstItsNewTag) {
  const auto arm14 = test::macho_dylib(m_dir / "b", "arm14.dylib", k_mac_source, "arm64-apple-macos14");
  ASSERT_FALSE(arm14.empty());
  const auto input = wheel("macosx_14_0_arm64", {{"demo/_ext.so", arm14}});
  auto result = repair_wheel({input, m_dir / "out", "macosx_11_0_arm64", std::nullopt, std::nullopt});
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message().find("MACOSX_DEPLOYMENT_TARGET=11.0"), std::string::npos);
  EXPECT_TRUE(fs::is_empty(m_dir / "out"));
  result = repair_wheel({input, m_dir / "out", std::nullopt, "cpu", std::nullopt});
  ASSERT_TRUE(result) << result.error().describe();
  EXPECT_EQ(result->output.filename(), "demo-1.0+cpu-cp311-cp311-macosx_14_0_arm64.whl");
  EXPECT_TRUE(verify_wheel(result->output));
  EXPECT_TRUE(findings(check(result->output)).empty());
}

}  // namespace
}  // namespace relforge::packaging
