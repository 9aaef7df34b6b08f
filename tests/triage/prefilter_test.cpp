// The raw prefilter (Hyperscan over the uncleaned log, then cleaning and RE2 only on candidate
// lines) must give exactly the answer of cleaning every line.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "platform/fs.hpp"
#include "tests/support/paths.hpp"
#include "triage/classify.hpp"
#include "triage/compiled_rules.hpp"
#include "triage/hs_pattern.hpp"
#include "triage/preprocess.hpp"

namespace relforge::triage {
namespace {

namespace fs = std::filesystem;

const ScanOptions k_every_line{.raw_prefilter = false};

std::shared_ptr<const CompiledRules> prefilter_rules() {
  static const auto compiled = default_rules();
  EXPECT_TRUE(compiled.has_value()) << (compiled ? "" : compiled.error().describe());
  return *compiled;
}

std::string describe(const Classification& c) {
  std::string out = "lines=" + std::to_string(c.lines) + " cut=" + std::to_string(c.long_lines_cut) +
                    " mid=" + std::to_string(c.ends_mid_line);
  if (!c.match) return out + " no match";
  out += " rule=" + c.match->rule + " line_num=" + std::to_string(c.match->line_num) + " line=[" +
         c.match->line + "] captures=";
  for (const auto& capture : c.match->captures) out += "[" + capture + "]";
  out += " context=";
  for (const auto& line : c.match->context) out += "[" + line + "]";
  return out;
}

// Everything but the byte count (the ANSI-heavy copies are longer).
void expect_same(const Classification& expected, const Classification& actual, const std::string& what) {
  EXPECT_EQ(describe(expected), describe(actual)) << what;
}

// Puts the text of each line in colour, word by word, and breaks words with escapes that cleaning
// removes: the cleaned lines, and so the answer, stay the same.
std::string ansi_heavy(const std::string& log) {
  std::string out;
  std::size_t pos = 0;
  while (pos < log.size()) {
    std::size_t end = log.find('\n', pos);
    const bool newline = end != std::string::npos;
    if (!newline) end = log.size();
    std::string_view line(log.data() + pos, end - pos);
    std::string_view stamped = strip_timestamp(line);
    out.append(line.substr(0, line.size() - stamped.size()));
    std::string scratch;  // the fixture's own escapes go first: new ones must not split them
    const std::string body(strip_ansi(stamped, scratch));
    out += "\x1b[36m";
    for (std::size_t i = 0; i < body.size(); ++i) {
      if (body[i] == '\r' && i + 1 == body.size()) {
        out += "\x1b[0m\r";  // the trailing \r is not stripped behind an escape: keep it last
        continue;
      }
      out += body[i];
      if (body[i] == ' ') out += "\x1b[1;31m";
      if (i == 2) out += "\x1b[K";
      if (i == 7) out += "\x1b]0;title\x07";
    }
    if (body.empty() || body.back() != '\r') out += "\x1b[0m";
    if (newline) out += '\n';
    pos = end + 1;
  }
  return out;
}

std::string crlf(const std::string& log) {
  std::string out;
  for (const char c : log) {
    if (c == '\n') out += '\r';
    out += c;
  }
  return out;
}

Classification in_pieces(const std::string& log, std::size_t piece, ScanOptions options) {
  LogScanner scanner(prefilter_rules(), options);
  for (std::size_t i = 0; i < log.size(); i += piece) scanner.feed(std::string_view(log).substr(i, piece));
  return scanner.finish();
}

std::vector<fs::path> fixture_logs() {
  std::vector<fs::path> logs;
  for (const auto& entry :
       fs::directory_iterator(fs::path(relforge::test::source_dir()) / "tests/fixtures/triage")) {
    if (entry.path().extension() == ".log") logs.push_back(entry.path());
  }
  std::sort(logs.begin(), logs.end());
  return logs;
}

TEST(RawPrefilter, TheBuiltInRulesHaveOneWhereHyperscanIsBuiltIn) {
  EXPECT_EQ(prefilter_rules()->raw_prefilter != nullptr, HyperscanSet::available());
}

TEST(RawPrefilter, SameAnswerWithAndWithoutOnEveryFixtureAndItsAnsiHeavyAndCrlfCopies) {
  std::string all;
  for (const auto& path : fixture_logs()) {
    auto text = platform::read_file(path);
    ASSERT_TRUE(text.has_value());
    all += *text;
    const std::string name = path.filename().string();
    const auto reference = classify(*text, prefilter_rules(), k_every_line);
    expect_same(reference, classify(*text, prefilter_rules()), name);
    expect_same(reference, in_pieces(*text, 7, {}), name + " in 7-byte pieces");
    const auto from_file = classify_file(path, prefilter_rules());
    ASSERT_TRUE(from_file.has_value());
    expect_same(reference, *from_file, name + " from the file");
    // The colours change no cleaned line, so neither engine may change its answer.
    const std::string heavy = ansi_heavy(*text);
    ASSERT_NE(heavy, *text);
    expect_same(reference, classify(heavy, prefilter_rules(), k_every_line),
                name + " ANSI-heavy, every line");
    expect_same(reference, classify(heavy, prefilter_rules()), name + " ANSI-heavy, prefiltered");
    expect_same(reference, in_pieces(heavy, 5, {}), name + " ANSI-heavy in 5-byte pieces");
    const std::string windows = crlf(*text);
    expect_same(reference, classify(windows, prefilter_rules()), name + " CRLF");
    expect_same(classify(ansi_heavy(windows), prefilter_rules(), k_every_line),
                classify(ansi_heavy(windows), prefilter_rules()), name + " CRLF ANSI-heavy");
  }
  // One log holding every fixture: the rules compete, the context ring and skip blocks carry over.
  expect_same(classify(all, prefilter_rules(), k_every_line), classify(all, prefilter_rules()),
              "all fixtures");
  expect_same(classify(all, prefilter_rules(), k_every_line), classify(ansi_heavy(all), prefilter_rules()),
              "all, ANSI-heavy");
  expect_same(classify(all, prefilter_rules(), k_every_line), in_pieces(all, 4099, {}),
              "all, in 4099-byte pieces");
}

// A small deterministic generator (no clock, no global RNG state).
struct Lcg {
  std::uint64_t state;
  std::uint32_t next() {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::uint32_t>(state >> 33);
  }
  std::size_t below(std::size_t n) { return next() % n; }
};

// Lines that the rules care about, cut and coloured at random places, among ordinary chatter,
// long lines, xtrace, CRLF, missing timestamps and skip-block banners.
std::string generated_log(std::uint64_t seed, std::size_t lines) {
  static const std::vector<std::string> fragments = {
      "FAILED test/test_ops.py::TestCommonCPU::test_mul - AssertionError: x",
      "FAILED [1.2s] test/test_nn.py::TestNN::test_conv - RuntimeError: y",
      "SUBFAIL test/test_ops.py::T::test_out (op='add') - AssertionError: z",
      "RuntimeError: test_ops 3/4 failed!",
      "AssertionError: Tensor-likes are not close!",
      "SyntaxError: '(' was never closed",
      "##[error]Process completed with exit code 1.",
      "##[error]Executing the custom container implementation failed. Please contact",
      "##[error]Unable to resolve action `x@v9`",
      "##[error]The operation was canceled.",
      "/opt/work/a.cpp:12:3: error: use of undeclared identifier 'x'",
      "/opt/work/a.cpp:12:3: warning: unused [-Wunused]",
      "a.cpp(12): error C2065: 'x': undeclared identifier",
      "Segmentation fault (core dumped)",
      "KeyboardInterrupt",
      "+ python test/run_test.py --shard 1 4",
      "+ sccache --show-stats",
      "=================== sccache compilation log ===================",
      "=================== If your build fails, please take a look at the log above for possible "
      "reasons ===================",
      "[  FAILED  ] Ops.Mul (3 ms)",
      "E: Failed to fetch http://archive.ubuntu.com/x.deb",
      "torch/a.py:12:1: F401 `math` imported but unused",
      "test/test_ops.py::TestCommonCPU::test_add PASSED [ 42%]",
      "[12/1890] Building CXX object aten/src/ATen/x.cpp.o",
      "Downloading numpy-1.26.4.whl (18.2 MB) \xe2\x94\x81\xe2\x94\x81 18.2/18.2 MB",
      "",
      "caf\xc3\xa9 \xff invalid bytes",
  };
  Lcg rng{seed};
  std::string log;
  for (std::size_t n = 0; n < lines; ++n) {
    std::string line = fragments[rng.below(fragments.size())];
    if (rng.below(8) == 0) line = std::string(rng.below(3) == 0 ? 70000 : 17000, 'x') + line;
    if (rng.below(8) == 0) line += std::string(17000, 'y');
    for (int k = 0; k < 2 && !line.empty(); ++k) {
      // CSI, OSC (ended by BEL, by ESC \\, or by nothing), a two-byte escape, a lone ESC.
      static const std::vector<std::string> escapes = {
          "\x1b[31m", "\x1b[0m", "\x1b]0;t\x07", "\x1b]8;;u\x1b\\", "\x1b]0;open", "\x1b(B", "\x1b", "\x1b["};
      if (rng.below(3) == 0) line.insert(rng.below(line.size() + 1), escapes[rng.below(escapes.size())]);
    }
    if (rng.below(4) != 0) line = "2024-05-14T09:12:0" + std::to_string(rng.below(10)) + ".1234567Z " + line;
    if (rng.below(6) == 0) line += '\r';
    log += line;
    log += '\n';
  }
  if (rng.below(2) == 0) log.pop_back();  // sometimes the log ends mid-line
  return log;
}

TEST(RawPrefilter, SameAnswerOnGeneratedLogsWhateverThePieces) {
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    const std::string log = generated_log(seed, 40 + seed % 7 * 10);
    const auto reference = classify(log, prefilter_rules(), k_every_line);
    const std::string what = "seed " + std::to_string(seed);
    expect_same(reference, classify(log, prefilter_rules()), what);
    expect_same(reference, in_pieces(log, 1 + seed * 37 % 5000, {}), what + " in pieces");
  }
}

TEST(RawPrefilter, AnEscapeCutShortByTheEndOfItsLineNeverTakesTheNextLine) {
  for (const std::string escape :
       {"\x1b", "\x1b[", "\x1b[1;", "\x1b]0;title", "\x1b]8;;\x1b", "\x1b(", "\x1b[0m"}) {
    for (const std::string end : {"\n", "\r\n"}) {
      const std::string log = "2024-05-14T09:12:01.1234567Z + make" + end +
                              "2024-05-14T09:12:01.1234567Z noise" + escape + end +
                              "FAILED test/a.py::test_x - E" + end + escape + end +
                              "2024-05-14T09:12:01.1234567Z " + escape + "SyntaxError: bad" + end + escape;
      const auto reference = classify(log, prefilter_rules(), k_every_line);
      ASSERT_TRUE(reference.match.has_value());
      EXPECT_EQ(reference.match->rule, "pytest_failure");
      expect_same(reference, classify(log, prefilter_rules()), "escape " + escape.substr(1));
      expect_same(reference, in_pieces(log, 3, {}), "escape " + escape.substr(1) + " in pieces");
    }
  }
}

TEST(RawPrefilter, CountsEveryLineAndEveryCutLineItSkips) {
  std::string log;
  for (int i = 0; i < 3000; ++i)
    log += "2024-05-14T09:12:01.1234567Z [12/1890] Building CXX object x.cpp.o\n";
  log += std::string(20000, 'a') + "\n";  // cut, matched by no rule
  log += "2024-05-14T09:12:01.1234567Z FAILED test/t.py::test_x - E\n";
  log += std::string(2 << 20, 'b') + "\n";  // longer than a slice of the prefilter
  log += "tail without newline";
  const auto reference = classify(log, prefilter_rules(), k_every_line);
  const auto fast = classify(log, prefilter_rules());
  expect_same(reference, fast, "long lines");
  EXPECT_EQ(fast.lines, 3004u);
  EXPECT_EQ(fast.long_lines_cut, 2u);
  EXPECT_TRUE(fast.ends_mid_line);
  ASSERT_TRUE(fast.match.has_value());
  EXPECT_EQ(fast.match->line_num, 3002u);
}

TEST(HyperscanPattern, DropsAnchorsAndWidensNothingElse) {
  auto raw = to_hyperscan(R"(^FAILED (\S+::\S+)(?: - (.*))?$)", true);
  ASSERT_TRUE(raw.has_value());
  EXPECT_EQ(raw->text, R"(FAILED ([^\t\n\f\r ]+::[^\t\n\f\r ]+)(?: - (.*))?)");
  EXPECT_FALSE(raw->case_insensitive);
  auto kept = to_hyperscan(R"(^\bx\$[\^$]$)", false);
  ASSERT_TRUE(kept.has_value());
  EXPECT_EQ(kept->text, R"(^\bx\$[\^$]$)");  // escaped and bracketed ^ $ are characters
  auto dropped = to_hyperscan(R"(\A^\bx\$[\^$]$\z)", true);
  ASSERT_TRUE(dropped.has_value());
  EXPECT_EQ(dropped->text, R"(x\$[\^$])");
  EXPECT_EQ(to_hyperscan(R"([]^$]x)", true)->text, R"([]^$]x)");
  EXPECT_TRUE(to_hyperscan("(?i)error", true)->case_insensitive);
  EXPECT_TRUE(to_hyperscan("(?i:error)", true)->case_insensitive);
  // What the engines read differently is refused rather than guessed.
  EXPECT_FALSE(to_hyperscan(R"(\Q^x\E)", true).has_value());
  EXPECT_FALSE(to_hyperscan(R"(\pL+)", true).has_value());
  EXPECT_FALSE(to_hyperscan(R"([\S])", true).has_value());
  EXPECT_FALSE(to_hyperscan(R"([^\s])", true).has_value());
  EXPECT_FALSE(to_hyperscan(R"([abc)", true).has_value());
  EXPECT_FALSE(to_hyperscan("x\\", true).has_value());
}

TEST(RawPrefilter, ARulesetItCannotCarryFallsBackToEveryLineWithTheSameAnswer) {
  auto spec = parse_rule_spec("[[rule]]\nname='quoted'\npattern='\\Q^FAILED\\E (\\S+)'\n", "q.toml");
  ASSERT_TRUE(spec.has_value());
  auto compiled = compile_rules(*spec);
  ASSERT_TRUE(compiled.has_value());
  EXPECT_EQ((*compiled)->raw_prefilter, nullptr);
  const auto result = classify("2024-05-14T09:12:01.1Z \x1b[31m^FAILED\x1b[0m x\n", *compiled);
  ASSERT_TRUE(result.match.has_value());
  EXPECT_EQ(result.match->captures, std::vector<std::string>{"x"});
}

TEST(RawPrefilter, CaseInsensitiveRulesStillSeeNonAsciiLines) {
  // (?i)k also matches the Kelvin sign (U+212A) in RE2; Hyperscan reads bytes and would not.
  auto spec = parse_rule_spec("[[rule]]\nname='kill'\npattern='(?i)^kill(ed)'\n", "k.toml");
  ASSERT_TRUE(spec.has_value());
  auto compiled = compile_rules(*spec);
  ASSERT_TRUE(compiled.has_value());
  const std::string log = "noise\n2024-05-14T09:12:01.1Z \xe2\x84\xaaILLED by the kernel\nmore\n";
  const auto reference = classify(log, *compiled, k_every_line);
  ASSERT_TRUE(reference.match.has_value());
  EXPECT_EQ(reference.match->line_num, 2u);
  expect_same(reference, classify(log, *compiled), "Kelvin sign");
}

}  // namespace
}  // namespace relforge::triage
