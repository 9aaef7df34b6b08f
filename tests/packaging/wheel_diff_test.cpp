#include "packaging/wheel_diff.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <string>
#include <tuple>

#include "packaging/wheel_archive.hpp"
#include "packaging/wheel_record.hpp"
#include "packaging/wheel_repair.hpp"
#include "platform/digest.hpp"
#include "platform/fs.hpp"
#include "tests/support/run.hpp"

namespace relforge::packaging {
namespace {

namespace fs = std::filesystem;

using Files = std::vector<std::pair<std::string, std::string>>;

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

class WheelDiffTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("relforge-wheel-diff-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
  }
  void TearDown() override { fs::remove_all(m_dir); }

  static Files base_files(const std::string& version = "1.0") {
    return {{"demo/__init__.py", "A = 1\nB = 2\nC = 3\n"},
            {"demo-" + version + ".dist-info/METADATA",
             "Metadata-Version: 2.1\nName: demo\nVersion: " + version + "\n\nA demo.\n"},
            {"demo-" + version + ".dist-info/WHEEL",
             "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: false\nTag: cp311-cp311-linux_x86_64\n"}};
  }

  // A wheel with a correct RECORD; `mtime` and `mode` apply to every entry.
  fs::path make_wheel(const std::string& name, const Files& files, std::int64_t mtime = 315532800,
                      std::uint32_t mode = 0100644) {
    std::vector<RecordEntry> record;
    std::vector<PlannedEntry> planned;
    std::string dist_info;
    for (const auto& [path, bytes] : files) {
      record.push_back({path, record_hash_of(bytes), bytes.size()});
      planned.push_back({path, nullptr, bytes, mode << 16, mtime});
      if (path.ends_with("/METADATA")) dist_info = path.substr(0, path.find('/'));
    }
    record.push_back({dist_info + "/RECORD", "", std::nullopt});
    planned.push_back({dist_info + "/RECORD", nullptr, format_record(record), mode << 16, mtime});
    const auto path = m_dir / name;
    fs::create_directories(path.parent_path());
    EXPECT_TRUE(write_zip(path, nullptr, planned));
    return path;
  }

  // A small shared library compiled now from `source`.
  std::string compile(const std::string& name, const std::string& source) {
    const auto c = m_dir / (name + ".c");
    EXPECT_TRUE(platform::write_file_atomic(c, source));
    const auto so = m_dir / (name + ".so");
    const auto built = test::run_shell("cc -shared -fPIC -O1 -o " + test::shell_quote(so.string()) + " " +
                                       test::shell_quote(c.string()));
    EXPECT_EQ(built.exit_code, 0) << built.err;
    auto bytes = platform::read_file(so);
    EXPECT_TRUE(bytes);
    return bytes ? *bytes : std::string();
  }

  fs::path m_dir;
};

TEST_F(WheelDiffTest, TheSameBytesAreIdentical) {
  const auto a = make_wheel("a.whl", base_files());
  const auto b = make_wheel("b.whl", base_files());
  const auto diff = diff_wheels(a, b);
  ASSERT_TRUE(diff) << diff.error().describe();
  EXPECT_TRUE(diff->identical);
  EXPECT_TRUE(diff->entries.empty());
  EXPECT_EQ(summarize_diff(*diff), "identical");
}

TEST_F(WheelDiffTest, AddedAndRemovedEntriesAndTheirRecordLines) {
  auto files = base_files();
  const auto a = make_wheel("a.whl", files);
  files.erase(files.begin());
  files.push_back({"demo/new.py", "x = 1\n"});
  const auto b = make_wheel("b.whl", files);
  const auto diff = diff_wheels(a, b);
  ASSERT_TRUE(diff) << diff.error().describe();
  EXPECT_FALSE(diff->identical);
  std::map<std::string, EntryChange> changes;
  for (const auto& entry : diff->entries) changes[entry.name] = entry.change;
  EXPECT_EQ(changes.at("demo/__init__.py"), EntryChange::removed);
  EXPECT_EQ(changes.at("demo/new.py"), EntryChange::added);
  ASSERT_EQ(changes.at("demo-1.0.dist-info/RECORD"), EntryChange::changed);
  for (const auto& entry : diff->entries) {
    if (entry.name != "demo-1.0.dist-info/RECORD") continue;
    EXPECT_TRUE(contains(entry.lines, "-demo/__init__.py," + record_hash_of("A = 1\nB = 2\nC = 3\n") + ",18"))
        << ::testing::PrintToString(entry.lines);
    EXPECT_TRUE(contains(entry.lines, "+demo/new.py," + record_hash_of("x = 1\n") + ",6"))
        << ::testing::PrintToString(entry.lines);
  }
  const auto summary = summarize_diff(*diff);
  EXPECT_NE(summary.find("removed demo/__init__.py"), std::string::npos) << summary;
  EXPECT_NE(summary.find("added demo/new.py"), std::string::npos) << summary;
}

TEST_F(WheelDiffTest, MetadataFieldsAcrossARenamedDistInfo) {
  const auto a = make_wheel("a.whl", base_files("1.0"));
  auto files = base_files("1.1");
  files[2].second += "Tag: cp311-cp311-manylinux_2_28_x86_64\n";
  const auto b = make_wheel("b.whl", files);
  const auto diff = diff_wheels(a, b);
  ASSERT_TRUE(diff) << diff.error().describe();
  bool metadata = false, wheel = false;
  for (const auto& entry : diff->entries) {
    EXPECT_EQ(entry.change, EntryChange::changed) << entry.name;  // matched across the rename
    if (entry.name == "demo-1.0.dist-info/METADATA -> demo-1.1.dist-info/METADATA") {
      metadata = true;
      ASSERT_EQ(entry.fields.size(), 1u);
      EXPECT_EQ(entry.fields[0].field, "Version");
      EXPECT_EQ(entry.fields[0].before, std::vector<std::string>{"1.0"});
      EXPECT_EQ(entry.fields[0].after, std::vector<std::string>{"1.1"});
    }
    if (entry.name == "demo-1.0.dist-info/WHEEL -> demo-1.1.dist-info/WHEEL") {
      wheel = true;
      ASSERT_EQ(entry.fields.size(), 1u);
      EXPECT_EQ(entry.fields[0].field, "Tag");
      EXPECT_EQ(entry.fields[0].after.size(), 2u);
      EXPECT_EQ(entry.lines, std::vector<std::string>{"+Tag: cp311-cp311-manylinux_2_28_x86_64"});
    }
  }
  EXPECT_TRUE(metadata && wheel) << summarize_diff(*diff);
}

// A second dist-info folder beside the first is no rename: its files are added, not folded into
// the first folder's (which hid them when every *.dist-info/X was one name).
TEST_F(WheelDiffTest, ASecondDistInfoFolderShowsItsFilesAsAdded) {
  const auto a = make_wheel("a.whl", base_files());
  Files files = {{"evil-6.6.dist-info/METADATA", "Metadata-Version: 2.1\nName: evil\nVersion: 6.6\n"},
                 {"evil-6.6.dist-info/entry_points.txt", "[console_scripts]\npip = evil:main\n"}};
  for (const auto& file : base_files()) files.push_back(file);
  const auto b = make_wheel("b.whl", files);
  for (const auto& [before, after, change] :
       {std::tuple{a, b, EntryChange::added}, std::tuple{b, a, EntryChange::removed}}) {
    const auto diff = diff_wheels(before, after);
    ASSERT_TRUE(diff) << diff.error().describe();
    std::map<std::string, EntryChange> changes;
    for (const auto& entry : diff->entries) changes[entry.name] = entry.change;
    EXPECT_EQ(changes.size(), 3u) << summarize_diff(*diff);  // the two files and RECORD
    EXPECT_EQ(changes.at("evil-6.6.dist-info/METADATA"), change);
    EXPECT_EQ(changes.at("evil-6.6.dist-info/entry_points.txt"), change);
    EXPECT_EQ(changes.at("demo-1.0.dist-info/RECORD"), EntryChange::changed);
    const auto summary = summarize_diff(*diff);
    const std::string verb = change == EntryChange::added ? "added " : "removed ";
    EXPECT_NE(summary.find(verb + "evil-6.6.dist-info/METADATA"), std::string::npos) << summary;
  }
}

// A version change renames the .data folder with the dist-info folder: both are matched across it.
TEST_F(WheelDiffTest, TheDataFolderIsMatchedAcrossARenamedDistInfo) {
  auto files = base_files("1.0");
  files.push_back({"demo-1.0.data/scripts/tool", "#!python\n"});
  const auto a = make_wheel("a.whl", files);
  files = base_files("1.1");
  files.push_back({"demo-1.1.data/scripts/tool", "#!python\n"});
  const auto b = make_wheel("b.whl", files);
  const auto diff = diff_wheels(a, b);
  ASSERT_TRUE(diff) << diff.error().describe();
  bool data = false;
  for (const auto& entry : diff->entries) {
    EXPECT_EQ(entry.change, EntryChange::changed) << entry.name;
    if (entry.name != "demo-1.0.data/scripts/tool -> demo-1.1.data/scripts/tool") continue;
    data = true;
    EXPECT_FALSE(entry.content_changed);  // renamed, the same bytes
  }
  EXPECT_TRUE(data) << summarize_diff(*diff);
  EXPECT_FALSE(diff->order_changed);
}

TEST_F(WheelDiffTest, ChangedTextLinesOnly) {
  auto files = base_files();
  const auto a = make_wheel("a.whl", files);
  files[0].second = "A = 1\nB = 20\nC = 3\n";
  const auto b = make_wheel("b.whl", files);
  const auto diff = diff_wheels(a, b);
  ASSERT_TRUE(diff) << diff.error().describe();
  ASSERT_FALSE(diff->entries.empty());
  EXPECT_EQ(diff->entries[0].name, "demo/__init__.py");
  EXPECT_EQ(diff->entries[0].lines, (std::vector<std::string>{"-B = 2", "+B = 20"}));
  EXPECT_TRUE(diff->entries[0].sections.empty());
}

TEST_F(WheelDiffTest, ElfSectionsSymbolsAndStrings) {
  auto files = base_files();
  files.push_back({"demo/_ext.so", compile("one",
                                           "const char* where(void) { return \"/build/one/src.c\"; }\n"
                                           "int shared(void) { return 1; }\n")});
  const auto a = make_wheel("a.whl", files);
  files.back().second = compile("two",
                                "const char* where(void) { return \"/elsewhere/two/src.c\"; }\n"
                                "int shared(void) { return 1; }\nint added_symbol(void) { return 2; }\n");
  const auto b = make_wheel("b.whl", files);
  const auto diff = diff_wheels(a, b);
  ASSERT_TRUE(diff) << diff.error().describe();
  const EntryDiff* so = nullptr;
  for (const auto& entry : diff->entries)
    if (entry.name == "demo/_ext.so") so = &entry;
  ASSERT_NE(so, nullptr) << summarize_diff(*diff);
  EXPECT_TRUE(std::any_of(so->sections.begin(), so->sections.end(), [](const std::string& s) {
    return s.starts_with(".rodata:");
  })) << ::testing::PrintToString(so->sections);
  EXPECT_TRUE(contains(so->symbols, "+added_symbol")) << ::testing::PrintToString(so->symbols);
  EXPECT_FALSE(contains(so->symbols, "+shared"));
  EXPECT_TRUE(contains(so->lines, "-/build/one/src.c")) << ::testing::PrintToString(so->lines);
  EXPECT_TRUE(contains(so->lines, "+/elsewhere/two/src.c")) << ::testing::PrintToString(so->lines);
  EXPECT_NE(summarize_diff(*diff).find("changed demo/_ext.so (section "), std::string::npos);
}

TEST_F(WheelDiffTest, TimesModesAndOrderAloneAreReported) {
  const auto a = make_wheel("a.whl", base_files());
  const auto later = make_wheel("later.whl", base_files(), 1767225600);  // 2026-01-01
  auto diff = diff_wheels(a, later);
  ASSERT_TRUE(diff) << diff.error().describe();
  ASSERT_FALSE(diff->entries.empty());
  EXPECT_FALSE(diff->entries[0].content_changed);
  EXPECT_EQ(diff->entries[0].attributes,
            std::vector<std::string>{"mtime 1980-01-01T00:00:00Z -> 2026-01-01T00:00:00Z"});

  const auto executable = make_wheel("x.whl", base_files(), 315532800, 0100755);
  diff = diff_wheels(a, executable);
  ASSERT_TRUE(diff);
  EXPECT_EQ(diff->entries[0].attributes, std::vector<std::string>{"mode 0644 -> 0755"});

  auto files = base_files();
  std::swap(files[1], files[2]);
  const auto reordered = make_wheel("r.whl", files);
  diff = diff_wheels(a, reordered);
  ASSERT_TRUE(diff);
  EXPECT_TRUE(diff->order_changed);
  EXPECT_NE(summarize_diff(*diff).find("entries in another order"), std::string::npos);
}

TEST_F(WheelDiffTest, NotAZipIsAnError) {
  const auto a = make_wheel("a.whl", base_files());
  ASSERT_TRUE(platform::write_file_atomic(m_dir / "junk.whl", "not a zip"));
  const auto diff = diff_wheels(a, m_dir / "junk.whl");
  ASSERT_FALSE(diff);
  EXPECT_NE(diff.error().message().find("junk.whl"), std::string::npos) << diff.error().describe();
  EXPECT_FALSE(diff_wheels(a, m_dir / "missing.whl"));
}

// Repair with a SOURCE_DATE_EPOCH writes the same bytes whatever the input's order, times, modes
// and the process's time zone.
TEST_F(WheelDiffTest, ReproducibleRepairIgnoresOrderTimesModesAndTimeZone) {
  auto files = base_files();
  const auto a = make_wheel("in-a/demo-1.0-cp311-cp311-linux_x86_64.whl", files, 1700000000, 0100600);
  std::reverse(files.begin(), files.end());
  const auto b = make_wheel("in-b/demo-1.0-cp311-cp311-linux_x86_64.whl", files, 1600000000, 0100664);
  const std::int64_t epoch = 1767225600;
  auto first =
      repair_wheel({a, m_dir / "out-a", std::nullopt, "cpu", std::nullopt, Overwrite::replace, {}, epoch});
  ASSERT_TRUE(first) << first.error().describe();
  const char* old_tz = std::getenv("TZ");
  const std::string saved = old_tz ? old_tz : "";
  ::setenv("TZ", "America/Los_Angeles", 1);
  ::tzset();
  auto second =
      repair_wheel({b, m_dir / "out-b", std::nullopt, "cpu", std::nullopt, Overwrite::replace, {}, epoch});
  if (old_tz)
    ::setenv("TZ", saved.c_str(), 1);
  else
    ::unsetenv("TZ");
  ::tzset();
  ASSERT_TRUE(second) << second.error().describe();
  const auto diff = diff_wheels(first->output, second->output);
  ASSERT_TRUE(diff);
  EXPECT_TRUE(diff->identical) << summarize_diff(*diff);
  auto reader = ZipReader::open(first->output);
  ASSERT_TRUE(reader);
  std::vector<std::string> names;
  for (const auto& entry : reader->entries()) {
    names.push_back(entry.name);
    EXPECT_EQ((entry.external_attributes >> 16) & 07777u, 0644u) << entry.name;
  }
  EXPECT_EQ(names,
            (std::vector<std::string>{"demo/__init__.py", "demo-1.0+cpu.dist-info/METADATA",
                                      "demo-1.0+cpu.dist-info/WHEEL", "demo-1.0+cpu.dist-info/RECORD"}));
}

}  // namespace
}  // namespace relforge::packaging
