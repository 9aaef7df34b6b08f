// Differential test: PEP 508 requirements and markers against packaging 26.3's Requirement and
// Marker (tests/packaging/oracle_requirements.py): validity, str(), and evaluation in several
// target environments, on packaging's own test inputs and thousands of generated ones.
#include <gtest/gtest.h>

#include <unistd.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "packaging/marker.hpp"
#include "packaging/requirement.hpp"
#include "tests/packaging/oracle_python.hpp"
#include "tests/support/run.hpp"
#include "tests/support/splitmix64.hpp"

namespace relforge::packaging {
namespace {

std::string hex_or_dash(std::string_view text) {
  static constexpr char k_digits[] = "0123456789abcdef";
  std::string out;
  for (const char c : text) {
    out += k_digits[static_cast<unsigned char>(c) >> 4];
    out += k_digits[static_cast<unsigned char>(c) & 15];
  }
  return out.empty() ? "-" : out;
}

using Rng = test::SplitMix64;

// From packaging's tests/test_markers.py (VARIABLES, PEP_345_VARIABLES, SETUPTOOLS_VARIABLES,
// OPERATORS, VALUES, and the invalid, str() and evaluate() examples) and
// tests/test_requirements.py; the expected answers come from packaging 26.3 at test time.
constexpr std::array<const char*, 18> k_variables = {"extra",
                                                     "implementation_name",
                                                     "implementation_version",
                                                     "os_name",
                                                     "platform_machine",
                                                     "platform_release",
                                                     "platform_system",
                                                     "platform_version",
                                                     "python_full_version",
                                                     "python_version",
                                                     "platform_python_implementation",
                                                     "sys_platform",
                                                     "os.name",
                                                     "sys.platform",
                                                     "platform.version",
                                                     "platform.machine",
                                                     "platform.python_implementation",
                                                     "python_implementation"};
constexpr std::array<const char*, 10> k_operators = {
    "===", "==", ">=", "<=", "!=", "~=", ">", "<", "in", "not in"};
constexpr std::array<const char*, 6> k_values = {
    "1.0", "5.6a0", "dog", "freebsd", "literally any string can go here", "things @#4 dsfd((("};

std::vector<std::string> packaging_marker_inputs() {
  std::vector<std::string> out;
  for (const char* variable : k_variables) {
    for (const char* op : k_operators) {
      for (const char* value : k_values) {
        out.push_back(std::string(variable) + " " + op + " '" + value + "'");
        out.push_back("'" + std::string(value) + "' " + op + " " + variable);
      }
    }
  }
  for (const char* text :
       {"this_isnt_a_real_variable >= '1.0'",
        "python_version",
        "(python_version)",
        "python_version >= 1.0 and (python_version)",
        "(python_version == \"2.7\" and os_name == \"linux\"",
        "(python_version == \"2.7\") with random text",
        "os_name == \"C:\\\"",
        "os_name == \"\\x\"",
        "python_version == '2.7'",
        "python_version == \"2.7\" and os_name == \"linux\" or sys_platform == \"win32\"",
        "(python_version == \"2.7\")",
        "(python_version == \"2.7\" and sys_platform == \"win32\")",
        "python_version == \"2.7\" and (sys_platform == \"win32\" or sys_platform == \"linux\")",
        "'2.7' in python_version",
        "'2.7' not in python_version",
        "os_name == 'foo' and python_version ~= '2.7.0'",
        "python_version ~= '2.7.0' and (os_name == 'foo' or os_name == 'bar')",
        "extra == 'security'",
        "extra == 'SECURITY'",
        "extra == 'pep-685-norm'",
        "extra == 'Different.punctuation..is...equal'",
        "\"2.7.9\" < python_full_version",
        "\"b\" < python_full_version",
        "\"b\" > \"a\"",
        "\"a\" <= \"a\"",
        "'2.7.0' ~= os_name",
        "python_full_version > \"3.6.2\"",
        "platform.machine=='x86_64'",
        "python_version == '2.5' and platform.python_implementation!= 'Jython'"}) {
    out.emplace_back(text);
  }
  return out;
}

std::vector<std::string> packaging_requirement_inputs() {
  return {"name",
          "foobar",
          "name[bar]",
          "name[bar,baz]",
          "name[ bar , baz ]",
          "name>=3",
          "name>=3,<2",
          "name (>=3)",
          "name@ http://foo.com",
          "name @ https://example.com/name;extra=='bar'",
          "name @ https://example.com/name ; extra=='bar'",
          "name[bar]>=3; python_version>='2.7'",
          "name; os_name=='a' or os_name=='b'",
          "name; os_name=='a' and os_name=='b' or os_name=='c'",
          "name; os_name=='a' and (os_name=='b' or os_name=='c')",
          "name; (os_name=='a' or os_name=='b') and os_name=='c'",
          "name==1.0.org1",
          "name[bar baz]",
          "name[bar,]",
          "name[",
          "name (>=1.0",
          "name>=1.0 ; extra == 'FOO'",
          "name===arbitrary",
          "name==1.0.*",
          "name==1.0a1.*",
          "name>=1.0.*",
          "name<=1.0+local",
          "name==1.0+local",
          "name;",
          "name @ ",
          "name @ file:///tmp/x.whl extra",
          "-name",
          "name.",
          "name-",
          "name_ >= 1",
          "Name.Foo_bar-baz",
          "name[bar]@ https://x",
          "name ~= 1.0",
          "name~=1"};
}

std::string generated_marker(Rng& rng, int depth = 0) {
  static constexpr std::array<const char*, 16> k_vars = {"python_version",
                                                         "python_full_version",
                                                         "sys_platform",
                                                         "platform_machine",
                                                         "os_name",
                                                         "extra",
                                                         "implementation_name",
                                                         "platform_system",
                                                         "platform_release",
                                                         "os.name",
                                                         "sys.platform",
                                                         "platform.machine",
                                                         "python_implementation",
                                                         "implementation_version",
                                                         "platform_version",
                                                         "extras"};
  static constexpr std::array<const char*, 20> k_vals = {
      "3.8",     "3.9",      "3.13",    "3.13.1",    "3",       "3.*",   "3.10.*",
      "linux",   "win32",    "darwin",  "x86_64",    "aarch64", "posix", "nt",
      "cpython", "Security", "CPython", "3.13.0rc1", "",        "1!3.0"};
  static constexpr std::array<const char*, 12> k_ops = {"==", "!=",  ">=", "<=",     "<", ">",
                                                        "~=", "===", "in", "not in", "=", "not  in"};
  static constexpr std::array<const char*, 5> k_ws = {" ", "", "  ", "\t", " "};
  const auto atom = [&]() -> std::string {
    if (depth < 2 && rng.percent(15))
      return "(" + std::string(rng.pick(k_ws)) + generated_marker(rng, depth + 1) + ")";
    const char quote = rng.percent(50) ? '"' : '\'';
    const std::string value = quote + std::string(rng.pick(k_vals)) + quote;
    const std::string var = rng.pick(k_vars);
    const bool flip = rng.percent(20);
    return (flip ? value : var) + rng.pick(k_ws) + rng.pick(k_ops) + rng.pick(k_ws) + (flip ? var : value);
  };
  std::string out = atom();
  const std::size_t more = rng.below(3);
  for (std::size_t i = 0; i < more; ++i)
    out += std::string(" ") + (rng.percent(50) ? "and" : "or") + " " + atom();
  return out;
}

std::string generated_requirement(Rng& rng) {
  static constexpr std::array<const char*, 8> k_names = {"torch",  "Torch_Audio", "numpy", "a",
                                                         "my.pkg", "x-y",         "pkg9",  "Zope.Interface"};
  static constexpr std::array<const char*, 12> k_specs = {
      ">=2.6",       "==2.6.*", "<3,>=2",        "~=1.4.2", "!=1.5",   "===1.0",
      "==1.0+cu126", ">1.0a1",  " >= 1.0 , < 2", "==v1.0",  ">=1!2.0", "<=2.0.post1"};
  static constexpr std::array<const char*, 6> k_extras = {"cuda", "Dev_Tools", "all", "a.b", "x-y", "test"};
  std::string out = rng.pick(k_names);
  if (rng.percent(30)) {
    out += "[";
    const std::size_t n = 1 + rng.below(3);
    for (std::size_t i = 0; i < n; ++i)
      out += (i ? (rng.percent(30) ? " , " : ",") : "") + std::string(rng.pick(k_extras));
    out += "]";
  }
  if (rng.percent(15)) {
    out += std::string(rng.percent(50) ? " @ " : "@") + "https://example.com/x-1.0.whl";
    if (rng.percent(50)) out += std::string(rng.percent(70) ? " ; " : ";") + generated_marker(rng);
  } else {
    if (rng.percent(70)) {
      const std::string spec = rng.pick(k_specs);
      out += rng.percent(20) ? " (" + spec + ")" : (rng.percent(30) ? " " : "") + spec;
    }
    if (rng.percent(50)) out += std::string(rng.percent(70) ? "; " : ";") + generated_marker(rng);
  }
  if (rng.percent(8)) {
    const std::size_t at = rng.below(out.size() + 1);
    static constexpr std::array<const char*, 8> k_noise = {"(", ")", ",", ";", "[", "'", " ", ".*"};
    out.insert(at, rng.pick(k_noise));
  }
  return out;
}

std::vector<MarkerEnvironment> environments() {
  std::vector<MarkerEnvironment> out;
  for (const auto& [python, platform] : std::vector<std::pair<std::pair<unsigned, unsigned>, std::string>>{
           {{3, 13}, "manylinux_2_28_x86_64"},
           {{3, 9}, "win_amd64"},
           {{3, 12}, "macosx_14_0_arm64"},
           {{3, 8}, "musllinux_1_2_aarch64"}}) {
    auto env = environment_for(python.first, python.second, platform);
    EXPECT_TRUE(env.has_value()) << platform;
    if (env) out.push_back(*env);
  }
  out.push_back(out[0]);
  out.back()["extra"] = "Security";
  out.push_back(out[1]);
  out.back()["python_full_version"] = "3.9.18+";
  out.back()["extra"] = "dev-tools";
  out.push_back(out[2]);
  out.back()["python_version"] = "3.13.0rc1";
  out.back()["platform_release"] = "23.1.0";
  return out;
}

std::string evaluations(const std::optional<Marker>& marker, const std::vector<MarkerEnvironment>& envs) {
  if (!marker) return std::string(envs.size(), '-');
  std::string out;
  for (const auto& env : envs) {
    const auto result = marker->evaluate(env);
    out += !result ? 'E' : *result ? '1' : '0';
  }
  return out;
}

TEST(RequirementOracle, AgreesWithPackaging26) {
  std::vector<std::pair<char, std::string>> cases;
  for (const auto& text : packaging_marker_inputs()) cases.emplace_back('M', text);
  for (const auto& text : packaging_requirement_inputs()) cases.emplace_back('R', text);
  Rng rng(508);
  for (int i = 0; i < 2500; ++i) cases.emplace_back('M', generated_marker(rng));
  for (int i = 0; i < 2500; ++i) cases.emplace_back('R', generated_requirement(rng));
  const auto envs = environments();

  const std::string python = test::oracle_python();
  ASSERT_FALSE(python.empty()) << test::oracle_missing_message();
  const auto dir =
      std::filesystem::temp_directory_path() / ("relforge-pep508-oracle-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    std::ofstream file(dir / "cases.txt");
    for (const auto& env : envs) {
      file << "E ";
      bool first = true;
      for (const auto& [key, value] : env) {
        file << (first ? "" : ",") << key << "=" << (value.empty() ? "" : hex_or_dash(value));
        first = false;
      }
      file << '\n';
    }
    for (const auto& [kind, text] : cases) file << kind << ' ' << hex_or_dash(text) << '\n';
  }
  const auto run = test::run_shell(
      python + " " + test::shell_quote(test::source_path("tests/packaging/oracle_requirements.py")) + " " +
      test::shell_quote((dir / "cases.txt").string()));
  std::filesystem::remove_all(dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::istringstream lines(run.out);
  std::size_t valid = 0, errors = 0, trues = 0, disagreements = 0;
  for (const auto& [kind, text] : cases) {
    std::string expected;
    ASSERT_TRUE(std::getline(lines, expected)) << "the oracle answered too few lines";
    std::string ours;
    if (kind == 'M') {
      const auto marker = parse_marker(text);
      ours = marker ? "ok " + hex_or_dash(marker->to_string()) + " " + evaluations(*marker, envs) : "invalid";
    } else {
      const auto requirement = parse_requirement(text);
      ours = requirement ? "ok " + hex_or_dash(requirement->to_string()) + " " +
                               evaluations(requirement->marker, envs)
                         : "invalid";
    }
    if (expected != "invalid") {
      ++valid;
      for (const char c : expected.substr(expected.rfind(' ') + 1)) {
        errors += c == 'E';
        trues += c == '1';
      }
    }
    if (ours != expected && ++disagreements <= 30) {
      ADD_FAILURE() << (kind == 'M' ? "marker " : "requirement ") << "'" << text
                    << "'\n  packaging: " << expected << "\n  relforge:  " << ours;
    }
  }
  EXPECT_EQ(disagreements, 0u);
  EXPECT_GE(valid, 2000u);
  EXPECT_GE(cases.size() - valid, 300u);
  EXPECT_GE(errors, 100u);
  EXPECT_GE(trues, 1000u);
  std::printf("[ oracle   ] pep508: %zu cases, %zu valid, %zu true evaluations, %zu errors\n", cases.size(),
              valid, trues, errors);
}

}  // namespace
}  // namespace relforge::packaging
