#include "packaging/macho.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "packaging/wheel_macho_policy.hpp"
#include "tests/packaging/foreign_binaries.hpp"
#include "tests/packaging/zeroed_image.hpp"

namespace relforge::packaging {
namespace {

namespace fs = std::filesystem;

const char* const k_source = "int f(int x) { return x + 1; }\n";

void put32le(std::string& bytes, std::size_t at, std::uint32_t value) {
  for (int i = 0; i < 4; ++i)
    bytes[at + static_cast<std::size_t>(i)] = static_cast<char>((value >> (8 * i)) & 0xff);
}

class MachOReadTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("relforge-macho-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_dir);
  }
  void TearDown() override { fs::remove_all(m_dir); }

  MachOFile read(const std::string& bytes) {
    auto file = read_macho(bytes);
    EXPECT_TRUE(file) << file.error().describe();
    if (!file || !*file) {
      ADD_FAILURE() << "not read as Mach-O";
      return {};
    }
    return **file;
  }

  fs::path m_dir;
};

TEST_F(MachOReadTest, Arm64DylibForMacos11) {
  const auto dylib = test::macho_dylib(m_dir, "liba.dylib", k_source, "arm64-apple-macos11");
  ASSERT_FALSE(dylib.empty());
  const auto file = read(dylib);
  ASSERT_EQ(file.slices.size(), 1u);
  EXPECT_FALSE(file.universal);
  const auto& slice = file.slices[0];
  EXPECT_EQ(slice.arch, "arm64");
  EXPECT_FALSE(slice.executable);
  ASSERT_TRUE(slice.min_macos);
  EXPECT_EQ(slice.min_macos->to_string(), "11.0");
  EXPECT_EQ(slice.build_platform, 1u);
  ASSERT_EQ(slice.dylibs.size(), 1u);
  EXPECT_EQ(slice.dylibs[0].path, "/usr/lib/libSystem.B.dylib");
  EXPECT_EQ(slice.dylibs[0].kind, DylibLoad::load);
}

TEST_F(MachOReadTest, Macos14AndOldX86VersionsAreRead) {
  const auto new_one = test::macho_dylib(m_dir, "new.dylib", k_source, "arm64-apple-macos14");
  const auto old_one = test::macho_dylib(m_dir, "old.dylib", k_source, "x86_64-apple-macos10.9");
  ASSERT_FALSE(new_one.empty());
  ASSERT_FALSE(old_one.empty());
  EXPECT_EQ(read(new_one).slices.at(0).min_macos->to_string(), "14.0");
  const auto old_slice = read(old_one).slices.at(0);
  EXPECT_EQ(old_slice.arch, "x86_64");
  EXPECT_EQ(old_slice.min_macos->to_string(), "10.9");
}

TEST_F(MachOReadTest, RpathsAndWeakDylibsAreRead) {
  // libdep's install name is @rpath/libdep.dylib; the consumer loads it weakly and carries an rpath.
  ASSERT_FALSE(test::macho_dylib(m_dir, "libdep.dylib", "int dep(void) { return 1; }\n",
                                 "arm64-apple-macos11", "-Wl,-install_name,@rpath/libdep.dylib")
                   .empty());
  const auto user = test::macho_dylib(
      m_dir, "libuser.dylib", "int dep(void);\nint g(void) { return dep(); }\n", "arm64-apple-macos11",
      "-Wl,-rpath,@loader_path/../lib -Wl,-weak_library," +
          test::shell_quote((m_dir / "libdep.dylib").string()));
  ASSERT_FALSE(user.empty());
  const auto slice = read(user).slices.at(0);
  EXPECT_EQ(slice.rpaths, std::vector<std::string>{"@loader_path/../lib"});
  bool weak = false;
  for (const auto& dylib : slice.dylibs)
    weak |= dylib.path == "@rpath/libdep.dylib" && dylib.kind == DylibLoad::weak;
  EXPECT_TRUE(weak);
}

TEST_F(MachOReadTest, UniversalWithEitherFatHeaderByteOrder) {
  const auto arm = test::macho_dylib(m_dir, "arm.dylib", k_source, "arm64-apple-macos11");
  const auto x86 = test::macho_dylib(m_dir, "x86.dylib", k_source, "x86_64-apple-macos10.9");
  ASSERT_FALSE(arm.empty());
  ASSERT_FALSE(x86.empty());
  for (const bool big : {true, false}) {
    const auto file = read(test::fat_binary({{test::k_cpu_x86_64, x86}, {test::k_cpu_arm64, arm}}, big));
    EXPECT_TRUE(file.universal);
    ASSERT_EQ(file.slices.size(), 2u);
    EXPECT_EQ(file.slices[0].arch, "x86_64");
    EXPECT_EQ(file.slices[1].arch, "arm64");
    EXPECT_EQ(file.slices[1].min_macos->to_string(), "11.0");
  }
}

TEST_F(MachOReadTest, LazyReadCoversOnlyHeadersAndLoadCommands) {
  const auto arm =
      test::macho_dylib(m_dir, "arm.dylib", "char big[8 << 20] = {1};\nint f(int x) { return big[x]; }\n",
                        "arm64-apple-macos11");
  const auto x86 = test::macho_dylib(m_dir, "x86.dylib", k_source, "x86_64-apple-macos10.9");
  ASSERT_FALSE(arm.empty() || x86.empty());
  for (const bool big : {true, false}) {
    const auto fat = test::fat_binary({{test::k_cpu_x86_64, x86}, {test::k_cpu_arm64, arm}}, big);
    test::ZeroedImage image(fat);
    const auto lazy = read_macho(image);
    ASSERT_TRUE(lazy && lazy->has_value());
    const auto whole = read(fat);
    ASSERT_EQ((*lazy)->slices.size(), 2u);
    for (std::size_t i = 0; i < 2; ++i) {
      EXPECT_EQ((*lazy)->slices[i].arch, whole.slices[i].arch);
      EXPECT_EQ((*lazy)->slices[i].min_macos, whole.slices[i].min_macos);
      EXPECT_EQ((*lazy)->slices[i].dylibs.size(), whole.slices[i].dylibs.size());
    }
    EXPECT_LT(image.covered(), 64u << 10);
  }
}

TEST_F(MachOReadTest, FatSliceOutsideTheFileOrMislabelledIsRefused) {
  const auto arm = test::macho_dylib(m_dir, "arm.dylib", k_source, "arm64-apple-macos11");
  ASSERT_FALSE(arm.empty());
  auto fat = test::fat_binary({{test::k_cpu_arm64, arm}});
  auto cut = fat.substr(0, fat.size() - 1);
  auto result = read_macho(cut);
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message().find("runs past the end of the file"), std::string::npos);
  auto lying = test::fat_binary({{test::k_cpu_x86_64, arm}});
  result = read_macho(lying);
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message().find("holds arm64"), std::string::npos) << result.error().message();
  auto twice = test::fat_binary({{test::k_cpu_arm64, arm}, {test::k_cpu_arm64, arm}});
  result = read_macho(twice);
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message().find("repeats architecture arm64"), std::string::npos);
}

TEST_F(MachOReadTest, JavaClassAndOtherFilesAreNotMachO) {
  const std::string java("\xca\xfe\xba\xbe\x00\x00\x00\x34rest of a class file", 28);
  for (const std::string& bytes : {java,
                                   std::string("\x7f"
                                               "ELF\x02\x01\x01",
                                               7),
                                   std::string("abc"), std::string()}) {
    const auto result = read_macho(bytes);
    ASSERT_TRUE(result) << result.error().describe();
    EXPECT_FALSE(result->has_value());
  }
}

TEST_F(MachOReadTest, BadLoadCommandSizesAreRefused) {
  const auto dylib = test::macho_dylib(m_dir, "liba.dylib", k_source, "arm64-apple-macos11");
  ASSERT_FALSE(dylib.empty());
  auto zero = dylib;
  put32le(zero, 32 + 4, 0);  // the first command's cmdsize
  auto result = read_macho(zero);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().category(), ErrorCategory::integrity);
  EXPECT_NE(result.error().message().find("load command 0 has size 0"), std::string::npos)
      << result.error().message();
  auto huge = dylib;
  put32le(huge, 20, 0xfffffff0);  // sizeofcmds
  result = read_macho(huge);
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message().find("run past the end of the file"), std::string::npos);
  auto many = dylib;
  put32le(many, 16, 0xffffffff);  // ncmds far beyond what sizeofcmds holds
  result = read_macho(many);
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message().find("lies past sizeofcmds"), std::string::npos)
      << result.error().message();
}

// A 64-bit arm64 dylib header followed by `count` LC_RPATH commands of 16 bytes each.
std::string many_rpaths(std::uint32_t count) {
  std::string bytes(32 + std::size_t{count} * 16, '\0');
  put32le(bytes, 0, 0xfeedfacf);
  put32le(bytes, 4, 0x0100000c);
  put32le(bytes, 12, 6);  // MH_DYLIB
  put32le(bytes, 16, count);
  put32le(bytes, 20, count * 16);
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::size_t at = 32 + std::size_t{i} * 16;
    put32le(bytes, at, 0x8000001c);
    put32le(bytes, at + 4, 16);
    put32le(bytes, at + 8, 12);
    bytes[at + 12] = '@';
    bytes[at + 13] = 'a';
  }
  return bytes;
}

TEST_F(MachOReadTest, MoreRpathsThanTheCapAreRefused) {
  EXPECT_EQ(read(many_rpaths(256)).slices.at(0).rpaths.size(), 256u);
  const auto result = read_macho(many_rpaths(257));
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message().find("more than 256 rpaths"), std::string::npos)
      << result.error().message();
}

TEST_F(MachOReadTest, EveryPrefixOfARealDylibIsReadOrRefusedWithoutCrashing) {
  const auto dylib = test::macho_dylib(m_dir, "liba.dylib", k_source, "arm64-apple-macos11");
  ASSERT_FALSE(dylib.empty());
  std::size_t refused = 0;
  for (std::size_t n = 0; n <= dylib.size(); n += (n < 4096 ? 1 : 97)) {
    const auto result = read_macho(std::string_view(dylib).substr(0, n));
    if (!result) ++refused;
  }
  EXPECT_GT(refused, 0u);
}

TEST(MacosPolicy, TagsMapToVersionsAndArchs) {
  const auto arm = macos_policy("macosx_11_0_arm64");
  ASSERT_TRUE(arm);
  EXPECT_EQ(arm->version.to_string(), "11.0");
  EXPECT_EQ(arm->archs, std::vector<std::string>{"arm64"});
  EXPECT_EQ(macos_policy("macosx_10_9_universal2")->archs, (std::vector<std::string>{"x86_64", "arm64"}));
  EXPECT_EQ(macos_policy("macosx_10_6_intel")->archs, (std::vector<std::string>{"i386", "x86_64"}));
  EXPECT_EQ(macos_policy("macosx_10_15_x86_64")->version.to_string(), "10.15");
  EXPECT_FALSE(macos_policy("win_amd64"));
  EXPECT_FALSE(macos_policy("manylinux_2_28_x86_64"));
}

MachOSlice slice(const std::string& arch, MachOVersion minos, std::vector<std::string> dylibs,
                 std::vector<std::string> rpaths = {}) {
  MachOSlice out;
  out.arch = arch;
  out.min_macos = minos;
  out.build_platform = 1;
  for (auto& path : dylibs) out.dylibs.push_back({DylibLoad::load, std::move(path)});
  out.rpaths = std::move(rpaths);
  return out;
}

TEST(MacosPolicy, ViolationsNameArchVersionAndDylib) {
  const std::set<std::string> files = {"pkg/_ext.so", "pkg/.dylibs/libdep.dylib", "pkg/libnear.dylib"};
  const auto policy = *macos_policy("macosx_11_0_arm64");
  MachOFile good{
      false,
      {slice("arm64", {11, 0, 0},
             {"/usr/lib/libSystem.B.dylib", "/System/Library/Frameworks/Accelerate.framework/Accelerate",
              "@rpath/libdep.dylib", "@loader_path/libnear.dylib"},
             {"/usr/local/lib", "@loader_path/.dylibs"})}};
  EXPECT_EQ(macho_violations("pkg/_ext.so", good, policy, files), std::vector<std::string>{});

  MachOFile bad{false,
                {slice("arm64", {14, 0, 0},
                       {"@rpath/libmissing.dylib", "/opt/homebrew/lib/libomp.dylib",
                        "@executable_path/libx.dylib", "@loader_path/../../outside.dylib"},
                       {"@loader_path"})}};
  const auto found = macho_violations("pkg/_ext.so", bad, policy, files);
  ASSERT_EQ(found.size(), 5u);
  EXPECT_EQ(found[0],
            "pkg/_ext.so (arm64) needs macOS 14.0, newer than the 11.0 that macosx_11_0_arm64 promises: "
            "rebuild it with "
            "MACOSX_DEPLOYMENT_TARGET=11.0, or tag the wheel macosx_14_0_arm64");
  EXPECT_NE(found[1].find("loads @rpath/libmissing.dylib, which is neither a macOS system library"),
            std::string::npos);
  EXPECT_NE(found[1].find("(rpaths: @loader_path)"), std::string::npos);
  EXPECT_NE(found[2].find("/opt/homebrew/lib/libomp.dylib"), std::string::npos);
  EXPECT_NE(found[3].find("@executable_path/libx.dylib"), std::string::npos);
  EXPECT_NE(found[4].find("@loader_path/../../outside.dylib"), std::string::npos);

  MachOFile x86{false, {slice("x86_64", {10, 9, 0}, {})}};
  const auto wrong_arch = macho_violations("pkg/_ext.so", x86, policy, files);
  ASSERT_EQ(wrong_arch.size(), 1u);
  EXPECT_EQ(wrong_arch[0],
            "pkg/_ext.so holds x86_64 but macosx_11_0_arm64 needs arm64: build it for that architecture "
            "(ARCHFLAGS=\"-arch arm64\"), or tag the wheel for what it holds");
}

TEST(MacosPolicy, Universal2AsksArm64ForMacos11AndBothSlices) {
  const auto policy = *macos_policy("macosx_10_9_universal2");
  MachOFile both{true, {slice("x86_64", {10, 9, 0}, {}), slice("arm64", {11, 0, 0}, {})}};
  EXPECT_TRUE(macho_violations("a.so", both, policy, {}).empty());
  MachOFile x86_too_new{true, {slice("x86_64", {10, 13, 0}, {}), slice("arm64", {11, 0, 0}, {})}};
  EXPECT_EQ(macho_violations("a.so", x86_too_new, policy, {}).size(), 1u);
  MachOFile thin{false, {slice("arm64", {11, 0, 0}, {})}};
  const auto found = macho_violations("a.so", thin, policy, {});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("needs x86_64"), std::string::npos) << found[0];
}

TEST(MacosPolicy, MissingOrForeignPlatformVersionIsAFinding) {
  const auto policy = *macos_policy("macosx_11_0_arm64");
  MachOFile none{false, {slice("arm64", {11, 0, 0}, {})}};
  none.slices[0].min_macos.reset();
  none.slices[0].build_platform.reset();
  auto found = macho_violations("a.so", none, policy, {});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("records no minimum macOS"), std::string::npos);
  MachOFile ios{false, {slice("arm64", {11, 0, 0}, {})}};
  ios.slices[0].build_platform = 2;
  found = macho_violations("a.so", ios, policy, {});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("(not macOS)"), std::string::npos);
}

}  // namespace
}  // namespace relforge::packaging
