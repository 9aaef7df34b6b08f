#include "packaging/wheel_repair.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <tuple>

#include "packaging/wheel_archive.hpp"
#include "packaging/wheel_diff.hpp"
#include "packaging/wheel_elf_policy.hpp"
#include "packaging/wheel_record.hpp"
#include "platform/fs.hpp"
#include "tests/support/run.hpp"

namespace relforge::packaging {
namespace {

namespace fs = std::filesystem;

class WheelRepairTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("relforge-repair-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_dir);
    fs::create_directories(m_dir / "out");
  }
  void TearDown() override { fs::remove_all(m_dir); }

  // A wheel named demo-1.0-cp311-cp311-linux_x86_64.whl with a correct RECORD plus `extra` files.
  fs::path make_wheel(std::vector<std::pair<std::string, std::string>> extra = {}, bool correct_record = true,
                      std::string metadata = "Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n",
                      std::string wheel =
                          "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: false\nTag: "
                          "cp311-cp311-linux_x86_64\n") {
    std::vector<std::pair<std::string, std::string>> files = {{"demo/__init__.py", "X = 1\n"},
                                                              {"demo/data.bin", std::string(200000, 'a')},
                                                              {"demo-1.0.dist-info/METADATA", metadata},
                                                              {"demo-1.0.dist-info/WHEEL", wheel}};
    files.insert(files.end(), extra.begin(), extra.end());
    std::vector<RecordEntry> record;
    std::vector<PlannedEntry> planned;
    for (const auto& [name, bytes] : files) {
      record.push_back(
          {name, correct_record ? record_hash_of(bytes) : record_hash_of("wrong"), bytes.size()});
      planned.push_back({name, nullptr, bytes});
    }
    record.push_back({"demo-1.0.dist-info/RECORD", "", std::nullopt});
    planned.push_back({"demo-1.0.dist-info/RECORD", nullptr, format_record(record)});
    const auto path = m_dir / "demo-1.0-cp311-cp311-linux_x86_64.whl";
    EXPECT_TRUE(write_zip(path, nullptr, planned));
    return path;
  }

  // Like make_wheel, with RECORD lines as `line` makes them from (name, bytes).
  fs::path make_wheel_with_record(
      const std::function<RecordEntry(const std::string&, const std::string&)>& line) {
    const std::vector<std::pair<std::string, std::string>> files = {
        {"demo/__init__.py", "X = 1\n"},
        {"demo/data.bin", std::string(200000, 'a')},
        {"demo/more.bin", std::string(100000, 'b')},
        {"demo-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n"},
        {"demo-1.0.dist-info/WHEEL",
         "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: false\nTag: cp311-cp311-linux_x86_64\n"}};
    std::vector<RecordEntry> record;
    std::vector<PlannedEntry> planned;
    for (const auto& [name, bytes] : files) {
      record.push_back(line(name, bytes));
      planned.push_back({name, nullptr, bytes});
    }
    record.push_back({"demo-1.0.dist-info/RECORD", "", std::nullopt});
    planned.push_back({"demo-1.0.dist-info/RECORD", nullptr, format_record(record)});
    const auto path = m_dir / "demo-1.0-cp311-cp311-linux_x86_64.whl";
    EXPECT_TRUE(write_zip(path, nullptr, planned));
    return path;
  }

  fs::path m_dir;
};

// The hashes are checked on two threads while the copy is written: a wrong one still leaves no
// output (not even the temp file), and the problems come in archive order, as verify lists them.
TEST_F(WheelRepairTest, TamperedEntriesLeaveNoOutputAndAreListedInArchiveOrder) {
  const auto wheel = make_wheel_with_record([](const std::string& name, const std::string& bytes) {
    const bool tampered = name == "demo/__init__.py" || name == "demo/more.bin";
    return RecordEntry{name, record_hash_of(tampered ? bytes + "x" : bytes), bytes.size()};
  });
  const auto result = repair_wheel({wheel, m_dir / "out", "manylinux_2_28_x86_64", "cpu", std::nullopt});
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().category(), ErrorCategory::integrity);
  const auto& message = result.error().message();
  const auto first = message.find("'demo/__init__.py': RECORD says");
  const auto second = message.find("'demo/more.bin': RECORD says");
  ASSERT_NE(first, std::string::npos) << message;
  ASSERT_NE(second, std::string::npos) << message;
  EXPECT_LT(first, second);
  EXPECT_EQ(message.find("demo/data.bin"), std::string::npos) << message;
  const auto verified = verify_wheel(wheel);
  ASSERT_FALSE(verified);
  EXPECT_NE(message.find(verified.error().describe()), std::string::npos) << message;
  EXPECT_TRUE(fs::is_empty(m_dir / "out"));
}

TEST_F(WheelRepairTest, RecordLinesWithoutSizesGetTheSizesOfTheBytes) {
  const auto wheel = make_wheel_with_record([](const std::string& name, const std::string& bytes) {
    return RecordEntry{name, record_hash_of(bytes), std::nullopt};
  });
  const auto result = repair_wheel({wheel, m_dir / "out", std::nullopt, "cpu", std::nullopt});
  ASSERT_TRUE(result) << result.error().describe();
  auto reader = ZipReader::open(result->output);
  ASSERT_TRUE(reader);
  const auto* record = &reader->entries().back();
  ASSERT_EQ(record->name, "demo-1.0+cpu.dist-info/RECORD");
  const auto text = reader->read(*record);
  ASSERT_TRUE(text);
  EXPECT_NE(text->find("demo/data.bin," + record_hash_of(std::string(200000, 'a')) + ",200000\n"),
            std::string::npos)
      << *text;
  EXPECT_NE(text->find("demo/more.bin," + record_hash_of(std::string(100000, 'b')) + ",100000\n"),
            std::string::npos)
      << *text;
  const auto verified = verify_wheel(result->output);
  ASSERT_TRUE(verified) << verified.error().describe();
  EXPECT_EQ(verified->hashed, 5u);
}

TEST_F(WheelRepairTest, SetsLocalLabelRetagsAndRebuildsRecord) {
  const auto wheel = make_wheel();
  RepairOptions options{wheel, m_dir / "out", "manylinux_2_28_x86_64", "cu130", std::nullopt};
  const auto result = repair_wheel(options);
  ASSERT_TRUE(result) << result.error().describe();
  EXPECT_EQ(result->output.filename(), "demo-1.0+cu130-cp311-cp311-manylinux_2_28_x86_64.whl");
  EXPECT_EQ(result->version, "1.0+cu130");
  EXPECT_EQ(result->copied, 2u);
  EXPECT_EQ(result->rewritten, 3u);
  const auto verified = verify_wheel(result->output);
  ASSERT_TRUE(verified) << verified.error().describe();
  EXPECT_EQ(verified->hashed, 4u);
  auto reader = ZipReader::open(result->output);
  ASSERT_TRUE(reader);
  std::vector<std::string> names;
  for (const auto& entry : reader->entries()) names.push_back(entry.name);
  EXPECT_EQ(names.back(), "demo-1.0+cu130.dist-info/RECORD");
  for (const auto& entry : reader->entries()) {
    if (entry.name.ends_with("WHEEL")) {
      EXPECT_NE(reader->read(entry)->find("Tag: cp311-cp311-manylinux_2_28_x86_64\n"), std::string::npos);
    }
    if (entry.name.ends_with("METADATA")) {
      EXPECT_NE(reader->read(entry)->find("Version: 1.0+cu130\n"), std::string::npos);
    }
  }
}

TEST_F(WheelRepairTest, OnlyTheVersionHeaderChangesNotTheDescriptionBody) {
  const auto wheel = make_wheel(
      {}, true, "Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n\nVersion: 1.0 is the first release.\n");
  RepairOptions options{wheel, m_dir / "out", std::nullopt, "cpu", std::nullopt};
  const auto result = repair_wheel(options);
  ASSERT_TRUE(result) << result.error().describe();
  auto reader = ZipReader::open(result->output);
  ASSERT_TRUE(reader);
  for (const auto& entry : reader->entries()) {
    if (entry.name.ends_with("METADATA")) {
      EXPECT_EQ(
          *reader->read(entry),
          "Metadata-Version: 2.1\nName: demo\nVersion: 1.0+cpu\n\nVersion: 1.0 is the first release.\n");
    }
  }
}

// Installers take scripts, headers and data from `{dist-info stem}.data/`: a folder left under the
// old version's name was installed into site-packages as package files.
TEST_F(WheelRepairTest, TheDataFolderIsRenamedWithTheDistInfoFolder) {
  const auto wheel = make_wheel({{"demo-1.0.data/scripts/demo-tool", "#!python\nprint(1)\n"},
                                 {"demo-1.0.data/headers/demo.h", "int demo;\n"},
                                 {"demo/demo-1.0.data/keep.txt", "not the data folder\n"}});
  for (const auto& [local, version, stem] : {std::tuple{"cpu", std::optional<std::string>{}, "demo-1.0+cpu"},
                                             std::tuple{"", std::optional<std::string>{"2.0"}, "demo-2.0"}}) {
    SCOPED_TRACE(stem);
    RepairOptions options{wheel, m_dir / stem, std::nullopt, local, version};
    const auto result = repair_wheel(options);
    ASSERT_TRUE(result) << result.error().describe();
    const auto verified = verify_wheel(result->output);
    ASSERT_TRUE(verified) << verified.error().describe();
    auto reader = ZipReader::open(result->output);
    ASSERT_TRUE(reader);
    std::vector<std::string> names;
    for (const auto& entry : reader->entries()) names.push_back(entry.name);
    const std::string data = std::string(stem) + ".data/";
    EXPECT_NE(std::find(names.begin(), names.end(), data + "scripts/demo-tool"), names.end());
    EXPECT_NE(std::find(names.begin(), names.end(), data + "headers/demo.h"), names.end());
    EXPECT_NE(std::find(names.begin(), names.end(), "demo/demo-1.0.data/keep.txt"), names.end());
    for (const auto& name : names) EXPECT_FALSE(name.starts_with("demo-1.0.")) << name;
    const auto* record = &reader->entries().back();
    const auto text = reader->read(*record);
    ASSERT_TRUE(text);
    EXPECT_NE(text->find(data + "scripts/demo-tool,sha256="), std::string::npos) << *text;
    EXPECT_EQ(text->find("demo-1.0.data/scripts"), std::string::npos) << *text;
  }
}

// METADATA and WHEEL are read as email headers: names in any case, whitespace after the colon
// optional, a value folded onto continuation lines. Each spelling is rewritten, every old Tag goes.
TEST_F(WheelRepairTest, VersionAndTagHeadersAreRewrittenHoweverTheyAreSpelt) {
  const auto wheel =
      make_wheel({}, true, "Metadata-Version: 2.1\nName: demo\nversion:1.0\n\nVersion: 1.0 stays.\n",
                 "Wheel-Version: 1.0\nRoot-Is-Purelib: false\ntag:cp311-cp311-linux_x86_64\n"
                 "TAG:  cp311-abi3-linux_x86_64\n\tcontinued\nGenerator: test\n");
  const auto result = repair_wheel(
      {wheel, m_dir / "out", "manylinux_2_28_x86_64", std::nullopt, std::optional<std::string>{"2.0"}});
  ASSERT_TRUE(result) << result.error().describe();
  auto reader = ZipReader::open(result->output);
  ASSERT_TRUE(reader);
  for (const auto& entry : reader->entries()) {
    if (entry.name == "demo-2.0.dist-info/METADATA") {
      EXPECT_EQ(*reader->read(entry),
                "Metadata-Version: 2.1\nName: demo\nVersion: 2.0\n\nVersion: 1.0 stays.\n");
    }
    if (entry.name == "demo-2.0.dist-info/WHEEL") {
      EXPECT_EQ(*reader->read(entry),
                "Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: cp311-cp311-manylinux_2_28_x86_64\n"
                "Generator: test\n");
    }
  }
  const auto inspected = inspect_wheel(wheel);
  ASSERT_TRUE(inspected) << inspected.error().describe();
  EXPECT_EQ(inspected->tags,
            (std::vector<std::string>{"cp311-cp311-linux_x86_64", "cp311-abi3-linux_x86_64"}));
}

// A folder holding the output's name is found before anything is written, and a rename that
// fails at the end (the folder appeared meanwhile) removes the temp file: no '.NAME.partial' stays.
TEST_F(WheelRepairTest, AFolderInTheWayOfTheOutputLeavesNoPartialFile) {
  const auto wheel = make_wheel();
  const auto in_the_way = m_dir / "out" / "demo-1.0+cpu-cp311-cp311-linux_x86_64.whl";
  fs::create_directories(in_the_way / "keep");
  const auto result = repair_wheel({wheel, m_dir / "out", std::nullopt, "cpu", std::nullopt});
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().category(), ErrorCategory::io);
  EXPECT_NE(result.error().message().find("a folder is in the way: remove or rename it"), std::string::npos)
      << result.error().message();
  EXPECT_EQ(std::distance(fs::directory_iterator(m_dir / "out"), fs::directory_iterator()), 1);

  const auto target = m_dir / "late" / "x.whl";
  fs::create_directories(target.parent_path());
  const auto written = write_zip(target, nullptr, {{"a.txt", nullptr, "a"}}, [&]() -> Status {
    fs::create_directories(target / "keep");
    return {};
  });
  ASSERT_FALSE(written);
  EXPECT_EQ(written.error().category(), ErrorCategory::io);
  EXPECT_NE(written.error().message().find("a folder is in the way: remove or rename it"), std::string::npos)
      << written.error().message();
  EXPECT_FALSE(fs::exists(target.parent_path() / ".x.whl.partial"));
  EXPECT_EQ(std::distance(fs::directory_iterator(target.parent_path()), fs::directory_iterator()), 1);
}

TEST_F(WheelRepairTest, UnchangedEntriesAreCopiedCompressedAsTheyWere) {
  const auto wheel = make_wheel();
  const auto result = repair_wheel({wheel, m_dir / "out", std::nullopt, "cpu", std::nullopt});
  ASSERT_TRUE(result) << result.error().describe();
  auto before = ZipReader::open(wheel);
  auto after = ZipReader::open(result->output);
  ASSERT_TRUE(before && after);
  auto compressed = [](const ZipReader& reader, const std::string& name) -> std::uint64_t {
    for (const auto& entry : reader.entries())
      if (entry.name == name) return entry.compressed_size;
    return 0;
  };
  EXPECT_GT(compressed(*before, "demo/data.bin"), 0u);
  EXPECT_LT(compressed(*before, "demo/data.bin"), 200000u);
  EXPECT_EQ(compressed(*before, "demo/data.bin"), compressed(*after, "demo/data.bin"));
}

TEST_F(WheelRepairTest, VerifyReportsRecordMismatchNamingTheEntry) {
  const auto wheel = make_wheel({}, false);
  const auto verified = verify_wheel(wheel);
  ASSERT_FALSE(verified);
  EXPECT_EQ(verified.error().category(), ErrorCategory::integrity);
  EXPECT_NE(verified.error().message().find("'demo/__init__.py': RECORD says"), std::string::npos);
}

TEST_F(WheelRepairTest, VerifyAndRepairRefuseZipSlipPaths) {
  const auto wheel = make_wheel({{"../evil.py", "boom"}});
  const auto verified = verify_wheel(wheel);
  ASSERT_FALSE(verified);
  EXPECT_NE(verified.error().describe().find("'../evil.py' has a '..' component"), std::string::npos);
  EXPECT_FALSE(repair_wheel({wheel, m_dir / "out", std::nullopt, "cpu", std::nullopt}));
  EXPECT_TRUE(fs::is_empty(m_dir / "out"));
}

TEST_F(WheelRepairTest, VerifyRefusesDuplicateEntries) {
  const auto wheel = make_wheel();
  const auto script =
      "import warnings, zipfile; warnings.simplefilter('ignore'); "
      "zipfile.ZipFile('" +
      wheel.string() + "', 'a').writestr('demo/__init__.py', 'Y = 2\\n')";
  ASSERT_EQ(test::run_shell("/usr/bin/python3 -c " + test::shell_quote(script)).exit_code, 0);
  const auto verified = verify_wheel(wheel);
  ASSERT_FALSE(verified);
  EXPECT_EQ(verified.error().category(), ErrorCategory::integrity);
  EXPECT_NE(verified.error().message().find("has two entries with the same name"), std::string::npos)
      << verified.error().message();
}

TEST_F(WheelRepairTest, CorruptZipIsAnIntegrityErrorNamingTheFile) {
  const auto path = m_dir / "demo-1.0-py3-none-any.whl";
  ASSERT_TRUE(platform::write_file_atomic(path, "PK\x03\x04 this is not really a zip",
                                          platform::Durability::no_fsync));
  const auto verified = verify_wheel(path);
  ASSERT_FALSE(verified);
  EXPECT_EQ(verified.error().category(), ErrorCategory::integrity);
  EXPECT_NE(verified.error().message().find("not a readable zip"), std::string::npos);
  EXPECT_FALSE(repair_wheel({path, m_dir / "out", std::nullopt, "cpu", std::nullopt}));
}

// A library that needs pthread_join@GLIBC_2.34 (glibc >= 2.34 hosts) must not be tagged 2_28.
// A path that exists but is no wheel file is named for what it is, not called missing; the exit
// code stays not_found's (4), as for a missing wheel. A FIFO is never opened (it would block).
TEST_F(WheelRepairTest, AFolderOrFifoGivenAsTheWheelIsNamedForWhatItIs) {
  const auto folder = m_dir / "folder.whl";
  fs::create_directories(folder);
  const auto fifo = m_dir / "fifo.whl";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto wheel = make_wheel();
  for (const auto& [path, kind] : {std::pair{folder, "a folder"}, std::pair{fifo, "a FIFO"}}) {
    SCOPED_TRACE(kind);
    const std::string text =
        "'" + path.string() + "' is " + kind + ", not a regular file: name the wheel file itself";
    const auto verified = verify_wheel(path);
    ASSERT_FALSE(verified);
    EXPECT_EQ(verified.error().category(), ErrorCategory::not_found);
    EXPECT_EQ(verified.error().message(), text);
    const auto diffed = diff_wheels(path, wheel);
    ASSERT_FALSE(diffed);
    EXPECT_EQ(diffed.error().message(), text);
  }
  const auto missing = verify_wheel(m_dir / "missing.whl");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message().find("does not exist"), std::string::npos);
}

TEST_F(WheelRepairTest, PolicyViolationNamesTheFileAndSymbol) {
  const auto source = m_dir / "lib.c";
  ASSERT_TRUE(platform::write_file_atomic(
      source, "#include <pthread.h>\nint f(pthread_t t) { return pthread_join(t, 0); }\n",
      platform::Durability::no_fsync));
  const auto library = m_dir / "libnew.so";
  const auto compiled = test::run_shell("cc -shared -fPIC -o " + library.string() + " " + source.string());
  ASSERT_EQ(compiled.exit_code, 0) << compiled.err;
  const auto bytes = platform::read_file(library);
  ASSERT_TRUE(bytes);
  const auto requirements = read_elf_requirements(*bytes);
  ASSERT_TRUE(requirements && *requirements);
  EXPECT_NE(std::find((*requirements)->needed.begin(), (*requirements)->needed.end(), "libc.so.6"),
            (*requirements)->needed.end());
  const auto glibc = test::run_shell("ldd --version | head -1 | grep -o '2\\.[0-9]*$'");
  const bool new_glibc = std::stoi(glibc.out.substr(2)) >= 34;

  const auto wheel = make_wheel({{"demo/libnew.so", *bytes}});
  const auto result = repair_wheel({wheel, m_dir / "out", "manylinux_2_28_x86_64", "cpu", std::nullopt});
  if (!new_glibc) GTEST_SKIP() << "this host's glibc is older than 2.34: no GLIBC_2.34 symbol to refuse";
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().category(), ErrorCategory::integrity);
  EXPECT_NE(result.error().message().find("demo/libnew.so needs pthread_join@GLIBC_2.34"), std::string::npos)
      << result.error().message();
  EXPECT_TRUE(fs::is_empty(m_dir / "out"));
  // The same wheel passes a policy new enough for it.
  EXPECT_TRUE(repair_wheel({wheel, m_dir / "out", "manylinux_2_39_x86_64", "cpu", std::nullopt}));
}

// Compiles a library needing pthread_join@GLIBC_2.34, damaged by corrupt_verneed.py `mode`
// ("" leaves it whole); nullopt on hosts whose glibc is older than 2.34.
std::optional<std::string> glibc_234_library(const fs::path& dir, const std::string& mode) {
  const auto glibc = test::run_shell("ldd --version | head -1 | grep -o '2\\.[0-9]*$'");
  if (glibc.out.size() < 3 || std::stoi(glibc.out.substr(2)) < 34) return std::nullopt;
  EXPECT_TRUE(platform::write_file_atomic(dir / "g.c",
                                          "#include <pthread.h>\n"
                                          "__asm__(\".symver pthread_join, pthread_join@GLIBC_2.34\");\n"
                                          "int f(pthread_t t) { return pthread_join(t, 0); }\n",
                                          platform::Durability::no_fsync));
  const auto library = dir / "libg.so";
  EXPECT_EQ(
      test::run_shell("cc -shared -fPIC -o " + library.string() + " " + (dir / "g.c").string()).exit_code, 0);
  if (!mode.empty()) {
    EXPECT_EQ(test::run_shell("/usr/bin/python3 " +
                              test::source_path("tests/fixtures/elf/corrupt_verneed.py").string() + " " +
                              library.string() + " " + mode)
                  .exit_code,
              0);
  }
  auto bytes = platform::read_file(library);
  EXPECT_TRUE(bytes);
  return bytes ? *bytes : std::string();
}

// The hole this closes: a library whose version needs cannot be read was judged on what could be
// read (nothing) and tagged manylinux_2_28 although it needs GLIBC_2.34.
TEST_F(WheelRepairTest, ALibraryWithUnreadableVersionDataIsNeverTaggedManylinux) {
  for (const std::string mode : {"names", "count", "truncate"}) {
    SCOPED_TRACE(mode);
    const auto library = glibc_234_library(m_dir, mode);
    if (!library) GTEST_SKIP() << "glibc older than 2.34 here";
    const auto wheel = make_wheel({{"demo/_ext.so", *library}});
    const auto result = repair_wheel({wheel, m_dir / "out", "manylinux_2_28_x86_64", "cpu", std::nullopt});
    ASSERT_FALSE(result);
    EXPECT_EQ(result.error().category(), ErrorCategory::integrity);
    EXPECT_NE(
        result.error().message().find("refusing to tag 'demo-1.0-cp311-cp311-linux_x86_64.whl' "
                                      "manylinux_2_28_x86_64: cannot check 'demo/_ext.so' inside it: its "
                                      "symbol-version data is unreadable or inconsistent"),
        std::string::npos)
        << result.error().message();
    EXPECT_TRUE(fs::is_empty(m_dir / "out"));
  }
}

// An ELF file is checked whatever its name: dlopen() does not care about ".so".
TEST_F(WheelRepairTest, AnElfFileUnderAnyNameIsChecked) {
  const auto library = glibc_234_library(m_dir, "");
  if (!library) GTEST_SKIP() << "glibc older than 2.34 here";
  const auto wheel = make_wheel({{"demo/kernels.bin", *library}});
  const auto result = repair_wheel({wheel, m_dir / "out", "manylinux_2_28_x86_64", "cpu", std::nullopt});
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message().find("demo/kernels.bin needs pthread_join@GLIBC_2.34"),
            std::string::npos)
      << result.error().message();
  EXPECT_TRUE(fs::is_empty(m_dir / "out"));
}

// manylinux2014 is glibc 2.17: the old names get the same check, not none.
TEST_F(WheelRepairTest, LegacyManylinuxAliasesAreCheckedAsTheirGlibc) {
  EXPECT_EQ(manylinux_policy("manylinux1_x86_64")->glibc_minor, 5);
  EXPECT_EQ(manylinux_policy("manylinux2010_i686")->glibc_minor, 12);
  EXPECT_EQ(manylinux_policy("manylinux2014_aarch64")->glibc_minor, 17);
  EXPECT_EQ(manylinux_policy("manylinux2014_aarch64")->glibcxx_max, "3.4.19");
  EXPECT_FALSE(manylinux_policy("musllinux_1_2_x86_64"));
  EXPECT_FALSE(manylinux_policy("linux_x86_64"));
  const auto library = glibc_234_library(m_dir, "");
  if (!library) GTEST_SKIP() << "glibc older than 2.34 here";
  const auto wheel = make_wheel({{"demo/_ext.so", *library}});
  const auto result = repair_wheel({wheel, m_dir / "out", "manylinux2014_x86_64", "cpu", std::nullopt});
  ASSERT_FALSE(result);
  EXPECT_NE(
      result.error().message().find("demo/_ext.so needs pthread_join@GLIBC_2.34, newer than GLIBC_2.17"),
      std::string::npos)
      << result.error().message();
  EXPECT_TRUE(fs::is_empty(m_dir / "out"));
}

// Repair writes a fresh RECORD, so it first refuses what `wheel verify` refuses, with its category.
TEST_F(WheelRepairTest, RepairRefusesAWheelThatVerifyRefuses) {
  const auto wheel = make_wheel({}, false);
  const auto result = repair_wheel({wheel, m_dir / "out", std::nullopt, "cpu", std::nullopt});
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().category(), verify_wheel(wheel).error().category());
  EXPECT_NE(result.error().message().find("refusing to repair '" + wheel.string() +
                                          "': `relforge wheel verify` refuses it: "),
            std::string::npos)
      << result.error().message();
  EXPECT_NE(result.error().message().find("'demo/__init__.py': RECORD says"), std::string::npos);
  EXPECT_NE(result.error().message().find("fix the wheel, or the build that made it"), std::string::npos);
  EXPECT_TRUE(fs::is_empty(m_dir / "out"));
}

TEST_F(WheelRepairTest, PlatformAndLocalLabelsThatAreNotTagsNeverBecomePaths) {
  const auto wheel = make_wheel();
  for (const std::string platform : {"x/../../y", "manylinux_2_28_x86_64/../../evil", "..", "linux_x86_64/",
                                     "Linux_X86_64", "", "win_amd64\\..\\x", "nonsense_tag"}) {
    SCOPED_TRACE(platform);
    const auto result = repair_wheel({wheel, m_dir / "out", platform, std::nullopt, std::nullopt});
    ASSERT_FALSE(result);
    EXPECT_EQ(result.error().category(), ErrorCategory::invalid_input);
    EXPECT_NE(result.error().describe().find("platform tag '" + platform + "'"), std::string::npos)
        << result.error().describe();
  }
  for (const std::string local : {"a/b", "../x", ".x", "x.", "cu 130", "x..y", "x+y"}) {
    SCOPED_TRACE(local);
    const auto result = repair_wheel({wheel, m_dir / "out", std::nullopt, local, std::nullopt});
    ASSERT_FALSE(result);
    EXPECT_EQ(result.error().category(), ErrorCategory::invalid_input);
    EXPECT_NE(result.error().message().find("local version label '" + local + "'"), std::string::npos)
        << result.error().message();
  }
  EXPECT_TRUE(fs::is_empty(m_dir / "out"));
  EXPECT_TRUE(fs::is_empty(m_dir / "out"));
  const auto good =
      repair_wheel({wheel, m_dir / "out", "musllinux_1_2_aarch64", "cu130.post_1-a", std::nullopt});
  ASSERT_TRUE(good) << good.error().describe();
  EXPECT_EQ(good->output, m_dir / "out" / "demo-1.0+cu130.post.1.a-cp311-cp311-musllinux_1_2_aarch64.whl");
}

TEST(WheelElfPolicy, PolicyTablesAndDisallowedLibraries) {
  const auto policy = manylinux_policy("manylinux_2_28_x86_64");
  ASSERT_TRUE(policy);
  EXPECT_EQ(policy->glibc_minor, 28);
  EXPECT_EQ(policy->glibcxx_max, "3.4.25");
  EXPECT_FALSE(manylinux_policy("linux_x86_64"));
  ElfRequirements needs;
  needs.needed = {"libc.so.6", "libcudart.so.13", "libbundled.so"};
  needs.symbols = {{"memcpy", "GLIBC_2.14"}, {"_ZSt4cout", "GLIBCXX_3.4.30"}};
  needs.versions = {"GLIBC_2.14", "GLIBCXX_3.4.30"};
  const auto violations = policy_violations("pkg/_C.so", needs, *policy, {"libbundled.so"});
  ASSERT_EQ(violations.size(), 2u);
  EXPECT_NE(violations[0].find("pkg/_C.so needs _ZSt4cout@GLIBCXX_3.4.30"), std::string::npos);
  EXPECT_NE(violations[1].find("links libcudart.so.13"), std::string::npos);
  EXPECT_FALSE(read_elf_requirements("not elf")->has_value());
}

}  // namespace
}  // namespace relforge::packaging
