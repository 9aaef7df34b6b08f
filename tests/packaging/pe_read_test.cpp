#include "packaging/pe.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "packaging/wheel_pe_policy.hpp"
#include "tests/packaging/foreign_binaries.hpp"
#include "tests/packaging/zeroed_image.hpp"

namespace relforge::packaging {
namespace {

namespace fs = std::filesystem;

const char* const k_system_source =
    "#include <windows.h>\n__declspec(dllexport) int f(void) { return (int)GetTickCount(); }\n";

void put16(std::string& bytes, std::size_t at, std::uint16_t value) {
  bytes[at] = static_cast<char>(value & 0xff);
  bytes[at + 1] = static_cast<char>(value >> 8);
}
void put32(std::string& bytes, std::size_t at, std::uint32_t value) {
  for (int i = 0; i < 4; ++i)
    bytes[at + static_cast<std::size_t>(i)] = static_cast<char>((value >> (8 * i)) & 0xff);
}
void put64(std::string& bytes, std::size_t at, std::uint64_t value) {
  put32(bytes, at, static_cast<std::uint32_t>(value));
  put32(bytes, at + 4, static_cast<std::uint32_t>(value >> 32));
}

constexpr std::uint64_t k_image_base = 0x10000000;  // below 4 GiB, so VC6-style 32-bit addresses fit
constexpr std::size_t k_raw = 0x200;                // the one section's file offset
constexpr std::uint32_t k_rva = 0x1000;             // and its RVA

// A PE32+ DLL laid out by hand: one section holding the import descriptors, then the delay-load
// descriptors (RVA-based, or VC6 style with virtual addresses when `delay_as_va`), then the names.
std::string synthetic_pe(const std::vector<std::string>& imports, const std::vector<std::string>& delayed,
                         bool delay_as_va = false, std::uint16_t machine = k_pe_machine_amd64) {
  std::string bytes(k_raw + 0x1000, '\0');
  bytes[0] = 'M';
  bytes[1] = 'Z';
  put32(bytes, 0x3c, 0x80);
  std::memcpy(&bytes[0x80], "PE\0\0", 4);
  const std::size_t coff = 0x84, optional = coff + 20;
  put16(bytes, coff, machine);
  put16(bytes, coff + 2, 1);      // one section
  put16(bytes, coff + 16, 240);   // SizeOfOptionalHeader of PE32+ with 16 directories
  put16(bytes, optional, 0x20b);  // PE32+
  put64(bytes, optional + 24, k_image_base);
  put32(bytes, optional + 108, 16);
  const std::size_t section = optional + 240;
  std::memcpy(&bytes[section], ".idata\0\0", 8);
  put32(bytes, section + 8, 0x1000);
  put32(bytes, section + 12, k_rva);
  put32(bytes, section + 16, 0x1000);
  put32(bytes, section + 20, k_raw);
  const std::size_t import_at = 0, delay_at = (imports.size() + 1) * 20;
  std::size_t name_at = delay_at + (delayed.size() + 1) * 32;
  auto add_name = [&](const std::string& name) {
    std::memcpy(&bytes[k_raw + name_at], name.data(), name.size());
    const auto rva = static_cast<std::uint32_t>(k_rva + name_at);
    name_at += name.size() + 1;
    return rva;
  };
  for (std::size_t i = 0; i < imports.size(); ++i) {
    put32(bytes, k_raw + import_at + i * 20, k_rva + 0x800);  // OriginalFirstThunk: anything non-zero
    put32(bytes, k_raw + import_at + i * 20 + 12, add_name(imports[i]));
    put32(bytes, k_raw + import_at + i * 20 + 16, k_rva + 0x800);
  }
  for (std::size_t i = 0; i < delayed.size(); ++i) {
    const auto rva = add_name(delayed[i]);
    put32(bytes, k_raw + delay_at + i * 32, delay_as_va ? 0 : 1);
    put32(bytes, k_raw + delay_at + i * 32 + 4,
          delay_as_va ? static_cast<std::uint32_t>(k_image_base + rva) : rva);
  }
  const std::size_t directories = optional + 112;
  if (!imports.empty()) {
    put32(bytes, directories + 8, k_rva + static_cast<std::uint32_t>(import_at));
    put32(bytes, directories + 12, static_cast<std::uint32_t>((imports.size() + 1) * 20));
  }
  if (!delayed.empty()) {
    put32(bytes, directories + 13 * 8, k_rva + static_cast<std::uint32_t>(delay_at));
    put32(bytes, directories + 13 * 8 + 4, static_cast<std::uint32_t>((delayed.size() + 1) * 32));
  }
  return bytes;
}

class PeReadTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("relforge-pe-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_dir);
  }
  void TearDown() override { fs::remove_all(m_dir); }
  fs::path m_dir;
};

TEST_F(PeReadTest, MingwDllImportsOnlySystemDlls) {
  const auto dll = test::mingw_dll(m_dir, "sys.dll", k_system_source);
  ASSERT_FALSE(dll.empty());
  const auto image = read_pe(dll);
  ASSERT_TRUE(image) << image.error().describe();
  ASSERT_TRUE(image->has_value());
  EXPECT_EQ((*image)->machine, k_pe_machine_amd64);
  EXPECT_TRUE((*image)->pe32_plus);
  // mingw links the C runtime msvcrt.dll and KERNEL32.dll for GetTickCount.
  EXPECT_NE(std::find((*image)->imports.begin(), (*image)->imports.end(), "KERNEL32.dll"),
            (*image)->imports.end());
  for (const auto& dll_name : (*image)->imports) EXPECT_TRUE(is_windows_system_dll(dll_name)) << dll_name;
  EXPECT_TRUE((*image)->delay_imports.empty());
}

TEST_F(PeReadTest, I686DllIsI386AndPe32) {
  const auto dll = test::mingw_dll(m_dir, "sys32.dll", k_system_source, true);
  ASSERT_FALSE(dll.empty());
  const auto image = read_pe(dll);
  ASSERT_TRUE(image && image->has_value());
  EXPECT_EQ((*image)->machine, k_pe_machine_i386);
  EXPECT_FALSE((*image)->pe32_plus);
  EXPECT_EQ(pe_machine_name((*image)->machine), "I386");
}

TEST_F(PeReadTest, DllLinkedAgainstFooImportsFoo) {
  ASSERT_TRUE(test::mingw_import_library(m_dir, "foo.dll", "foo"));
  const auto dll = test::mingw_dll(m_dir, "usefoo.dll",
                                   "__declspec(dllimport) int foo(int);\n"
                                   "__declspec(dllexport) int g(int x) { return foo(x); }\n",
                                   false, "-lfoo");
  ASSERT_FALSE(dll.empty());
  const auto image = read_pe(dll);
  ASSERT_TRUE(image && image->has_value());
  EXPECT_EQ((*image)->imports.front(), "foo.dll");
}

TEST_F(PeReadTest, DelayLoadImportsAreRead) {
  const auto image = read_pe(synthetic_pe({"KERNEL32.dll"}, {"nvcuda.dll", "bar.dll"}));
  ASSERT_TRUE(image) << image.error().describe();
  ASSERT_TRUE(image->has_value());
  EXPECT_EQ((*image)->imports, std::vector<std::string>{"KERNEL32.dll"});
  EXPECT_EQ((*image)->delay_imports, (std::vector<std::string>{"nvcuda.dll", "bar.dll"}));
}

TEST_F(PeReadTest, OldStyleDelayLoadNamesAreVirtualAddresses) {
  const auto image = read_pe(synthetic_pe({}, {"bar.dll"}, true));
  ASSERT_TRUE(image && image->has_value());
  EXPECT_EQ((*image)->delay_imports, std::vector<std::string>{"bar.dll"});
}

TEST_F(PeReadTest, NotPeIsNulloptNotError) {
  for (const std::string& bytes : {std::string(), std::string("MZ"), std::string(100, 'M'),
                                   std::string("\x7f"
                                               "ELF") +
                                       std::string(100, '\0'),
                                   std::string("MZ") + std::string(62, '\0')}) {
    const auto image = read_pe(bytes);
    ASSERT_TRUE(image) << image.error().describe();
    EXPECT_FALSE(image->has_value());
  }
  // e_lfanew pointing past the end: a DOS stub without a PE header.
  auto bytes = synthetic_pe({"a.dll"}, {});
  put32(bytes, 0x3c, 0xfffffff0);
  const auto image = read_pe(bytes);
  ASSERT_TRUE(image);
  EXPECT_FALSE(image->has_value());
}

TEST_F(PeReadTest, ImportDirectoryOutsideSectionsIsRefused) {
  auto bytes = synthetic_pe({"a.dll"}, {});
  put32(bytes, 0x84 + 20 + 112 + 8, 0x7fff0000);
  const auto image = read_pe(bytes);
  ASSERT_FALSE(image);
  EXPECT_EQ(image.error().category(), ErrorCategory::integrity);
  EXPECT_NE(image.error().message().find("the import directory lies outside the file's sections"),
            std::string::npos)
      << image.error().message();
}

TEST_F(PeReadTest, UnterminatedOrUnprintableNameIsRefused) {
  auto bytes = synthetic_pe({"a.dll"}, {});
  const std::size_t name = k_raw + 2 * 20 + 32;  // the first name, after both descriptor tables
  ASSERT_EQ(bytes.substr(name, 5), "a.dll");
  bytes.replace(name, 5, "a\x01.dl");
  auto image = read_pe(bytes);
  ASSERT_FALSE(image);
  EXPECT_NE(image.error().message().find("not printable ASCII"), std::string::npos);
  // The name runs to the very end of the file with no NUL.
  bytes = synthetic_pe({"a.dll"}, {});
  bytes.resize(name + 5);
  put32(bytes, 0x84 + 20 + 240 + 16, static_cast<std::uint32_t>(bytes.size() - k_raw));
  image = read_pe(bytes);
  ASSERT_FALSE(image);
  EXPECT_NE(image.error().message().find("unterminated"), std::string::npos) << image.error().message();
}

TEST_F(PeReadTest, DescriptorsWithoutTerminatorAreRefused) {
  // Every descriptor non-zero up to the end of the section's raw bytes and the file.
  auto bytes = synthetic_pe({"a.dll"}, {});
  // Each descriptor starts with the bytes "x.dll\0" and names itself.
  for (std::size_t at = k_raw; at + 20 <= bytes.size(); at += 20) {
    bytes.replace(at, 6, std::string("x.dll\0", 6));
    put32(bytes, at + 12, static_cast<std::uint32_t>(k_rva + (at - k_raw)));
  }
  const auto image = read_pe(bytes);
  ASSERT_FALSE(image);
  EXPECT_NE(image.error().message().find("without its closing entry"), std::string::npos)
      << image.error().message();
}

TEST_F(PeReadTest, MoreSectionsThanTheLoaderTakesAreRefused) {
  auto bytes = synthetic_pe({"a.dll"}, {});
  put16(bytes, 0x84 + 2, 97);
  const auto image = read_pe(bytes);
  ASSERT_FALSE(image);
  EXPECT_NE(image.error().message().find("97 sections, more than the 96 the Windows loader takes"),
            std::string::npos)
      << image.error().message();
}

TEST_F(PeReadTest, EveryPrefixOfARealDllIsReadOrRefusedWithoutCrashing) {
  const auto dll = test::mingw_dll(m_dir, "sys.dll", k_system_source);
  ASSERT_FALSE(dll.empty());
  std::size_t refused = 0;
  for (std::size_t n = 0; n <= dll.size(); n += (n < 2048 ? 1 : 61)) {
    const auto image = read_pe(std::string_view(dll).substr(0, n));
    if (!image) {
      EXPECT_EQ(image.error().category(), ErrorCategory::integrity);
      ++refused;
    }
  }
  EXPECT_GT(refused, 0u);
  EXPECT_TRUE(read_pe(dll));
}

TEST_F(PeReadTest, LazyReadCoversHeadersAndImportSectionsOnly) {
  // 8 MiB of initialised data after the code: the lazy read never needs it.
  const auto dll =
      test::mingw_dll(m_dir, "big.dll",
                      "#include <windows.h>\n__declspec(dllexport) char big[8 << 20] = {1};\n"
                      "__declspec(dllexport) int f(void) { return (int)GetTickCount() + big[5]; }\n");
  ASSERT_GT(dll.size(), 8u << 20);
  const auto whole = read_pe(dll);
  ASSERT_TRUE(whole && whole->has_value());
  test::ZeroedImage image(dll);
  const auto lazy = read_pe(image);
  ASSERT_TRUE(lazy) << lazy.error().describe();
  ASSERT_TRUE(lazy->has_value());
  EXPECT_EQ((*lazy)->imports, (*whole)->imports);
  EXPECT_EQ((*lazy)->machine, (*whole)->machine);
  EXPECT_LT(image.covered(), 256u << 10);
  for (const auto& bytes :
       {synthetic_pe({"KERNEL32.dll"}, {"nvcuda.dll"}), synthetic_pe({}, {"bar.dll"}, true)}) {
    test::ZeroedImage synthetic(bytes);
    EXPECT_EQ((*read_pe(synthetic))->delay_imports, (*read_pe(bytes))->delay_imports);
  }
}

TEST(WindowsPolicy, SystemDllsAreTheDocumentedList) {
  for (const char* name :
       {"KERNEL32.dll", "kernel32.DLL", "user32.dll", "ADVAPI32.dll", "ws2_32.dll", "ucrtbase.dll",
        "api-ms-win-crt-runtime-l1-1-0.dll", "API-MS-WIN-CORE-SYNCH-L1-2-0.DLL", "VCRUNTIME140.dll",
        "vcruntime140_1.dll", "MSVCP140.dll", "msvcp140_atomic_wait.dll", "msvcrt.dll"})
    EXPECT_TRUE(is_windows_system_dll(name)) << name;
  for (const char* name :
       {"foo.dll", "cudart64_12.dll", "python311.dll", "vcruntime1400.dll", "msvcp140x.dll", "api-ms-win-crt",
        "kernel32.dll.evil", "libgcc_s_seh-1.dll", "libwinpthread-1.dll"})
    EXPECT_FALSE(is_windows_system_dll(name)) << name;
}

TEST(WindowsPolicy, GlobsMatchCaseInsensitively) {
  EXPECT_TRUE(dll_glob_match("cudart64_*.dll", "CUDART64_12.DLL"));
  EXPECT_TRUE(dll_glob_match("cu*64_?.dll", "cublas64_1.dll"));
  EXPECT_TRUE(dll_glob_match("*", "x.dll"));
  EXPECT_FALSE(dll_glob_match("cudart64_*.dll", "cudart32_12.dll"));
  EXPECT_FALSE(dll_glob_match("cudart64_?.dll", "cudart64_12.dll"));
  EXPECT_FALSE(dll_glob_match("a*b*c*d*e*f*g", std::string(5000, 'a') + "bcdef"));
}

TEST(WindowsPolicy, TagsMapToMachines) {
  EXPECT_EQ(windows_policy("win_amd64", {})->machine, k_pe_machine_amd64);
  EXPECT_EQ(windows_policy("win32", {})->machine, k_pe_machine_i386);
  EXPECT_EQ(windows_policy("win_arm64", {})->machine, k_pe_machine_arm64);
  EXPECT_FALSE(windows_policy("manylinux_2_28_x86_64", {}));
  EXPECT_FALSE(windows_policy("win_ia64", {}));
}

TEST(WindowsPolicy, ViolationsNameFileDllAndRemedy) {
  PeImage image{k_pe_machine_i386, false, {"KERNEL32.dll", "foo.dll", "Bundled.DLL"}, {"cudart64_12.dll"}};
  const auto policy = *windows_policy("win_amd64", {});
  const auto found = pe_violations("pkg/ext.pyd", image, policy, {"bundled.dll"});
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(
      found[0],
      "pkg/ext.pyd is built for I386, but win_amd64 needs AMD64: rebuild it for AMD64 or tag the wheel for "
      "its machine");
  EXPECT_NE(
      found[1].find("pkg/ext.pyd imports foo.dll, which is neither a Windows system DLL nor in the wheel"),
      std::string::npos);
  EXPECT_NE(found[1].find("--allow-dll 'foo.dll'"), std::string::npos);
  EXPECT_NE(found[2].find("delay-loads cudart64_12.dll"), std::string::npos);
  const auto allowed = pe_violations("pkg/ext.pyd", image,
                                     *windows_policy("win32", {"CUDART64_*.dll", "foo.*"}), {"bundled.dll"});
  EXPECT_TRUE(allowed.empty()) << allowed.front();
}

}  // namespace
}  // namespace relforge::packaging
