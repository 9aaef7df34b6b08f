#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "packaging/wheel_archive.hpp"
#include "packaging/wheel_elf_policy.hpp"
#include "packaging/wheel_entry_image.hpp"
#include "platform/fs.hpp"
#include "tests/support/run.hpp"

namespace relforge::packaging {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> flat(const std::vector<VersionedSymbol>& symbols) {
  std::vector<std::string> out;
  for (const auto& s : symbols) out.push_back(s.symbol + "@" + s.version);
  return out;
}

void expect_same(const ElfRequirements& a, const ElfRequirements& b) {
  EXPECT_EQ(a.needed, b.needed);
  EXPECT_EQ(a.versions, b.versions);
  EXPECT_EQ(flat(a.symbols), flat(b.symbols));
}

// Records how far into the bytes the reader asked to look.
class CountingImage final : public ElfImage {
public:
  explicit CountingImage(std::string bytes) : m_bytes(std::move(bytes)) {}
  std::uint64_t size() const override { return m_bytes.size(); }
  char* data() override { return m_bytes.data(); }
  Status cover_prefix(std::uint64_t end) override {
    m_furthest = std::max(m_furthest, end);
    return {};
  }
  Status cover_ranges(std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges) override {
    for (const auto& [first, length] : ranges) m_furthest = std::max(m_furthest, first + length);
    return {};
  }
  std::uint64_t furthest() const { return m_furthest; }

private:
  std::string m_bytes;
  std::uint64_t m_furthest = 0;
};

class WheelElfReadTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("relforge-elf-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
  }
  void TearDown() override { fs::remove_all(m_dir); }

  // Compiles `source` (C, or C++ when `cxx`) into a shared library and returns its bytes.
  std::string build(const std::string& name, const std::string& source, bool cxx,
                    const std::string& flags = "") {
    const auto src = m_dir / (name + (cxx ? ".cpp" : ".c"));
    EXPECT_TRUE(platform::write_file_atomic(src, source, platform::Durability::no_fsync));
    const auto library = m_dir / name;
    const auto compiled = test::run_shell(std::string(cxx ? "c++" : "cc") + " -shared -fPIC -o " +
                                          library.string() + " " + src.string() + " " + flags);
    EXPECT_EQ(compiled.exit_code, 0) << compiled.err;
    auto bytes = platform::read_file(library);
    EXPECT_TRUE(bytes);
    return bytes ? *bytes : std::string();
  }

  fs::path m_dir;
};

const char* k_cxx_source =
    "#include <iostream>\n#include <stdexcept>\n"
    "void hello() { std::cout << \"hi\" << std::endl; }\n"
    "void boom() { throw std::runtime_error(\"x\"); }\n";

TEST_F(WheelElfReadTest, DynamicSegmentAgreesWithSectionHeaders) {
  const auto c_lib = build(
      "libc_user.so", "#include <pthread.h>\nint f(pthread_t t) { return pthread_join(t, 0); }\n", false);
  const auto cxx_lib = build("libcxx_user.so", k_cxx_source, true);
  const auto sysv = build("libsysv.so", k_cxx_source, true, "-Wl,--hash-style=sysv");
  std::vector<std::string> libraries = {c_lib, cxx_lib, sysv};
  for (const char* system :
       {"/usr/lib/x86_64-linux-gnu/libstdc++.so.6", "/usr/lib/x86_64-linux-gnu/libz.so.1"})
    if (auto bytes = platform::read_file(system)) libraries.push_back(*bytes);
  for (std::size_t i = 0; i < libraries.size(); ++i) {
    SCOPED_TRACE("library " + std::to_string(i));
    const auto dynamic = read_elf_requirements(libraries[i], ElfScan::dynamic_segment);
    const auto sections = read_elf_requirements(libraries[i], ElfScan::section_headers);
    ASSERT_TRUE(dynamic && *dynamic && sections && *sections);
    EXPECT_FALSE((*sections)->needed.empty());
    EXPECT_FALSE((*sections)->versions.empty());
    expect_same(**dynamic, **sections);
  }
  // The C++ library needs GLIBCXX_ and CXXABI_ versions, with the symbols that need them.
  const auto cxx = read_elf_requirements(cxx_lib);
  ASSERT_TRUE(cxx && *cxx);
  const auto has = [&](const std::string& prefix) {
    return std::any_of((*cxx)->symbols.begin(), (*cxx)->symbols.end(),
                       [&](const VersionedSymbol& s) { return s.version.starts_with(prefix); });
  };
  EXPECT_TRUE(has("GLIBCXX_3.4"));
  EXPECT_TRUE(has("CXXABI_1.3"));
  EXPECT_NE(std::find((*cxx)->needed.begin(), (*cxx)->needed.end(), "libstdc++.so.6"), (*cxx)->needed.end());
}

// A library whose section headers sit after 8 MiB of payload (as in big CUDA libraries) is read
// from its first KiBs; the section-header scan gives the same answer from further in.
TEST_F(WheelElfReadTest, ReadsOnlyTheStartOfALibraryWithABigSection) {
  build("libbig.so", k_cxx_source, true);
  ASSERT_TRUE(platform::write_file_atomic(m_dir / "payload.bin", std::string(8 << 20, 'p'),
                                          platform::Durability::no_fsync));
  const auto added = test::run_shell("objcopy --add-section .payload=" + (m_dir / "payload.bin").string() +
                                     " " + (m_dir / "libbig.so").string());
  ASSERT_EQ(added.exit_code, 0) << added.err;
  const auto bytes = platform::read_file(m_dir / "libbig.so");
  ASSERT_TRUE(bytes);
  ASSERT_GT(bytes->size(), 8u << 20);
  CountingImage dynamic_image(*bytes);
  const auto dynamic = read_elf_requirements(dynamic_image);
  ASSERT_TRUE(dynamic && *dynamic);
  EXPECT_LT(dynamic_image.furthest(), 256u << 10);
  CountingImage section_image(*bytes);
  const auto sections = read_elf_requirements(section_image, ElfScan::section_headers);
  ASSERT_TRUE(sections && *sections);
  EXPECT_GT(section_image.furthest(), 8u << 20);
  expect_same(**dynamic, **sections);

  // Through a zip entry: the same requirements, inflating only what the reader asked for.
  const auto wheel = m_dir / "big.zip";
  ASSERT_TRUE(
      write_zip(wheel, nullptr, {{"pkg/libbig.so", nullptr, *bytes}, {"pkg/notelf.so", nullptr, "text"}}));
  auto reader = ZipReader::open(wheel);
  ASSERT_TRUE(reader);
  for (const auto scan : {ElfScan::dynamic_segment, ElfScan::section_headers}) {
    auto image = open_entry_image(*reader, reader->entries()[0]);
    ASSERT_TRUE(image);
    const auto from_zip = read_elf_requirements(**image, scan);
    ASSERT_TRUE(from_zip && *from_zip) << (from_zip ? "" : from_zip.error().describe());
    expect_same(**from_zip, **sections);
  }
  auto text = open_entry_image(*reader, reader->entries()[1]);
  ASSERT_TRUE(text);
  const auto not_elf = read_elf_requirements(**text);
  ASSERT_TRUE(not_elf);
  EXPECT_FALSE(not_elf->has_value());
}

// DT_NEEDED of a library that is neither allowed nor bundled is a violation naming both.
TEST_F(WheelElfReadTest, NeededLibraryOutsideThePolicyIsNamed) {
  build("libdep.so", "int dep(void) { return 1; }\n", false);
  const auto user = build("libuser.so", "int dep(void);\nint user(void) { return dep(); }\n", false,
                          "-L" + m_dir.string() + " -ldep");
  const auto requirements = read_elf_requirements(user);
  ASSERT_TRUE(requirements && *requirements);
  const auto policy = manylinux_policy("manylinux_2_28_x86_64");
  ASSERT_TRUE(policy);
  const auto refused = policy_violations("pkg/libuser.so", **requirements, *policy, {});
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_NE(refused[0].find("pkg/libuser.so links libdep.so"), std::string::npos) << refused[0];
  EXPECT_TRUE(policy_violations("pkg/libuser.so", **requirements, *policy, {"libdep.so"}).empty());
}

TEST_F(WheelElfReadTest, TruncatedElfIsAnIntegrityError) {
  const auto lib = build("libcut.so", "int f(void) { return 1; }\n", false);
  const auto cut = read_elf_requirements(std::string_view(lib).substr(0, 40));
  ASSERT_FALSE(cut);
  EXPECT_EQ(cut.error().category(), ErrorCategory::integrity);
}

// A library that needs pthread_join@GLIBC_2.34 (pinned with .symver), or "" where glibc is older.
const char* k_glibc_234_source =
    "#include <pthread.h>\n__asm__(\".symver pthread_join, pthread_join@GLIBC_2.34\");\n"
    "int f(pthread_t t) { return pthread_join(t, 0); }\n";

bool glibc_has_234() {
  const auto glibc = test::run_shell("ldd --version | head -1 | grep -o '2\\.[0-9]*$'");
  return glibc.exit_code == 0 && glibc.out.size() > 2 && std::stoi(glibc.out.substr(2)) >= 34;
}

TEST_F(WheelElfReadTest, AGlibc234LibraryIsReadByBothScansAndRefusedFor228) {
  if (!glibc_has_234()) GTEST_SKIP() << "glibc older than 2.34 here";
  const auto lib = build("libg.so", k_glibc_234_source, false);
  const auto policy = manylinux_policy("manylinux_2_28_x86_64");
  for (const auto scan : {ElfScan::dynamic_segment, ElfScan::section_headers}) {
    const auto read = read_elf_requirements(lib, scan);
    ASSERT_TRUE(read && *read) << (read ? "" : read.error().message());
    EXPECT_NE(std::find((*read)->versions.begin(), (*read)->versions.end(), "GLIBC_2.34"),
              (*read)->versions.end());
    const auto refused = policy_violations("demo/libg.so", **read, *policy, {});
    ASSERT_FALSE(refused.empty());
    EXPECT_NE(refused[0].find("demo/libg.so needs pthread_join@GLIBC_2.34"), std::string::npos) << refused[0];
  }
}

// Each way of damaging .gnu.version_r (names past the string table, a count that hides the
// versions .gnu.version uses, a file cut inside the section) is an integrity error from both
// scans, never an empty answer that would pass the policy.
TEST_F(WheelElfReadTest, UnreadableOrInconsistentVersionDataFailsClosed) {
  if (!glibc_has_234()) GTEST_SKIP() << "glibc older than 2.34 here";
  build("libg.so", k_glibc_234_source, false);
  for (const std::string mode : {"names", "count", "truncate"}) {
    SCOPED_TRACE(mode);
    const auto copy = m_dir / ("lib_" + mode + ".so");
    fs::copy_file(m_dir / "libg.so", copy, fs::copy_options::overwrite_existing);
    const auto damaged = test::run_shell(
        "/usr/bin/python3 " + test::shell_quote(test::source_path("tests/fixtures/elf/corrupt_verneed.py")) +
        " " + test::shell_quote(copy.string()) + " " + mode);
    ASSERT_EQ(damaged.exit_code, 0) << damaged.err;
    const auto bytes = platform::read_file(copy);
    ASSERT_TRUE(bytes);
    for (const auto scan : {ElfScan::dynamic_segment, ElfScan::section_headers}) {
      const auto read = read_elf_requirements(*bytes, scan);
      ASSERT_FALSE(read) << "scan " << static_cast<int>(scan) << " read "
                         << (read && *read ? (*read)->versions.size() : 0) << " versions";
      EXPECT_EQ(read.error().category(), ErrorCategory::integrity);
      EXPECT_NE(read.error().message().find("symbol-version data is unreadable or inconsistent"),
                std::string::npos)
          << read.error().message();
    }
  }
}

}  // namespace
}  // namespace relforge::packaging
