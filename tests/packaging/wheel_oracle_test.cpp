// Differential test: generated wheel file names, project names and tag sets, parsed here and by
// packaging 26.3 (tests/packaging/oracle_wheels.py). No skip: a missing or broken
// oracle fails the test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/text.hpp"
#include "packaging/canonical_version.hpp"
#include "packaging/names.hpp"
#include "packaging/wheel_name.hpp"
#include "tests/packaging/oracle_python.hpp"
#include "tests/support/run.hpp"
#include "tests/support/splitmix64.hpp"

namespace relforge::packaging {
namespace {

std::string hex(std::string_view text) {
  static constexpr char k_digits[] = "0123456789abcdef";
  std::string out;
  for (const char c : text) {
    out += k_digits[static_cast<unsigned char>(c) >> 4];
    out += k_digits[static_cast<unsigned char>(c) & 0xF];
  }
  return out;
}

std::string unhex(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i + 1 < text.size(); i += 2) {
    out += static_cast<char>(std::stoi(std::string(text.substr(i, 2)), nullptr, 16));
  }
  return out;
}

// Cases from a fixed seed: the same on every machine and standard library.
class Generator : public test::SplitMix64 {
public:
  Generator() : SplitMix64(20250101) {}
  // Takes a braced list of choices too.
  std::string pick(const std::vector<std::string>& items) { return SplitMix64::pick(items); }
  std::string join_some(const std::vector<std::string>& items, std::size_t most, const std::string& sep) {
    std::string out = pick(items);
    for (std::size_t n = below(most); n > 0; --n) out += sep + pick(items);
    return out;
  }
};

const std::vector<std::string> k_unicode = {"é", "Ñ", "ß", "İ", "ǅ", "Ω", "ж", "٣", "²", "中", "Ⅻ"};

std::string word(Generator& g) {
  static const std::string alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::string out;
  for (std::size_t n = 1 + g.below(7); n > 0; --n) out += alphabet[g.below(alphabet.size())];
  if (g.percent(8)) out.insert(g.below(out.size() + 1), g.pick(k_unicode));
  return out;
}

std::string project_name(Generator& g) {
  std::string out = g.percent(5) ? g.pick({"-", "_", "."}) : "";
  out += word(g);
  for (std::size_t n = g.below(4); n > 0; --n) {
    for (std::size_t run = 1 + (g.percent(25) ? g.below(3) : 0); run > 0; --run)
      out += g.pick({"-", "_", "."});
    out += word(g);
  }
  if (g.percent(5)) out += g.pick({"-", "_", ".", " ", "+", "@", "!", "/", "[x]"});
  return out;
}

std::string distribution(Generator& g) {
  std::string out = word(g);
  for (std::size_t n = g.below(3); n > 0; --n) {
    out += g.percent(80) ? g.pick({"_", ".", "_."}) : g.pick({"__", "-", "._.", "+", " ", "@"});
    out += word(g);
  }
  return g.percent(2) ? "" : out;
}

std::string version(Generator& g) {
  if (g.percent(8))
    return g.pick({"1.0+", "abc", "1..0", "1.0_", "", "1.0+cu 126", "1.0a.b", "2.x", "1.0+ä", "１.0"});
  std::string out = g.percent(5) ? g.pick({"v", "V"}) : "";
  if (g.percent(8)) out += g.pick({"1!", "2!", "0!"});
  out += std::to_string(g.below(30));
  for (std::size_t n = g.below(4); n > 0; --n)
    out += "." + std::to_string(g.percent(10) ? 20250101 : g.below(20));
  if (g.percent(25)) {
    out +=
        g.pick({"", ".", "_"}) + g.pick({"a", "b", "rc", "alpha", "beta", "c", "pre", "preview", "RC", "A"});
    if (g.percent(80)) out += std::to_string(g.below(5));
  }
  if (g.percent(10)) out += g.pick({".post1", "post2", ".post", "_post3", ".rev1", ".r2", "-1", ".POST4"});
  if (g.percent(15)) out += g.pick({".dev20250101", "dev", ".dev3", "_dev1", ".DEV0"});
  if (g.percent(30))
    out += "+" + g.pick({"cu126", "cpu", "rocm7.2", "abc.5", "CU126", "xpu", "cu126_ABC.1", "1"});
  return out;
}

std::string tag_set(Generator& g) {
  const std::vector<std::string> interpreters = {"py2",   "py3", "cp39",  "cp313",
                                                 "pp310", "PY3", "Cp312", "cp314"};
  const std::vector<std::string> abis = {"none", "abi3",   "cp313",        "cp313t",
                                         "cp39", "CP313T", "pypy310_pp73", "cp37m"};
  const std::vector<std::string> platforms = {"any",
                                              "linux_x86_64",
                                              "manylinux_2_28_x86_64",
                                              "manylinux_2_28_aarch64",
                                              "manylinux1_x86_64",
                                              "manylinux2010_i686",
                                              "manylinux2014_aarch64",
                                              "musllinux_1_2_x86_64",
                                              "macosx_11_0_arm64",
                                              "macosx_10_9_x86_64",
                                              "macosx_10_9_universal2",
                                              "win32",
                                              "win_amd64",
                                              "win_arm64",
                                              "MACOSX_11_0_ARM64",
                                              "manylinux_2_17_x86_64.manylinux2014_x86_64"};
  std::string out = g.join_some(interpreters, 3, ".") + "-" + g.join_some(abis, 2, ".") + "-" +
                    g.join_some(platforms, 3, ".");
  if (g.percent(3)) out += ".";
  if (g.percent(2)) out += g.pick({"İ", "Ω"});
  return out;
}

std::string wheel_filename(Generator& g) {
  std::string out = distribution(g) + "-" + version(g);
  if (g.percent(20))
    out += "-" + g.pick({"1", "2abc", "10_b", "0", "007x", "1.x", "abc", "", "٣x", "12", "1_"});
  out += "-" + tag_set(g);
  if (g.percent(3)) out += g.pick({"-extra", "-py3"});
  if (g.percent(3)) out = out.substr(0, out.rfind('-'));
  return out + (g.percent(92) ? ".whl" : g.pick({".WHL", ".zip", ".whl.metadata", "", ".tar.gz", "whl"}));
}

const std::vector<std::string> k_fixed_wheels = {
    "torch-2.6.0+cu126-cp313-cp313t-manylinux_2_28_x86_64.whl",
    "torch-2.9.0-cp313-none-macosx_11_0_arm64.whl",
    "six-1.16.0-py2.py3-none-any.whl",
    "Foo_Bar-1.0-1abc-py3-none-any.whl",
    "abc\n-1.0-py3-none-any.whl",
    "abc-1.0-1a\nb-py3-none-any.whl",
    "-1.0-py3-none-any.whl",
    "a-1.0-py3..py2-none-any.whl",
    "a-1.0--py3-none-any.whl",
    "a-1.0-py3-none-any.whl ",
};

std::vector<std::string> oracle(const std::vector<std::pair<std::string, std::string>>& cases) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("relforge-wheel-oracle-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    std::ofstream file(dir / "cases.txt", std::ios::binary);
    for (const auto& [kind, text] : cases) file << kind << '\t' << hex(text) << '\n';
  }
  const std::string python = test::oracle_python();
  if (python.empty()) {
    std::filesystem::remove_all(dir);
    ADD_FAILURE() << test::oracle_missing_message();
    return {};
  }
  const auto run = test::run_shell(python + " " +
                                   test::shell_quote(test::source_path("tests/packaging/oracle_wheels.py")) +
                                   " " + test::shell_quote((dir / "cases.txt").string()));
  std::filesystem::remove_all(dir);
  EXPECT_EQ(run.exit_code, 0) << "the oracle failed: " << run.err;
  std::vector<std::string> lines;
  std::istringstream in(run.out);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  EXPECT_EQ(lines.size(), cases.size()) << run.err;
  return lines;
}

std::string sorted_tags(std::vector<Tag> tags) {
  std::vector<std::string> text;
  for (const auto& tag : tags) text.push_back(tag.to_string());
  std::sort(text.begin(), text.end());
  return core::join(text, ",");
}

// Ours in the oracle's answer format, so one string comparison covers every field.
// Which part a wheel-name error blames, from packaging's message or ours.
std::string blamed_part(const std::string& message) {
  for (const auto& [part, markers] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"extension", {"extension must be"}},
           {"tag", {"(invalid tag component)", "tag set '"}},  // before "parts": ours name both
           {"parts", {"wrong number of parts", "'-'-separated parts"}},
           {"name", {"Invalid project name", "project name part"}},
           {"version", {"(invalid version)", "version part"}},
           {"build", {"Invalid build number", "build tag '"}}}) {
    for (const auto& marker : markers) {
      if (message.find(marker) != std::string::npos) return part;
    }
  }
  return "other";
}

std::string our_wheel_answer(const std::string& filename) {
  const auto wheel = parse_wheel_filename(filename);
  if (!wheel) return "err\t" + blamed_part(wheel.error().message());
  const auto build = wheel->build ? wheel->build->number.to_string() + "\t" + hex(wheel->build->tag) : "-\t-";
  return "ok\t" + hex(wheel->normalized_name()) + "\t" + hex(wheel->version.to_string()) + "\t" + build +
         "\t" + hex(sorted_tags(wheel->tags()));
}

std::string our_tag_answer(const std::string& text) {
  const auto tags = parse_tag(text);
  return tags ? "ok\t" + hex(sorted_tags(*tags)) : "err";
}

std::string our_name_answer(const std::string& name) {
  return hex(normalize_project_name(name)) + "\t" + hex(wheel_file_name_component(name)) + "\t" +
         (is_valid_project_name(name) ? "1" : "0");
}

// Compares every case; returns how many the oracle called valid, prints the first disagreements.
struct Tally {
  std::size_t valid = 0;
  std::map<std::string, std::size_t> errors;  // by the part packaging blames
};

Tally compare(const std::string& kind, const std::vector<std::string>& inputs,
              std::string (*ours)(const std::string&)) {
  std::vector<std::pair<std::string, std::string>> cases;
  for (const auto& input : inputs) cases.emplace_back(kind, input);
  const auto answers = oracle(cases);
  Tally tally;
  if (answers.size() != inputs.size()) return tally;
  std::size_t disagreements = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const bool failed = answers[i].rfind("err\t", 0) == 0;
    const std::string message = failed ? unhex(answers[i].substr(answers[i].rfind('\t') + 1)) : "";
    std::string expected = answers[i];
    if (failed) {
      expected = kind == "wheel" ? "err\t" + blamed_part(message) : "err";
      ++tally.errors[blamed_part(message)];
    }
    if (kind == "name" ? expected.ends_with("\t1") : !failed) ++tally.valid;
    const std::string actual = ours(inputs[i]);
    if (actual == expected) continue;
    if (++disagreements <= 10) {
      const std::string why = failed ? "\n  packaging raised: " + message : "";
      ADD_FAILURE() << kind << " '" << inputs[i] << "'\n  packaging: " << answers[i]
                    << "\n  relforge:  " << actual << why;
    }
  }
  EXPECT_EQ(disagreements, 0u) << "of " << inputs.size() << " " << kind << " cases";
  std::cout << "[ oracle   ] " << kind << ": " << inputs.size() << " cases, " << tally.valid << " valid;";
  for (const auto& [part, count] : tally.errors) std::cout << ' ' << part << '=' << count;
  std::cout << '\n';
  return tally;
}

TEST(WheelOracle, FileNamesAgreeWithPackaging) {
  Generator g;
  std::vector<std::string> names = k_fixed_wheels;
  while (names.size() < 1500) names.push_back(wheel_filename(g));
  const auto tally = compare("wheel", names, our_wheel_answer);
  EXPECT_GE(tally.valid, 500u);
  // Every way packaging rejects a name is exercised, and ours blames the same part.
  for (const auto* part : {"extension", "parts", "name", "version", "build", "tag"}) {
    EXPECT_GE(tally.errors.count(part) ? tally.errors.at(part) : 0u, 20u) << part;
  }
  EXPECT_EQ(tally.errors.count("other"), 0u);
}

TEST(WheelOracle, ProjectNamesAgreeWithPackaging) {
  Generator g;
  std::vector<std::string> names = {"Torch", "torch-audio", "Foo__Bar..baz", "-x", "x-", "1", "", "ǅungla"};
  while (names.size() < 800) names.push_back(project_name(g));
  const std::size_t valid = compare("name", names, our_name_answer).valid;
  EXPECT_GE(valid, 300u);
  EXPECT_GE(names.size() - valid, 100u);
}

std::string our_canon_answer(const std::string& text) {
  return hex(canonicalize_version(text)) + "\t" + hex(canonicalize_version(text, false));
}

// Inputs from packaging's tests/test_utils.py (canonicalize_version) plus generated versions.
TEST(WheelOracle, CanonicalVersionsAgreeWithPackaging) {
  Generator g;
  std::vector<std::string> versions = {
      "1.4",   "1.4.0",        "1.40.0",      "1.4.0.0.00.000.0000",      "1.0.0",       "1",
      "1.0a0", "1.0+deadbeef", "1.0.0+abc.0", "1!2.0.0.post1.dev0+x",     "foo bar baz", "1.0.*",
      "",      "v1.0",         " 1.0 ",       "18446744073709551616.0.0", "00!0.0"};
  while (versions.size() < 600) versions.push_back(version(g));
  compare("canon", versions, our_canon_answer);
}

TEST(WheelOracle, TagSetsAgreeWithParseTag) {
  Generator g;
  std::vector<std::string> tags = {"py2.py3-none-any", "py3-none", "a-b-c-d", "", "--", "PY3-NONE-İ"};
  while (tags.size() < 600) {
    std::string tag = tag_set(g);
    if (g.percent(5)) tag += "-x";
    if (g.percent(5)) tag = tag.substr(0, tag.rfind('-'));
    tags.push_back(tag);
  }
  const auto tally = compare("tag", tags, our_tag_answer);
  EXPECT_GE(tally.valid, 500u);
  EXPECT_GE(tags.size() - tally.valid, 20u);
}

// Every code point: re's \w and \d, int() of a digit, and str.lower(), against our tables.
TEST(WheelOracle, UnicodeTablesMatchPython) {
  const std::string python = test::oracle_python();
  ASSERT_FALSE(python.empty()) << test::oracle_missing_message();
  const auto run = test::run_shell(
      python + " " + test::shell_quote(test::source_path("tests/packaging/oracle_wheels.py")) + " --unicode");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::map<char32_t, std::vector<std::string_view>> expected;
  std::istringstream in(run.out);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_GT(lines.size(), 100000u);
  for (const auto& line : lines) {
    const auto fields = core::split(line, '\t');
    ASSERT_EQ(fields.size(), 4u) << line;
    expected[static_cast<char32_t>(std::stoul(std::string(fields[0]), nullptr, 16))] = fields;
  }
  std::size_t mismatches = 0;
  for (char32_t c = 0; c <= 0x10FFFF; ++c) {
    if (c >= 0xD800 && c <= 0xDFFF) continue;
    const auto it = expected.find(c);
    const bool word = it != expected.end() && it->second[1] == "1";
    const int digit = it != expected.end() ? std::stoi(std::string(it->second[2])) : -1;
    const std::string lower = it != expected.end() ? unhex(it->second[3]) : encode_utf8(c);
    const auto our_digit = python_digit_value(c);
    const bool same = is_python_word_char(c) == word &&
                      (our_digit ? static_cast<int>(*our_digit) : -1) == digit &&
                      python_lower(encode_utf8(c)) == lower;
    if (!same && ++mismatches <= 10)
      ADD_FAILURE() << "code point U+" << std::hex << static_cast<std::uint32_t>(c);
  }
  EXPECT_EQ(mismatches, 0u);
}

}  // namespace
}  // namespace relforge::packaging
