// Hostile wheels that pip would install differently from what relforge checked, or that make a
// reader spend memory their bytes do not justify: verify (and so repair and publish) refuses them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/text.hpp"
#include "packaging/wheel_archive.hpp"
#include "packaging/wheel_diff.hpp"
#include "packaging/wheel_metadata.hpp"
#include "packaging/wheel_record.hpp"
#include "packaging/wheel_repair.hpp"
#include "platform/fs.hpp"
#include "tests/support/run.hpp"

namespace relforge::packaging {
namespace {

namespace fs = std::filesystem;

struct HostileEntry {
  std::string name;
  std::string bytes;
  std::uint32_t mode = 0100644;
};

const std::string k_wheel_file =
    "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n";

std::vector<HostileEntry> demo_entries(const std::string& dist_info = "demo-1.0.dist-info",
                                       const std::string& wheel = k_wheel_file) {
  return {{"demo/__init__.py", "X = 1\n"},
          {dist_info + "/METADATA", "Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n"},
          {dist_info + "/WHEEL", wheel}};
}

class WheelHostileTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("relforge-hostile-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_dir);
    fs::create_directories(m_dir / "out");
  }
  void TearDown() override { fs::remove_all(m_dir); }

  // `entries` and a RECORD listing each file (hashed in `algorithm`) under `record_dir`, as `filename`.
  fs::path write_wheel(const std::vector<HostileEntry>& entries,
                       const std::string& filename = "demo-1.0-py3-none-any.whl",
                       const std::string& record_dir = "demo-1.0.dist-info",
                       RecordAlgorithm algorithm = RecordAlgorithm::sha256) {
    std::vector<RecordEntry> record;
    std::vector<PlannedEntry> planned;
    for (const auto& entry : entries) {
      if (!entry.name.ends_with('/'))
        record.push_back({entry.name, record_hash_of(entry.bytes, algorithm), entry.bytes.size()});
      planned.push_back({entry.name, nullptr, entry.bytes, entry.mode << 16});
    }
    record.push_back({record_dir + "/RECORD", "", std::nullopt});
    planned.push_back({record_dir + "/RECORD", nullptr, format_record(record)});
    const auto path = m_dir / filename;
    EXPECT_TRUE(write_zip(path, nullptr, planned));
    return path;
  }

  // Runs python3 `script` with the wheel's path as sys.argv[1].
  void python(const std::string& script, const fs::path& wheel) {
    const auto run = test::run_shell("/usr/bin/python3 -c " + test::shell_quote(script) + " " +
                                     test::shell_quote(wheel.string()));
    ASSERT_EQ(run.exit_code, 0) << run.err;
  }

  // Sets the host byte of "version made by" in `entry`'s central directory record.
  void set_host(const fs::path& wheel, const std::string& entry, int host) {
    python(
        "import struct, sys\n"
        "data = bytearray(open(sys.argv[1], 'rb').read())\n"
        "i = data.find(b'PK\\x01\\x02')\n"
        "while i >= 0:\n"
        "  size = struct.unpack_from('<H', data, i + 28)[0]\n"
        "  if data[i + 46:i + 46 + size] == b'" +
            entry + "': data[i + 5] = " + std::to_string(host) +
            "\n"
            "  i = data.find(b'PK\\x01\\x02', i + 4)\n"
            "open(sys.argv[1], 'wb').write(bytes(data))\n",
        wheel);
  }

  fs::path m_dir;
};

void expect_refused(const Result<VerifyResult>& verified, const std::string& text) {
  ASSERT_FALSE(verified) << "verify passed; expected: " << text;
  EXPECT_NE(verified.error().describe().find(text), std::string::npos) << verified.error().describe();
}

// Python's zipfile (pip) reads the archive whose end record ends the file; libzip found the first
// one, whose comment held the second: the two installed different code.
TEST_F(WheelHostileTest, VerifyRefusesAnArchiveCommentHidingASecondArchive) {
  const auto good = platform::read_file(write_wheel(demo_entries()));
  ASSERT_TRUE(good);
  auto evil_entries = demo_entries();
  evil_entries[0].bytes = "X = 'code relforge never saw'\n";
  const auto evil = platform::read_file(write_wheel(evil_entries, "evil.whl"));
  ASSERT_TRUE(evil);
  ASSERT_EQ(good->substr(good->size() - 22, 4), "PK\x05\x06");
  std::string ambiguous = good->substr(0, good->size() - 2);
  ambiguous += static_cast<char>(evil->size() & 0xff);
  ambiguous += static_cast<char>(evil->size() >> 8);
  ambiguous += *evil;
  const auto path = m_dir / "demo-1.0-py3-none-any.whl";
  ASSERT_TRUE(platform::write_file_atomic(path, ambiguous, platform::Durability::no_fsync));
  const auto verified = verify_wheel(path);
  expect_refused(verified, "zip archive comment: refusing it");
  EXPECT_EQ(verified.error().category(), ErrorCategory::integrity);
  EXPECT_FALSE(repair_wheel({path, m_dir / "out", std::nullopt, "cpu", std::nullopt}));
  EXPECT_TRUE(fs::is_empty(m_dir / "out"));
}

// Any comment is refused, not only one with an end record inside: no build backend writes one.
TEST_F(WheelHostileTest, VerifyRefusesAnyArchiveComment) {
  const auto wheel = write_wheel(demo_entries());
  ASSERT_TRUE(verify_wheel(wheel));
  python("import zipfile, sys\nwith zipfile.ZipFile(sys.argv[1], 'a') as z: z.comment = b'hello'", wheel);
  expect_refused(verify_wheel(wheel), "5-byte zip archive comment");
}

TEST_F(WheelHostileTest, VerifyRefusesLinksDevicesFifosAndSockets) {
  const std::vector<std::pair<std::uint32_t, std::string>> modes = {
      {0120777, "is a symbolic link (mode 120777)"}, {0020644, "is no regular file (mode 020644)"},
      {0060644, "is no regular file (mode 060644)"}, {0010644, "is no regular file (mode 010644)"},
      {0140644, "is no regular file (mode 140644)"}, {0040755, "is no regular file (mode 040755)"}};
  for (const auto& [mode, text] : modes) {
    SCOPED_TRACE(text);
    auto entries = demo_entries();
    entries.push_back({"demo/link.py", "/etc/passwd", mode});
    const auto wheel = write_wheel(entries);
    const auto verified = verify_wheel(wheel);
    expect_refused(verified, "entry 'demo/link.py' " + text);
    EXPECT_EQ(verified.error().category(), ErrorCategory::integrity);
    EXPECT_FALSE(repair_wheel({wheel, m_dir / "out", std::nullopt, "cpu", std::nullopt}));
    EXPECT_TRUE(fs::is_empty(m_dir / "out"));
  }
  auto plain = demo_entries();
  plain.push_back({"demo/data/", "", 0040755});  // a directory entry may say so
  plain.push_back({"demo/run.py", "", 0755});    // no type bits: a plain file (Python's writestr)
  const auto verified = verify_wheel(write_wheel(plain));
  EXPECT_TRUE(verified) << verified.error().describe();
}

// Info-ZIP's unzip makes a link from an entry whose mode says so whatever host the entry claims
// (VMS 2, Atari 5, BeOS 16, AtheOS 30, not only Unix 3 and OS X 19): the type bits count for all.
TEST_F(WheelHostileTest, VerifyRefusesLinksAndFifosWhateverHostTheEntryClaims) {
  for (const int host : {0, 2, 5, 16, 30}) {
    for (const auto& [mode, text] : {std::pair{0120777u, "is a symbolic link (mode 120777)"},
                                     std::pair{0010644u, "is no regular file (mode 010644)"}}) {
      SCOPED_TRACE(std::to_string(host) + " " + text);
      auto entries = demo_entries();
      entries.push_back({"demo/link.py", "/etc/passwd", mode});
      const auto wheel = write_wheel(entries);
      set_host(wheel, "demo/link.py", host);
      const auto reader = ZipReader::open(wheel);
      ASSERT_TRUE(reader);
      ASSERT_EQ(reader->entries()[3].opsys, host);
      const auto verified = verify_wheel(wheel);
      expect_refused(verified, "entry 'demo/link.py' " + std::string(text));
      EXPECT_EQ(verified.error().category(), ErrorCategory::integrity);
    }
  }
  // A zero upper half is how MS-DOS and Windows tools write a plain file.
  auto entries = demo_entries();
  entries.push_back({"demo/plain.py", "", 0});
  const auto wheel = write_wheel(entries);
  set_host(wheel, "demo/plain.py", 0);
  const auto verified = verify_wheel(wheel);
  EXPECT_TRUE(verified) << verified.error().describe();
}

// Python's zipfile (pip) reads a name without the UTF-8 flag as cp437, libzip guesses UTF-8: the
// two entries below were two names to relforge and one to pip, which installed the second.
TEST_F(WheelHostileTest, VerifyRefusesNonAsciiNamesNotMarkedUtf8) {
  auto entries = demo_entries();
  entries.push_back({"demo/caf\u251c\u2310.py", "SAFE = True\n"});
  entries.push_back({"demo/caf\u00e9.py", "EVIL = True\n"});
  const auto wheel = write_wheel(entries);
  python(
      "import struct, sys\n"
      "data = bytearray(open(sys.argv[1], 'rb').read())\n"
      "for magic, flags, name in ((b'PK\\x03\\x04', 6, 26), (b'PK\\x01\\x02', 8, 28)):\n"
      "  i = data.find(magic)\n"
      "  while i >= 0:\n"
      "    start = i + (30 if magic == b'PK\\x03\\x04' else 46)\n"
      "    size = struct.unpack_from('<H', data, i + name)[0]\n"
      "    if data[start:start + size] == 'demo/caf\\u00e9.py'.encode():\n"
      "      struct.pack_into('<H', data, i + flags, struct.unpack_from('<H', data, i + flags)[0] & ~0x800)\n"
      "    i = data.find(magic, i + 4)\n"
      "open(sys.argv[1], 'wb').write(bytes(data))\n"
      "import zipfile\n"
      "names = zipfile.ZipFile(sys.argv[1]).namelist()\n"
      "assert names[3] == names[4], names\n",
      wheel);
  const auto verified = verify_wheel(wheel);
  expect_refused(
      verified,
      "entry 'demo/caf\u00e9.py' has a name with non-ASCII bytes not marked UTF-8 (pip reads it as "
      "cp437): refusing it (pip and other unzip tools may read another name); rebuild the wheel "
      "with a tool that marks UTF-8 names, such as `python -m wheel pack`");
  EXPECT_EQ(verified.error().category(), ErrorCategory::integrity);
  EXPECT_FALSE(repair_wheel({wheel, m_dir / "out", std::nullopt, "cpu", std::nullopt}));
  EXPECT_TRUE(fs::is_empty(m_dir / "out"));
}

// libzip reads the name in Info-ZIP's Unicode Path extra field (0x7075) in place of the entry's
// own and hides the field; older Pythons (pip) ignore it. Here RECORD lists the name libzip read,
// so relforge saw 'demo/évil.py' checked and pip installed 'demo/a.py'. A field in only one of
// the central record and local header is refused too (libzip finds the two inconsistent).
TEST_F(WheelHostileTest, VerifyRefusesNamesFromTheUnicodePathExtraField) {
  for (const std::string where : {"both", "central", "local"}) {
    SCOPED_TRACE(where);
    auto entries = demo_entries();
    entries.push_back({"demo/a.py", "A = 1\n"});
    const auto wheel = write_wheel(entries);
    python(
        "import struct, sys, zipfile, zlib\n"
        "src = zipfile.ZipFile(sys.argv[1])\n"
        "items = [(info, src.read(info)) for info in src.infolist()]\n"
        "src.close()\n"
        "name = 'demo/\\u00e9vil.py'.encode()\n"
        "field = struct.pack('<HHBI', 0x7075, 5 + len(name), 1, zlib.crc32(b'demo/a.py')) + name\n"
        "with zipfile.ZipFile(sys.argv[1], 'w') as z:\n"
        "  for info, data in items:\n"
        "    info.extra = field if info.filename == 'demo/a.py' else b''\n"
        "    if info.filename.endswith('/RECORD'): data = data.replace(b'demo/a.py,', name + b',')\n"
        "    z.writestr(info, data)\n"
        "data = bytearray(open(sys.argv[1], 'rb').read())\n"
        "local, central = data.find(field), data.rfind(field)\n"
        "assert local < central\n"
        "at = {'both': None, 'central': local, 'local': central}['" +
            where +
            "']\n"
            "if at is not None: data[at:at + 2] = b'\\x76\\x70'\n"
            "open(sys.argv[1], 'wb').write(bytes(data))\n",
        wheel);
    const auto verified = verify_wheel(wheel);
    ASSERT_FALSE(verified);
    EXPECT_EQ(verified.error().category(), ErrorCategory::integrity);
    if (where != "both") continue;
    expect_refused(
        verified,
        "entry 'demo/\u00e9vil.py' takes its name from an Info-ZIP Unicode Path extra field (0x7075), "
        "which older pips ignore: refusing it");
    EXPECT_NE(verified.error().describe().find("rebuild the wheel with a tool that marks UTF-8 names"),
              std::string::npos);
  }
}

// Repair writes every copied entry as a regular file with the source's permission bits only.
TEST_F(WheelHostileTest, RepairWritesRegularFilesWithThePermissionBitsOnly) {
  auto entries = demo_entries();
  entries.push_back({"demo/tool.py", "print(1)\n", 04755});  // no type bits, setuid
  const auto repaired =
      repair_wheel({write_wheel(entries), m_dir / "out", std::nullopt, "cpu", std::nullopt});
  ASSERT_TRUE(repaired) << repaired.error().describe();
  auto reader = ZipReader::open(repaired->output);
  ASSERT_TRUE(reader);
  for (const auto& entry : reader->entries()) {
    SCOPED_TRACE(entry.name);
    const auto mode = entry.external_attributes >> 16;
    EXPECT_EQ(mode & 0170000u, 0100000u);
    EXPECT_EQ(mode & 07777u, entry.name == "demo/tool.py" ? 0755u : 0644u);
  }
}

TEST_F(WheelHostileTest, VerifyRefusesDriveLettersAndNtfsStreams) {
  for (const std::string name : {"C:/Windows/evil.py", "demo/__init__.py:evil", "c:evil.py"}) {
    SCOPED_TRACE(name);
    auto entries = demo_entries();
    entries.push_back({name, "x = 1\n"});
    const auto verified = verify_wheel(write_wheel(entries));
    expect_refused(verified, "contains a ':' (a Windows drive or NTFS stream)");
    EXPECT_EQ(verified.error().category(), ErrorCategory::invalid_input);
  }
}

TEST_F(WheelHostileTest, VerifyRefusesNamesEqualAfterCaseFolding) {
  auto entries = demo_entries();
  entries.push_back({"demo/Evil.py", "a = 1\n"});
  entries.push_back({"demo/evil.py", "a = 2\n"});
  const auto verified = verify_wheel(write_wheel(entries));
  expect_refused(verified, "entries 'demo/Evil.py' and 'demo/evil.py' differ only in case");
  EXPECT_EQ(verified.error().category(), ErrorCategory::integrity);
}

// pip and unzip write "demo//x.py" to demo/x.py: the entry RECORD hashed for the one name is not
// what lands there.
TEST_F(WheelHostileTest, VerifyRefusesEmptyPathComponents) {
  auto entries = demo_entries();
  entries.push_back({"demo/x.py", "SAFE = True\n"});
  entries.push_back({"demo//x.py", "EVIL = True\n"});
  const auto wheel = write_wheel(entries);
  const auto verified = verify_wheel(wheel);
  expect_refused(verified, "entry 'demo//x.py' has an empty component ('//'): refusing it");
  EXPECT_EQ(verified.error().category(), ErrorCategory::invalid_input);
  EXPECT_FALSE(repair_wheel({wheel, m_dir / "out", std::nullopt, "cpu", std::nullopt}));
  EXPECT_TRUE(fs::is_empty(m_dir / "out"));
}

// Windows drops trailing dots and spaces from each component: these pairs are one file there.
TEST_F(WheelHostileTest, VerifyRefusesNamesEqualOnceWindowsDropsTrailingDotsAndSpaces) {
  const std::vector<std::pair<std::string, std::string>> pairs = {{"demo/y.py", "demo/y.py."},
                                                                  {"demo/y.py", "demo/y.py "},
                                                                  {"demo/y.py", "demo/Y.py. ."},
                                                                  {"demo/sub/y.py", "demo/sub. /y.py"}};
  for (const auto& [first, second] : pairs) {
    SCOPED_TRACE(second);
    auto entries = demo_entries();
    entries.push_back({first, "a = 1\n"});
    entries.push_back({second, "a = 2\n"});
    const auto verified = verify_wheel(write_wheel(entries));
    expect_refused(verified, "entries '" + first + "' and '" + second +
                                 "' are one name on Windows, which drops trailing dots and spaces: refusing "
                                 "them");
    EXPECT_EQ(verified.error().category(), ErrorCategory::integrity);
  }
  // Dots and spaces inside a component stay: "y.py" and "y .py" are two files everywhere.
  auto entries = demo_entries();
  entries.push_back({"demo/y.py", "a = 1\n"});
  entries.push_back({"demo/y .py", "a = 2\n"});
  entries.push_back({"demo/y..py", "a = 3\n"});
  const auto verified = verify_wheel(write_wheel(entries));
  EXPECT_TRUE(verified) << verified.error().describe();
}

// Canonically equivalent names (one name after NFC) are one file on macOS: refused like names
// that differ only in case, with both names spelled out code point by code point.
TEST_F(WheelHostileTest, VerifyRefusesNamesEqualAfterUnicodeNormalisation) {
  struct Pair {
    std::string first, second, text;
  };
  const std::string nfc = "are one name after Unicode normalisation (NFC), spelled ";
  const std::vector<Pair> pairs = {
      {"demo/caf\u00e9.py", "demo/cafe\u0301.py", nfc + "'demo/caf<U+00E9>.py' and 'demo/cafe<U+0301>.py'"},
      {"demo/q\u0323\u0307.py", "demo/q\u0307\u0323.py",
       nfc + "'demo/q<U+0323><U+0307>.py' and 'demo/q<U+0307><U+0323>.py'"},
      {"demo/\uac00.py", "demo/\u1100\u1161.py", nfc + "'demo/<U+AC00>.py' and 'demo/<U+1100><U+1161>.py'"},
      {"demo/\u212b.py", "demo/\u00c5.py", nfc + "'demo/<U+212B>.py' and 'demo/<U+00C5>.py'"},
      {"demo/Caf\u00e9.py", "demo/cafe\u0301.py",
       "are one name after Unicode normalisation (NFC) and case folding, spelled 'demo/Caf<U+00E9>.py' and "
       "'demo/cafe<U+0301>.py': refusing them (one overwrites the other on macOS)"},
      {"demo/\u00e9t\u00e9/__init__.py", "demo/e\u0301te\u0301/__init__.py",
       nfc + "'demo/<U+00E9>t<U+00E9>/__init__.py' and 'demo/e<U+0301>te<U+0301>/__init__.py'"}};
  for (const auto& pair : pairs) {
    SCOPED_TRACE(pair.text);
    auto entries = demo_entries();
    entries.push_back({pair.first, "a = 1\n"});
    entries.push_back({pair.second, "a = 2\n"});
    const auto wheel = write_wheel(entries);
    const auto verified = verify_wheel(wheel);
    expect_refused(verified, "entries '" + pair.first + "' and '" + pair.second + "' " + pair.text);
    EXPECT_EQ(verified.error().category(), ErrorCategory::integrity);
    EXPECT_FALSE(repair_wheel({wheel, m_dir / "out", std::nullopt, "cpu", std::nullopt}));
    EXPECT_TRUE(fs::is_empty(m_dir / "out"));
  }
}

// Compatibility mappings are no file system's business: U+FB01 (the fi ligature) and "fi", or
// a fullwidth A and A, stay two names; so do names whose marks of one class differ in order.
TEST_F(WheelHostileTest, NamesEqualOnlyUnderCompatibilityMappingsPass) {
  auto entries = demo_entries();
  for (const std::string name :
       {"demo/\ufb01le.py", "demo/file.py", "demo/\uff21.py", "demo/A_.py", "demo/a\u0301\u0300.py",
        "demo/a\u0300\u0301.py", "demo/\u03a9.py", "demo/\u03c9.py"})
    entries.push_back({name, "a = 1\n"});
  const auto verified = verify_wheel(write_wheel(entries));
  EXPECT_TRUE(verified) << verified.error().describe();
}

// libzip refuses a name flagged UTF-8 whose bytes start no sequence, but passes surrogates and
// overlong forms: those bytes are compared as they are, the rest of the name normalised.
TEST_F(WheelHostileTest, IllFormedUtf8InNamesIsComparedByteForByte) {
  auto entries = demo_entries();
  entries.push_back({"demo/AAAAAA.py", "a = 1\n"});
  entries.push_back({"demo/BBBBB.py", "a = 2\n"});
  const auto wheel = write_wheel(entries);
  python(
      "import struct, sys\n"
      "data = bytearray(open(sys.argv[1], 'rb').read())\n"
      "for old, new in ((b'demo/AAAAAA.py', b'demo/\\xed\\xa0\\x80e\\xcc\\x81.py'),\n"
      "                 (b'demo/BBBBB.py', b'demo/\\xed\\xa0\\x80\\xc3\\xa9.py')):\n"
      "  data = data.replace(old, new)\n"
      "for magic, at in ((b'PK\\x03\\x04', 6), (b'PK\\x01\\x02', 8)):\n"
      "  i = data.find(magic)\n"
      "  while i >= 0:\n"
      "    struct.pack_into('<H', data, i + at, struct.unpack_from('<H', data, i + at)[0] | 0x800)\n"
      "    i = data.find(magic, i + 4)\n"
      "open(sys.argv[1], 'wb').write(bytes(data))\n",
      wheel);
  const auto verified = verify_wheel(wheel);
  expect_refused(verified,
                 "are one name after Unicode normalisation (NFC), spelled 'demo/<byte ED><byte A0><byte "
                 "80>e<U+0301>.py' and 'demo/<byte ED><byte A0><byte 80><U+00E9>.py'");
  EXPECT_EQ(verified.error().category(), ErrorCategory::integrity);
}

// The same refusal from the command line, on a wheel from the fixture builder: exit 9, as for
// names that differ only in case.
TEST_F(WheelHostileTest, WheelVerifyRefusesCanonicallyEquivalentEntriesWithTheCaseFoldingExitCode) {
  ASSERT_TRUE(fs::is_regular_file(test::relforge_binary()))
      << "build the relforge binary first: " << test::relforge_binary();
  const auto make = [&](const std::string& dir, const std::string& first, const std::string& second) {
    const auto made = test::run_shell(
        "/usr/bin/python3 " +
        test::shell_quote(test::source_path("tests/fixtures/channels/make_wheel.py").string()) + " " +
        test::shell_quote((m_dir / dir).string()) + " demo 1.0 --extra-entry " + test::shell_quote(first) +
        " --extra-entry " + test::shell_quote(second));
    EXPECT_EQ(made.exit_code, 0) << made.err;
    return std::string(core::trim(made.out));
  };
  const auto normalised = make("nfc", "demo/caf\u00e9.py", "demo/cafe\u0301.py");
  const auto folded = make("case", "demo/Evil.py", "demo/evil.py");
  const auto plain = make("plain", "demo/caf\u00e9.py", "demo/\ufb01le.py");
  const auto nfc_run = test::relforge("wheel verify " + test::shell_quote(normalised));
  const auto case_run = test::relforge("wheel verify " + test::shell_quote(folded));
  const auto plain_run = test::relforge("wheel verify " + test::shell_quote(plain));
  EXPECT_EQ(nfc_run.exit_code, 9) << nfc_run.err;
  EXPECT_EQ(nfc_run.exit_code, case_run.exit_code) << case_run.err;
  EXPECT_NE(
      nfc_run.err.find("entries 'demo/caf\u00e9.py' and 'demo/cafe\u0301.py' are one name after Unicode "
                       "normalisation (NFC), spelled 'demo/caf<U+00E9>.py' and 'demo/cafe<U+0301>.py'"),
      std::string::npos)
      << nfc_run.err;
  EXPECT_NE(case_run.err.find("differ only in case"), std::string::npos) << case_run.err;
  EXPECT_EQ(plain_run.exit_code, 0) << plain_run.err;
}

// pip: ".dist-info directory 'evil-9.9.dist-info' does not start with 'demo'", and METADATA of
// another version is refused as inconsistent.
TEST_F(WheelHostileTest, VerifyRefusesADistInfoOfAnotherProjectOrVersion) {
  for (const std::string dist_info : {"evil-9.9.dist-info", "demo-2.0.dist-info", "demo.dist-info"}) {
    SCOPED_TRACE(dist_info);
    const auto verified =
        verify_wheel(write_wheel(demo_entries(dist_info), "demo-1.0-py3-none-any.whl", dist_info));
    expect_refused(verified, "its dist-info folder '" + dist_info + "' is not for demo 1.0");
    EXPECT_EQ(verified.error().category(), ErrorCategory::integrity);
  }
  // Names compare PEP 503-normalised and versions in normal form, as pip compares them.
  const std::string spelled = "Demo.Pkg-01.0.dist-info";
  const auto verified =
      verify_wheel(write_wheel(demo_entries(spelled), "demo_pkg-1.0-py3-none-any.whl", spelled));
  EXPECT_TRUE(verified) << verified.error().describe();
}

// pip counts every top-level *.dist-info name, not only those holding WHEEL.
TEST_F(WheelHostileTest, VerifyAndRepairRefuseASecondDistInfoFolder) {
  auto entries = demo_entries();
  entries.push_back({"demo-1.0+cu130.dist-info/METADATA", "Metadata-Version: 2.1\nName: evil\nVersion: 6\n"});
  const auto wheel = write_wheel(entries);
  expect_refused(verify_wheel(wheel), "has 2 dist-info folders");
  EXPECT_FALSE(repair_wheel({wheel, m_dir / "out", std::nullopt, "cu130", std::nullopt}));
  EXPECT_TRUE(fs::is_empty(m_dir / "out"));
}

TEST_F(WheelHostileTest, VerifyRefusesAWheelVersionPipDoesNotInstall) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"Wheel-Version: 2.0\nTag: py3-none-any\n", "says Wheel-Version: 2.0"},
      {"Wheel-Version: x\nTag: py3-none-any\n", "says Wheel-Version: x"},
      {"Wheel-Version: 1.x\nTag: py3-none-any\n", "says Wheel-Version: 1.x, which is no version"},
      {"Wheel-Version: 1.\nTag: py3-none-any\n", "says Wheel-Version: 1., which is no version"},
      {"Wheel-Version: 1..0\nTag: py3-none-any\n", "says Wheel-Version: 1..0, which is no version"},
      {"Wheel-Version: 1.0-beta\nTag: py3-none-any\n", "says Wheel-Version: 1.0-beta, which is no version"},
      {"Generator: test\nTag: py3-none-any\n", "has no Wheel-Version"}};
  for (const auto& [wheel, text] : cases) {
    SCOPED_TRACE(text);
    const auto verified = verify_wheel(write_wheel(demo_entries("demo-1.0.dist-info", wheel)));
    expect_refused(verified, text);
    EXPECT_EQ(verified.error().category(), ErrorCategory::integrity);
  }
  // A newer minor version is installed by pip (with a warning): so it passes here, as do the
  // spellings pip reads as numbers.
  for (const std::string version : {"1.9", "1", "01.0.9", " 1.0 "}) {
    SCOPED_TRACE(version);
    const auto newer =
        verify_wheel(write_wheel(demo_entries("demo-1.0.dist-info", "Wheel-Version:" + version + "\n")));
    EXPECT_TRUE(newer) << newer.error().describe();
  }
}

// A WHEEL, RECORD or METADATA above 64 MiB is refused before it is inflated into memory.
TEST_F(WheelHostileTest, MetadataFilesAboveTheLimitAreRefusedNamingTheirSize) {
  const auto wheel = write_wheel(demo_entries());
  python(
      "import zipfile, sys\n"
      "with zipfile.ZipFile(sys.argv[1], 'a') as z:\n"
      "  with z.open('demo-1.0.dist-info/entry_points.txt', 'w', force_zip64=True) as f:\n"
      "    for _ in range(65): f.write(bytes(1 << 20))\n",
      wheel);
  // Renamed in place: the same zeros are now WHEEL, METADATA and RECORD in turn.
  for (const std::string leaf : {"WHEEL", "RECORD", "METADATA"}) {
    SCOPED_TRACE(leaf);
    const auto copy = m_dir / leaf / "demo-1.0-py3-none-any.whl";
    fs::create_directories(copy.parent_path());
    python(
        "import zipfile, sys\n"
        "src = zipfile.ZipFile(sys.argv[1].replace('/" +
            leaf +
            "/', '/'))\n"
            "with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as out:\n"
            "  for info in src.infolist():\n"
            "    if info.filename.endswith('/" +
            leaf +
            "'): continue\n"
            "    name = info.filename.replace('entry_points.txt', '" +
            leaf +
            "')\n"
            "    with src.open(info) as f, out.open(name, 'w', force_zip64=True) as g:\n"
            "      while chunk := f.read(1 << 20): g.write(chunk)\n",
        copy);
    const std::string text =
        "'demo-1.0.dist-info/" + leaf + "' declares 68157440 bytes, more than the 64 MiB";
    if (leaf == "METADATA") {
      const auto metadata = read_wheel_metadata(copy);
      ASSERT_FALSE(metadata);
      EXPECT_NE(metadata.error().describe().find("member '" + text.substr(1)), std::string::npos)
          << metadata.error().describe();
    } else {
      expect_refused(verify_wheel(copy), text);
    }
  }
}

// Diff reads an entry whole only when its compressed bytes justify the memory; a bomb is compared
// by streamed sha256 instead (it used to inflate both sides whole: 2 GiB each).
TEST_F(WheelHostileTest, DiffComparesAZipBombByStreamedDigest) {
  const auto a = write_wheel(demo_entries(), "a.whl");
  const auto b = write_wheel(demo_entries(), "b.whl");
  for (const auto& [path, fill] : {std::pair{a, 0}, std::pair{b, 1}}) {
    python(
        "import zipfile, sys\n"
        "with zipfile.ZipFile(sys.argv[1], 'a', zipfile.ZIP_DEFLATED) as z:\n"
        "  with z.open('demo/zeros.bin', 'w', force_zip64=True) as f:\n"
        "    for _ in range(96): f.write(bytes(1 << 20))\n"
        "    f.write(b'" +
            std::to_string(fill) + "')\n",
        path);
  }
  const auto diff = diff_wheels(a, b);
  ASSERT_TRUE(diff) << diff.error().describe();
  const auto found = std::find_if(diff->entries.begin(), diff->entries.end(),
                                  [](const EntryDiff& entry) { return entry.name == "demo/zeros.bin"; });
  ASSERT_NE(found, diff->entries.end());
  EXPECT_TRUE(found->content_changed);
  EXPECT_EQ(found->sha256_before.size(), 64u);
  ASSERT_EQ(found->lines.size(), 1u);
  EXPECT_NE(found->lines[0].find("compared by sha256 only"), std::string::npos) << found->lines[0];
}

// PEP 427 allows any hashlib algorithm at least as strong as sha256; pip accepts sha384 and
// sha512 and refuses md5 and sha1. The digests here are Python's hashlib's.
TEST_F(WheelHostileTest, RecordHashesInSha384AndSha512AreAcceptedAndMd5AndSha1Refused) {
  for (const std::string algorithm : {"sha384", "sha512", "md5", "sha1"}) {
    SCOPED_TRACE(algorithm);
    const auto wheel = m_dir / algorithm / "demo-1.0-py3-none-any.whl";
    fs::create_directories(wheel.parent_path());
    python(
        "import base64, hashlib, sys, zipfile\n"
        "files = {'demo/__init__.py': b'X = 1\\n' * 1000,\n"
        "  'demo-1.0.dist-info/METADATA': b'Metadata-Version: 2.1\\nName: demo\\nVersion: 1.0\\n',\n"
        "  'demo-1.0.dist-info/WHEEL': b'Wheel-Version: 1.0\\nTag: py3-none-any\\n'}\n"
        "h = lambda b: base64.urlsafe_b64encode(hashlib.new('" +
            algorithm +
            "', b).digest()).rstrip(b'=').decode()\n"
            "rec = ''.join(f'{p}," +
            algorithm +
            "={h(b)},{len(b)}\\n' for p, b in files.items()) + 'demo-1.0.dist-info/RECORD,,\\n'\n"
            "with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:\n"
            "  for p, b in files.items(): z.writestr(p, b)\n"
            "  z.writestr('demo-1.0.dist-info/RECORD', rec)\n",
        wheel);
    const auto verified = verify_wheel(wheel);
    if (algorithm == "sha384" || algorithm == "sha512") {
      ASSERT_TRUE(verified) << verified.error().describe();
      EXPECT_EQ(verified->hashed, 3u);
      const auto repaired = repair_wheel({wheel, m_dir / "out", std::nullopt, "cpu", std::nullopt});
      ASSERT_TRUE(repaired) << repaired.error().describe();
      EXPECT_TRUE(verify_wheel(repaired->output));
      continue;
    }
    expect_refused(verified, "uses '" + algorithm + "': a wheel's RECORD needs sha256, sha384 or sha512");
    EXPECT_EQ(verified.error().category(), ErrorCategory::integrity);
  }
}

}  // namespace
}  // namespace relforge::packaging
