// End-to-end: hostile input generated here is refused by the real binary with exit 2 (or the
// exit code of the check it fails), a message naming the limit and where, and without the process
// growing large or running long: TOML nested 40,000 deep, brace groups that multiply to millions,
// a derived field that doubles itself, a matrix just under the cell cap with many fields, wheel
// names that would climb out of --out, wheels that fail verification or hide their ELF version
// needs, and a private key that must never exist with a wider mode than 0600.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/support/paths.hpp"
#include "tests/support/run.hpp"

namespace relforge::test {
namespace {

namespace fs = std::filesystem;

struct Bounded {
  RunResult run;
  long max_rss_kib = 0;
  double cpu_seconds = 0;
};

// Runs relforge with at most 2 GiB of address space and 5 s of CPU, and reads its peak RSS and
// CPU time from time(1), which appends one line to stderr.
Bounded bounded(const std::string& args) {
  Bounded out;
  out.run = run_shell("ulimit -v 2097152; ulimit -t 5; /usr/bin/time -f 'rusage %M %U %S' " +
                      shell_quote(relforge::test::relforge_binary()) + " " + args);
  const auto at = out.run.err.rfind("rusage ");
  if (at != std::string::npos) {
    std::istringstream line(out.run.err.substr(at + 7));
    double user = 0, system = 0;
    line >> out.max_rss_kib >> user >> system;
    out.cpu_seconds = user + system;
    out.run.err.erase(at);
  }
  return out;
}

// Exit 2, nothing on stdout, `message` on stderr, and a small, quick process.
void expect_refused(const Bounded& result, const std::string& message) {
  EXPECT_EQ(result.run.exit_code, 2) << result.run.err;
  EXPECT_EQ(result.run.out, "");
  EXPECT_NE(result.run.err.find(message), std::string::npos) << result.run.err.substr(0, 2000);
  EXPECT_GT(result.max_rss_kib, 0);
  EXPECT_LT(result.max_rss_kib, 64 * 1024) << "peak RSS in KiB";
  EXPECT_LT(result.cpu_seconds, 1.0);
}

std::string repeat(const std::string& piece, std::size_t times) {
  std::string out;
  out.reserve(piece.size() * times);
  for (std::size_t i = 0; i < times; ++i) out += piece;
  return out;
}

class HostileInputTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("relforge-e2e-hostile-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_dir);
    fs::create_directories(m_dir / "work" / "out");
  }
  void TearDown() override { fs::remove_all(m_dir); }

  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(m_dir / name, std::ios::binary) << text;
    return shell_quote((m_dir / name).string());
  }

  // A wheel written by Python's zipfile with `files` (a dict literal) added; `good_record` false
  // gives every entry a wrong hash.
  fs::path python_wheel(const std::string& files, bool good_record = true) {
    const auto path = m_dir / "work" / "demo-1.0-cp311-cp311-linux_x86_64.whl";
    const std::string script =
        "import base64, hashlib, sys, zipfile\n"
        "files = {'demo/__init__.py': b'X = 1\\n',\n"
        " 'demo-1.0.dist-info/METADATA': b'Metadata-Version: 2.1\\nName: demo\\nVersion: 1.0\\n',\n"
        " 'demo-1.0.dist-info/WHEEL': b'Wheel-Version: 1.0\\nGenerator: t\\nRoot-Is-Purelib: false\\n"
        "Tag: cp311-cp311-linux_x86_64\\n'}\n"
        "files.update(" +
        files +
        ")\n"
        "good = " +
        std::string(good_record ? "True" : "False") +
        "\n"
        "h = lambda d: base64.urlsafe_b64encode(hashlib.sha256(d if good else b'x').digest())"
        ".rstrip(b'=').decode()\n"
        "lines = ['%s,sha256=%s,%d' % (p, h(d), len(d)) for p, d in files.items()]\n"
        "with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:\n"
        "    for p, d in files.items(): z.writestr(p, d)\n"
        "    z.writestr('demo-1.0.dist-info/RECORD', '\\n'.join(lines + ['demo-1.0.dist-info/RECORD,,']))\n";
    const auto made = run_shell("/usr/bin/python3 -c " + shell_quote(script) + " " +
                                shell_quote(path.string()) + " " + shell_quote(m_dir.string()));
    EXPECT_EQ(made.exit_code, 0) << made.err;
    return path;
  }

  // Every file under m_dir, to show nothing was written where it should not be.
  std::size_t files_outside_out() const {
    std::size_t count = 0;
    for (const auto& entry : fs::recursive_directory_iterator(m_dir))
      if (entry.is_regular_file() && entry.path().parent_path() != m_dir / "work" / "out") ++count;
    return count;
  }

  fs::path m_dir;
};

TEST_F(HostileInputTest, TomlNested40000DeepIsRefusedBeforeParsingByEveryReader) {
  const std::string deep_table = "[matrix]\n[" + repeat("a.", 40'000) + "a]\n";
  expect_refused(bounded("matrix expand --config " + write("deep.toml", deep_table)),
                 "deep.toml:2:1: TOML nested deeper than 64 levels");
  const std::string deep_array =
      "[relay]\nupstream = \"o/r\"\nx = " + repeat("[", 40'000) + repeat("]", 40'000) + "\n";
  expect_refused(bounded("relay breakages --db " + shell_quote((m_dir / "relay.db").string()) + " --config " +
                         write("relay.toml", deep_array)),
                 "relay.toml:3:");
  const std::string deep_inline =
      "[project]\nname = \"x\"\n[release]\nv = " + repeat("{a = ", 40'000) + "1" + repeat("}", 40'000) + "\n";
  expect_refused(bounded("matrix expand --config " + write("inline.toml", deep_inline)), "inline.toml:4:");
}

TEST_F(HostileInputTest, ATomlFileOver8MiBIsRefusedUnread) {
  expect_refused(
      bounded("matrix expand --config " + write("big.toml", std::string(9u << 20, '#'))),
      "big.toml: 9437184 bytes (9.0 MiB) is more than the 8.0 MiB relforge reads from a TOML file");
}

TEST_F(HostileInputTest, TwentyFourBraceGroupsAreRefusedWithoutExpanding) {
  const std::string config = shell_quote(source_path("examples/minitensor/relforge.toml").string());
  const std::string groups = repeat("{1,2}", 24);
  expect_refused(bounded("matrix expand --config " + config + " --select " + shell_quote("cp" + groups)),
                 "--select: the glob 'cp" + groups + "' expands to more than 4096 patterns");
  expect_refused(bounded("matrix expand --config " + config + " --skip " + shell_quote(groups + "*")),
                 "expands to more than 4096 patterns");
  // In a config rule, with the place of the rule.
  const std::string rule =
      "[[matrix.axis]]\nname = \"python\"\nvalues = [\"3.11\"]\n"
      "[[matrix.exclude]]\npython = \"" +
      groups + "\"\n";
  expect_refused(bounded("matrix expand --config " + write("rule.toml", rule)), "rule.toml:5:");
}

TEST_F(HostileInputTest, AFieldThatDoublesItselfThroughOverridesIsRefused) {
  std::string config =
      "[[matrix.axis]]\nname = \"os\"\nvalues = [\"linux\"]\n"
      "[[matrix.field]]\nname = \"f\"\ntemplate = \"0123456789abcdef\"\n";
  config += repeat("[[matrix.field]]\nname = \"f\"\ntemplate = \"{f}{f}\"\n", 60);  // 16 × 2^60 bytes
  expect_refused(
      bounded("matrix expand --config " + write("double.toml", config)),
      "double.toml:45:12: the field 'f' would be about 131072 bytes a cell, more than the 64 KiB a "
      "value may hold");
}

TEST_F(HostileInputTest, AMatrixJustUnderTheCellCapWithManyFieldsIsRefusedBeforeItIsBuilt) {
  std::string config;
  for (const char* axis : {"a", "b", "c", "d"}) {
    config += "[[matrix.axis]]\nname = \"" + std::string(axis) + "\"\nvalues = [";
    for (int v = 0; v < 66; ++v) config += (v > 0 ? ", \"" : "\"") + std::to_string(v) + "\"";
    config += "]\n";
  }
  for (int f = 0; f < 36; ++f)
    config += "[[matrix.field]]\nname = \"f" + std::to_string(f) + "\"\ntemplate = \"{a}-{b}\"\n";
  const auto result = bounded("matrix expand --config " + write("huge.toml", config));
  expect_refused(result, "(18974736 combinations × 41 fields, about ");
  EXPECT_NE(result.run.err.find("more than the 256 MiB relforge builds a matrix in"), std::string::npos);
}

TEST_F(HostileInputTest, RetagPlatformsThatClimbOutOfOutAreRefusedAndWriteNothing) {
  const auto wheel = python_wheel("{}");
  for (const std::string plat : {"x/../../y", "manylinux_2_28_x86_64/../../../../tmp/evil", "../x"}) {
    for (const std::string command : {"retag", "repair"}) {
      const auto result =
          relforge("wheel " + command + " " + shell_quote(wheel.string()) + " --plat " + shell_quote(plat) +
                   " --out " + shell_quote((m_dir / "work" / "out").string()));
      EXPECT_EQ(result.exit_code, 2) << result.err;
      EXPECT_NE(result.err.find("platform tag '" + plat + "' is not a PEP 425 platform tag"),
                std::string::npos)
          << result.err;
    }
  }
  const auto local = relforge("wheel repair " + shell_quote(wheel.string()) + " --local '../../x' --out " +
                              shell_quote((m_dir / "work" / "out").string()));
  EXPECT_EQ(local.exit_code, 2);
  EXPECT_NE(local.err.find("local version label '../../x' is not a PEP 440 local label"), std::string::npos)
      << local.err;
  EXPECT_TRUE(fs::is_empty(m_dir / "work" / "out"));
  EXPECT_EQ(files_outside_out(), 1u);  // the input wheel only
}

TEST_F(HostileInputTest, RepairRefusesWhatVerifyRefusesWithTheSameExitCode) {
  const auto wheel = python_wheel("{}", false);
  const auto verified = relforge("wheel verify " + shell_quote(wheel.string()));
  const auto repaired = relforge("wheel repair " + shell_quote(wheel.string()) + " --local cpu --out " +
                                 shell_quote((m_dir / "work" / "out").string()));
  EXPECT_EQ(verified.exit_code, 9);
  EXPECT_EQ(repaired.exit_code, verified.exit_code) << repaired.err;
  EXPECT_NE(repaired.err.find("`relforge wheel verify` refuses it"), std::string::npos) << repaired.err;
  EXPECT_NE(repaired.err.find("fix the wheel, or the build that made it, then repair it"), std::string::npos);
  EXPECT_TRUE(fs::is_empty(m_dir / "work" / "out"));
}

// SIGTERM while `wheel repair` writes its output (a 192 MiB stored entry: the copy takes a while):
// the process dies of the signal and leaves no hidden `.NAME.partial` in --out. Each attempt waits
// for the temp file to appear; one in which the repair finished first is run again.
TEST_F(HostileInputTest, RepairInterruptedWhileWritingLeavesNothingHalfWritten) {
  fs::create_directories(m_dir / "work");
  const auto wheel = m_dir / "work" / "demo-1.0-cp311-cp311-linux_x86_64.whl";
  const std::string script =
      "import base64, hashlib, os, sys, zipfile\n"
      "files = {'demo/blob.bin': os.urandom(192 << 20), 'demo/__init__.py': b'X = 1\\n',\n"
      " 'demo-1.0.dist-info/METADATA': b'Metadata-Version: 2.1\\nName: demo\\nVersion: 1.0\\n',\n"
      " 'demo-1.0.dist-info/WHEEL': b'Wheel-Version: 1.0\\nGenerator: t\\nRoot-Is-Purelib: false\\n"
      "Tag: cp311-cp311-linux_x86_64\\n'}\n"
      "h = lambda d: base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b'=').decode()\n"
      "lines = ['%s,sha256=%s,%d' % (p, h(d), len(d)) for p, d in files.items()]\n"
      "with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_STORED) as z:\n"
      "    for p, d in files.items(): z.writestr(p, d)\n"
      "    z.writestr('demo-1.0.dist-info/RECORD', '\\n'.join(lines + ['demo-1.0.dist-info/RECORD,,']))\n";
  ASSERT_EQ(
      run_shell("/usr/bin/python3 -c " + shell_quote(script) + " " + shell_quote(wheel.string())).exit_code,
      0);
  const std::string out = shell_quote((m_dir / "work" / "out").string());
  const std::string attempt = "rm -rf " + out + "; mkdir " + out + "\n" +
                              shell_quote(relforge::test::relforge_binary()) + " wheel repair " +
                              shell_quote(wheel.string()) + " --plat manylinux_2_28_x86_64 --out " + out +
                              " >/dev/null 2>&1 & pid=$!\n"
                              "seen=no; while kill -0 $pid 2>/dev/null; do\n"
                              "  for f in " +
                              out +
                              "/.*.partial; do [ -e \"$f\" ] && seen=yes; done\n"
                              "  [ $seen = yes ] && break\n"
                              "done\n"
                              "kill -TERM $pid 2>/dev/null; wait $pid; echo \"rc=$? seen=$seen\"; ls -A " +
                              out + "\n";
  bool interrupted = false;
  for (int i = 0; i < 5 && !interrupted; ++i) {
    const auto result = run_shell(attempt);
    EXPECT_EQ(result.out.find(".partial"), std::string::npos) << result.out;
    interrupted = result.out.starts_with("rc=143 seen=yes\n");
    if (interrupted) {
      // Killed while writing: nothing, or the complete wheel when the signal came after the rename.
      EXPECT_TRUE(result.out == "rc=143 seen=yes\n" ||
                  result.out == "rc=143 seen=yes\ndemo-1.0-cp311-cp311-manylinux_2_28_x86_64.whl\n")
          << result.out;
    }
  }
  EXPECT_TRUE(interrupted) << "the repair finished before its temp file was seen, five times";
}

// A library needing GLIBC_2.34 whose .gnu.version_r names point past the string table: before,
// nothing was read and the wheel was tagged manylinux_2_28.
TEST_F(HostileInputTest, AWheelWhoseElfVersionDataIsUnreadableIsNeverTaggedManylinux) {
  const auto glibc = run_shell("ldd --version | head -1 | grep -o '2\\.[0-9]*$'");
  if (glibc.out.size() < 3 || std::stoi(glibc.out.substr(2)) < 34)
    GTEST_SKIP() << "glibc older than 2.34 here";
  write("g.c",
        "#include <pthread.h>\n__asm__(\".symver pthread_join, pthread_join@GLIBC_2.34\");\n"
        "int f(pthread_t t) { return pthread_join(t, 0); }\n");
  ASSERT_EQ(run_shell("cc -shared -fPIC -o " + shell_quote((m_dir / "libg.so").string()) + " " +
                      shell_quote((m_dir / "g.c").string()))
                .exit_code,
            0);
  ASSERT_EQ(run_shell("/usr/bin/python3 " +
                      shell_quote(source_path("tests/fixtures/elf/corrupt_verneed.py").string()) + " " +
                      shell_quote((m_dir / "libg.so").string()) + " names")
                .exit_code,
            0);
  const auto wheel = python_wheel("{'demo/_C.so': open(sys.argv[2] + '/libg.so', 'rb').read()}");
  const auto result =
      relforge("wheel retag " + shell_quote(wheel.string()) + " --plat manylinux_2_28_x86_64 --out " +
               shell_quote((m_dir / "work" / "out").string()));
  EXPECT_EQ(result.exit_code, 9) << result.err;
  EXPECT_NE(result.err.find("cannot check 'demo/_C.so' inside it: its symbol-version data is unreadable or "
                            "inconsistent"),
            std::string::npos)
      << result.err;
  EXPECT_TRUE(fs::is_empty(m_dir / "work" / "out"));
}

// Under umask 0 the private key is created by one open(O_CREAT|O_EXCL, 0600), never chmod()ed, and
// linked to its name: there is no moment at which another user could open it.
TEST_F(HostileInputTest, ThePrivateKeyIsCreatedWithMode0600AndNeverWidened) {
  if (run_shell("strace -o /dev/null true").exit_code != 0) GTEST_SKIP() << "strace cannot run here";
  const auto trace = m_dir / "trace";
  const auto result =
      run_shell("umask 000; strace -f -e trace=open,openat,creat,chmod,fchmod,fchmodat,link,linkat -o " +
                shell_quote(trace.string()) + " " + shell_quote(relforge::test::relforge_binary()) +
                " keys generate --out " + shell_quote((m_dir / "keys").string()));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string calls = slurp(trace);
  const auto create = calls.find("/keys/signing.key.new-");
  ASSERT_NE(create, std::string::npos) << calls;
  const std::string line = calls.substr(create, calls.find('\n', create) - create);
  EXPECT_NE(line.find("O_CREAT|O_EXCL"), std::string::npos) << line;
  EXPECT_NE(line.find(", 0600)"), std::string::npos) << line;
  EXPECT_EQ(calls.find("chmod("), std::string::npos) << calls;
  // Linked into place, which fails rather than replace a key that appeared meanwhile.
  // link(2), or linkat(2) where the C library implements link() with it.
  EXPECT_TRUE(calls.find("/keys/signing.key\") = 0") != std::string::npos ||
              calls.find("/keys/signing.key\", 0) = 0") != std::string::npos)
      << calls;
  struct stat info {};
  ASSERT_EQ(::stat((m_dir / "keys" / "signing.key").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0600u);
}

}  // namespace
}  // namespace relforge::test
