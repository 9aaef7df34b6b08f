// Canonical decomposition (NFD) of names and the key wheel verify compares entry names by: the
// cases macOS folds into one file, the cases it does not, and a differential test against
// Python's unicodedata (tests/packaging/oracle_unicode.py). No skip: a missing oracle fails.
#include "packaging/unicode_nfd.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/text.hpp"
#include "packaging/names.hpp"
#include "packaging/unicode_nfd_tables.hpp"
#include "tests/support/run.hpp"
#include "tests/support/splitmix64.hpp"

namespace relforge::packaging::unicode_nfd_test {
namespace {

namespace fs = std::filesystem;

std::string utf8(std::initializer_list<char32_t> code_points) {
  std::string out;
  for (const char32_t c : code_points) out += encode_utf8(c);
  return out;
}

std::string to_hex(std::string_view text) {
  static constexpr char k_digits[] = "0123456789abcdef";
  std::string out;
  for (const char c : text) {
    out += k_digits[static_cast<unsigned char>(c) >> 4];
    out += k_digits[static_cast<unsigned char>(c) & 0xF];
  }
  return out;
}

std::vector<char32_t> code_points_of(std::string_view text) {
  std::vector<char32_t> out;
  for (std::size_t pos = 0; pos < text.size();) out.push_back(*next_code_point(text, pos));
  return out;
}

std::string from_code_points(const std::vector<char32_t>& code_points) {
  std::string out;
  for (const char32_t c : code_points) out += encode_utf8(c);
  return out;
}

const std::string k_python = "/usr/bin/python3";

std::string oracle_script() {
  return test::shell_quote(test::source_path("tests/packaging/oracle_unicode.py").string());
}

TEST(UnicodeNfd, AsciiNamesAreReturnedAsTheyAre) {
  for (const std::string name : {"", "demo/__init__.py", "Demo-1.0.dist-info/RECORD", "\x7f\x01"}) {
    EXPECT_EQ(canonical_decomposition(name), name);
  }
  EXPECT_EQ(name_collision_key("Demo/Evil.PY"), "demo/evil.py");
}

TEST(UnicodeNfd, PrecomposedAndDecomposedAccentsAreOneName) {
  const std::string precomposed = "caf" + utf8({0xE9}) + ".py";
  const std::string decomposed = "cafe" + utf8({0x301}) + ".py";
  ASSERT_NE(precomposed, decomposed);
  EXPECT_EQ(canonical_decomposition(precomposed), decomposed);
  EXPECT_EQ(canonical_decomposition(decomposed), decomposed);
  EXPECT_EQ(name_collision_key(precomposed), name_collision_key(decomposed));
}

TEST(UnicodeNfd, MarksOfDifferentClassesAreOneNameInEitherOrder) {
  // U+0323 DOT BELOW (class 220) sorts before U+0307 DOT ABOVE (230) on the same base.
  const std::string below_first = "q" + utf8({0x323, 0x307});
  const std::string above_first = "q" + utf8({0x307, 0x323});
  EXPECT_EQ(canonical_decomposition(above_first), below_first);
  EXPECT_EQ(name_collision_key(below_first), name_collision_key(above_first));
  // U+1E0B (d, dot above) + dot below and U+1E0D (d, dot below) + dot above.
  EXPECT_EQ(canonical_decomposition(utf8({0x1E0B, 0x323})), canonical_decomposition(utf8({0x1E0D, 0x307})));
  EXPECT_EQ(canonical_decomposition(utf8({0x1E0B, 0x323})), "d" + utf8({0x323, 0x307}));
  // Marks of one class keep their order: a + acute + grave is not a + grave + acute.
  EXPECT_NE(canonical_decomposition("a" + utf8({0x301, 0x300})),
            canonical_decomposition("a" + utf8({0x300, 0x301})));
  // A starter between marks ends the run: nothing moves across it.
  EXPECT_EQ(canonical_decomposition("a" + utf8({0x307}) + "b" + utf8({0x323})),
            "a" + utf8({0x307}) + "b" + utf8({0x323}));
}

TEST(UnicodeNfd, HangulSyllablesDecomposeToTheirJamo) {
  EXPECT_EQ(canonical_decomposition(utf8({0xAC00})), utf8({0x1100, 0x1161}));
  EXPECT_EQ(name_collision_key(utf8({0xAC00})), name_collision_key(utf8({0x1100, 0x1161})));
  EXPECT_EQ(canonical_decomposition(utf8({0xAC01})), utf8({0x1100, 0x1161, 0x11A8}));
  EXPECT_EQ(canonical_decomposition(utf8({0xD7A3})), utf8({0x1112, 0x1175, 0x11C2}));
  EXPECT_EQ(canonical_decomposition(utf8({0xAC00, 0x11A8})), canonical_decomposition(utf8({0xAC01})));
  EXPECT_EQ(canonical_decomposition(utf8({0xABFF})), utf8({0xABFF}));
  EXPECT_EQ(canonical_decomposition(utf8({0xD7A4})), utf8({0xD7A4}));
}

TEST(UnicodeNfd, AngstromSignIsCapitalAWithRingAbove) {
  const std::string ring = "A" + utf8({0x30A});
  EXPECT_EQ(canonical_decomposition(utf8({0x212B})), ring);
  EXPECT_EQ(canonical_decomposition(utf8({0xC5})), ring);
  EXPECT_EQ(name_collision_key(utf8({0x212B})), name_collision_key(utf8({0xC5})));
  EXPECT_EQ(canonical_decomposition(utf8({0x2126})), utf8({0x3A9}));  // OHM SIGN, OMEGA
}

TEST(UnicodeNfd, CompatibilityMappingsAreNotApplied) {
  const std::vector<std::pair<std::string, std::string>> apart = {
      {utf8({0xFB01}) + "le.py", "file.py"},  // LATIN SMALL LIGATURE FI
      {utf8({0xFF21}), "A"},                  // FULLWIDTH A
      {utf8({0x2460}), "1"},                  // CIRCLED DIGIT ONE
      {utf8({0xB2}), "2"},                    // SUPERSCRIPT TWO
  };
  for (const auto& [a, b] : apart) {
    SCOPED_TRACE(to_hex(a));
    EXPECT_EQ(canonical_decomposition(a), a);
    EXPECT_NE(name_collision_key(a), name_collision_key(b));
  }
}

// Case folding is ASCII only and comes after decomposition: what decomposes to an ASCII letter
// folds with it; other scripts' cases stay apart.
TEST(UnicodeNfd, AsciiCaseFoldingCombinesWithNormalisation) {
  const std::string upper_precomposed = "Caf" + utf8({0xE9}) + ".py";
  const std::string lower_decomposed = "cafe" + utf8({0x301}) + ".py";
  EXPECT_NE(canonical_decomposition(upper_precomposed), canonical_decomposition(lower_decomposed));
  EXPECT_EQ(name_collision_key(upper_precomposed), name_collision_key(lower_decomposed));
  EXPECT_EQ(name_collision_key(utf8({0xC9})), name_collision_key(utf8({0xE9})));
  EXPECT_NE(name_collision_key(utf8({0x3A9})), name_collision_key(utf8({0x3C9})));        // Omega, omega
  EXPECT_EQ(name_collision_key(utf8({0x130})), name_collision_key("i" + utf8({0x307})));  // I + dot above
}

TEST(UnicodeNfd, IllFormedBytesAreKeptAsTheyAre) {
  for (const std::string bytes : {"\xff", "caf\xc3", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80"}) {
    SCOPED_TRACE(to_hex(bytes));
    EXPECT_EQ(canonical_decomposition(bytes), bytes);
  }
  EXPECT_EQ(canonical_decomposition(utf8({0xE9}) + "\xff"), "e" + utf8({0x301}) + "\xff");
  // A stray byte stands between two marks like a starter.
  const std::string split = "a" + utf8({0x307}) + "\xff" + utf8({0x323});
  EXPECT_EQ(canonical_decomposition(split), split);
}

TEST(UnicodeNfd, ALongRunOfMarksIsOrderedByClass) {
  std::string name = "a";
  for (int i = 0; i < 16000; ++i) name += utf8({i % 2 == 0 ? char32_t{0x307} : char32_t{0x323}});
  std::string expected = "a";
  for (int i = 0; i < 8000; ++i) expected += utf8({0x323});
  for (int i = 0; i < 8000; ++i) expected += utf8({0x307});
  EXPECT_EQ(canonical_decomposition(name), expected);
}

// The committed tables are what scripts/gen_unicode_tables.py writes from this python3.
TEST(UnicodeNfd, TheTablesAreWhatTheScriptWrites) {
  const auto version =
      test::run_shell(k_python + " -c 'import unicodedata; print(unicodedata.unidata_version)'");
  ASSERT_EQ(version.exit_code, 0) << version.err;
  ASSERT_EQ(core::trim(version.out), unicode_nfd_version())
      << "python3's unicodedata is another Unicode version: run scripts/gen_unicode_tables.py";
  const auto run = test::run_shell(
      k_python + " " + test::shell_quote(test::source_path("scripts/gen_unicode_tables.py").string()) +
      " --output -");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(run.out == test::slurp(test::source_path("packaging/unicode_nfd_tables.hpp")))
      << "packaging/unicode_nfd_tables.hpp differs from what scripts/gen_unicode_tables.py writes";
}

// Every code point: its NFD and its combining class, against unicodedata.
TEST(UnicodeNfdOracle, EveryCodePointDecomposesAsPythonDoes) {
  const auto run = test::run_shell(k_python + " " + oracle_script() + " --code-points");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::istringstream in(run.out);
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  ASSERT_EQ(line, "version\t" + std::string(unicode_nfd_version()))
      << "python3's unicodedata is another Unicode version: run scripts/gen_unicode_tables.py";
  std::map<char32_t, std::string> decomposed;
  std::map<char32_t, unsigned> classes;
  while (std::getline(in, line)) {
    const auto fields = core::split(line, '\t');
    ASSERT_EQ(fields.size(), 3u) << line;
    const auto code_point = static_cast<char32_t>(std::stoul(std::string(fields[1]), nullptr, 16));
    if (fields[0] == "nfd")
      decomposed[code_point] = std::string(fields[2]);
    else
      classes[code_point] = static_cast<unsigned>(std::stoul(std::string(fields[2])));
  }
  ASSERT_GT(decomposed.size(), 13000u);  // 2,061 listed + 11,172 Hangul syllables
  ASSERT_GT(classes.size(), 900u);
  std::size_t mismatches = 0;
  for (char32_t c = 0; c <= 0x10FFFF; ++c) {
    if (c >= 0xD800 && c <= 0xDFFF) continue;
    const auto it = decomposed.find(c);
    const std::string expected = it != decomposed.end() ? it->second : to_hex(encode_utf8(c));
    const auto klass = classes.find(c);
    const unsigned expected_class = klass != classes.end() ? klass->second : 0;
    if ((to_hex(canonical_decomposition(encode_utf8(c))) != expected ||
         canonical_combining_class(c) != expected_class) &&
        ++mismatches <= 10)
      ADD_FAILURE() << "code point U+" << std::hex << static_cast<std::uint32_t>(c);
  }
  EXPECT_EQ(mismatches, 0u);
}

// Names from a fixed seed: the same names on every machine.
class NameMaker {
public:
  std::size_t below(std::size_t n) { return m_random.below(n); }

  char32_t code_point() {
    static const std::vector<char32_t> k_special = {0x212B,  0xC5,   0x2126, 0x3A9, 0xFB01, 0x344, 0xF73,
                                                    0x1E9B,  0xFF21, 0xE9,   0xC9,  0x301,  0x323, 0x307,
                                                    0x1D15E, 0x2ADC, 0x130,  0x340, 0x37E,  0x387, 0x1F82};
    static const std::string k_ascii = "abcdeEFIXYZ019._-/";
    switch (below(9)) {
      case 0:
      case 1:
        return static_cast<unsigned char>(k_ascii[below(k_ascii.size())]);
      case 2:
        return nfd_tables::k_decompositions[below(std::size(nfd_tables::k_decompositions))].code_point;
      case 3:
      case 4: {
        const auto& range = nfd_tables::k_combining[below(std::size(nfd_tables::k_combining))];
        return range.first + static_cast<char32_t>(below(range.last - range.first + 1));
      }
      case 5:
        return 0xAC00 + static_cast<char32_t>(below(11172));
      case 6: {
        const char32_t jamo[] = {0x1100 + static_cast<char32_t>(below(19)),
                                 0x1161 + static_cast<char32_t>(below(21)),
                                 0x11A7 + static_cast<char32_t>(below(28))};
        return jamo[below(3)];
      }
      case 7:
        return k_special[below(k_special.size())];
      default: {
        char32_t c = static_cast<char32_t>(below(0x110000));
        return c >= 0xD800 && c <= 0xDFFF ? c - 0x800 : c;
      }
    }
  }

  std::vector<char32_t> name() {
    std::vector<char32_t> out;
    for (std::size_t n = 1 + below(8); n > 0; --n) out.push_back(code_point());
    return out;
  }

  // A name likely canonically equivalent (or equal after case folding) to `a`, or not.
  std::vector<char32_t> variant(const std::vector<char32_t>& a) {
    switch (below(6)) {
      case 0:
        return name();
      case 1:
        return code_points_of(canonical_decomposition(from_code_points(a)));
      case 2: {
        auto b = code_points_of(canonical_decomposition(from_code_points(a)));
        if (b.size() > 1) {
          const std::size_t i = below(b.size() - 1);
          std::swap(b[i], b[i + 1]);
        }
        return b;
      }
      case 3:
        return recomposed(code_points_of(canonical_decomposition(from_code_points(a))));
      case 4: {
        auto b = a;
        for (auto& c : b) {
          if (below(2) != 0) continue;
          if (c >= U'a' && c <= U'z')
            c = c - U'a' + U'A';
          else if (c >= U'A' && c <= U'Z')
            c = c - U'A' + U'a';
        }
        return b;
      }
      default: {
        auto b = recomposed(code_points_of(canonical_decomposition(from_code_points(a))));
        for (auto& c : b)
          if (c >= U'a' && c <= U'z' && below(2) == 0) c = c - U'a' + U'A';
        return b;
      }
    }
  }

private:
  // Some base-and-mark pairs of a decomposed name put back together as the table's composite.
  std::vector<char32_t> recomposed(const std::vector<char32_t>& decomposed) {
    static const auto k_pairs = [] {
      std::map<std::pair<char32_t, char32_t>, char32_t> pairs;
      for (const auto& entry : nfd_tables::k_decompositions)
        if (entry.length == 2)
          pairs.emplace(
              std::pair{nfd_tables::k_decomposed[entry.start], nfd_tables::k_decomposed[entry.start + 1]},
              entry.code_point);
      return pairs;
    }();
    std::vector<char32_t> out;
    for (std::size_t i = 0; i < decomposed.size(); ++i) {
      if (i + 1 < decomposed.size() && below(3) != 0) {
        const auto it = k_pairs.find({decomposed[i], decomposed[i + 1]});
        if (it != k_pairs.end()) {
          out.push_back(it->second);
          ++i;
          continue;
        }
      }
      out.push_back(decomposed[i]);
    }
    return out;
  }

  test::SplitMix64 m_random{0x6E66645F6B657973ULL};
};

// Generated pairs of names: NFD of each, whether they are equivalent, and whether they are
// equivalent after ASCII case folding, against unicodedata.normalize('NFD').
TEST(UnicodeNfdOracle, GeneratedNamePairsAgreeWithPython) {
  NameMaker maker;
  std::vector<std::pair<std::string, std::string>> pairs = {
      {"caf" + utf8({0xE9}) + ".py", "cafe" + utf8({0x301}) + ".py"},
      {"q" + utf8({0x323, 0x307}), "q" + utf8({0x307, 0x323})},
      {utf8({0xAC00}), utf8({0x1100, 0x1161})},
      {utf8({0x212B}), utf8({0xC5})},
      {utf8({0xFB01}), "fi"},
      {"Caf" + utf8({0xE9}), "cafe" + utf8({0x301})}};
  while (pairs.size() < 4000) {
    const auto a = maker.name();
    pairs.emplace_back(from_code_points(a), from_code_points(maker.variant(a)));
  }
  const auto dir = fs::temp_directory_path() / ("relforge-nfd-oracle-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  {
    std::ofstream cases(dir / "cases");
    for (const auto& [a, b] : pairs) cases << to_hex(a) << '\t' << to_hex(b) << '\n';
  }
  const auto run =
      test::run_shell(k_python + " " + oracle_script() + " " + test::shell_quote((dir / "cases").string()));
  fs::remove_all(dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::istringstream in(run.out);
  std::size_t equal = 0, folded_only = 0, apart = 0, index = 0;
  for (std::string line; std::getline(in, line); ++index) {
    ASSERT_LT(index, pairs.size());
    const auto& [a, b] = pairs[index];
    SCOPED_TRACE(to_hex(a) + " " + to_hex(b));
    const auto fields = core::split(line, '\t');
    ASSERT_EQ(fields.size(), 4u) << line;
    const std::string nfd_a = canonical_decomposition(a), nfd_b = canonical_decomposition(b);
    EXPECT_EQ(to_hex(nfd_a), fields[0]);
    EXPECT_EQ(to_hex(nfd_b), fields[1]);
    EXPECT_EQ(nfd_a == nfd_b, fields[2] == "1");
    EXPECT_EQ(name_collision_key(a) == name_collision_key(b), fields[3] == "1");
    if (fields[2] == "1")
      ++equal;
    else if (fields[3] == "1")
      ++folded_only;
    else
      ++apart;
  }
  EXPECT_EQ(index, pairs.size());
  EXPECT_GE(equal, 1000u);
  EXPECT_GE(folded_only, 200u);
  EXPECT_GE(apart, 1000u);
}

}  // namespace
}  // namespace relforge::packaging::unicode_nfd_test
