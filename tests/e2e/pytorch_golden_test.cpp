// Golden test: examples/pytorch/relforge.toml, expanded by the real binary, must be PyTorch's
// published wheel matrix, every field of every cell. The expectation is
// tests/fixtures/pytorch/expected-*.json (its README says where it comes from); the published
// per-OS counts and the generator's three checked exceptions are pinned here independently of it.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "tests/support/run.hpp"

namespace {

using relforge::test::relforge;
using relforge::test::run_shell;
using relforge::test::shell_quote;
using relforge::test::slurp;
using relforge::test::source_path;
using Json = nlohmann::ordered_json;
using Row = std::map<std::string, std::string>;
using Key = std::tuple<std::string, std::string, std::string>;  // os, python, desired_cuda

const std::vector<std::string> k_channels = {"nightly", "test", "release"};
const std::vector<std::string> k_emitted = {"python_version", "gpu_arch_type",         "gpu_arch_version",
                                            "desired_cuda",   "container_image",       "package_type",
                                            "build_name",     "validation_runner",     "installation",
                                            "channel",        "upload_to_base_bucket", "stable_version"};

// The counts PyTorch publishes (reference: matrix-and-release.md), independent of the fixture.
std::map<std::string, int> published_counts(const std::string& channel) {
  if (channel == "release") {
    return {{"linux", 42}, {"linux-aarch64", 30}, {"windows", 30}, {"macos-arm64", 6}, {"windows-arm64", 3}};
  }
  return {{"linux", 64}, {"linux-aarch64", 40}, {"windows", 40}, {"macos-arm64", 8}, {"windows-arm64", 3}};
}

std::string pytorch_config() {
  return shell_quote(source_path("examples/pytorch/relforge.toml").string());
}

std::string as_text(const Json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

Row to_row(const Json& object) {
  Row row;
  for (const auto& [name, value] : object.items()) row[name] = as_text(value);
  return row;
}

std::vector<Row> load_expected(const std::string& channel) {
  const auto text = slurp(source_path("tests/fixtures/pytorch/expected-" + channel + ".json"));
  std::vector<Row> rows;
  for (const auto& entry : Json::parse(text)) rows.push_back(to_row(entry));
  return rows;
}

// `matrix expand --format json`: an array of cell objects (id, build_id, then every field).
std::vector<Row> expand_json(const std::string& channel) {
  const auto result =
      relforge("matrix expand --config " + pytorch_config() + " --channel " + channel + " --format json");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  std::vector<Row> rows;
  const auto parsed = Json::parse(result.out, nullptr, false);
  EXPECT_TRUE(parsed.is_array()) << "not a JSON array: " << result.out.substr(0, 300);
  if (!parsed.is_array()) return rows;
  for (const auto& cell : parsed) rows.push_back(to_row(cell));
  return rows;
}

std::string field(const Row& row, const std::string& name) {
  const auto found = row.find(name);
  return found == row.end() ? std::string("<missing>") : found->second;
}

Key key_of(const Row& row) {
  return {field(row, "os"), field(row, "python_version"), field(row, "desired_cuda")};
}

std::string describe(const Key& key) {
  return std::get<0>(key) + " / " + std::get<1>(key) + " / " + std::get<2>(key);
}

class PytorchGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(PytorchGolden, ExpandMatchesPublishedMatrixCellForCell) {
  const std::string channel = GetParam();
  const auto expected = load_expected(channel);
  const auto actual = expand_json(channel);
  ASSERT_FALSE(actual.empty());

  std::map<std::string, int> expected_counts, actual_counts;
  for (const auto& row : expected) ++expected_counts[field(row, "os")];
  for (const auto& row : actual) ++actual_counts[field(row, "os")];
  EXPECT_EQ(expected_counts, published_counts(channel))
      << "the fixture is stale: re-run generate_expected.py";
  EXPECT_EQ(actual_counts, published_counts(channel));

  std::map<Key, std::vector<const Row*>> by_key;
  for (const auto& row : actual) by_key[key_of(row)].push_back(&row);

  std::vector<std::string> problems;  // missing, duplicate and extra cells first, then field differences
  std::vector<std::string> field_problems;
  std::set<Key> expected_keys;
  for (const auto& want : expected) {
    const Key key = key_of(want);
    expected_keys.insert(key);
    const auto found = by_key.find(key);
    if (found == by_key.end()) {
      problems.push_back("missing cell " + describe(key));
      continue;
    }
    if (found->second.size() != 1) {
      problems.push_back(describe(key) + " appears " + std::to_string(found->second.size()) + " times");
    }
    const Row& got = *found->second.front();
    for (const auto& [name, value] : want) {
      if (field(got, name) != value) {
        field_problems.push_back(describe(key) + ": " + name + " is '" + field(got, name) + "', expected '" +
                                 value + "'");
      }
    }
  }
  for (const auto& [key, rows] : by_key) {
    if (!expected_keys.count(key)) problems.push_back("extra cell " + describe(key));
  }
  problems.insert(problems.end(), field_problems.begin(), field_problems.end());
  std::ostringstream report;
  for (std::size_t i = 0; i < problems.size() && i < 40; ++i) report << "  " << problems[i] << "\n";
  EXPECT_TRUE(problems.empty()) << problems.size() << " differences on " << channel << ":\n" << report.str();
}

// `--format github` is what a workflow consumes: {"include": [...]} with PyTorch's fields, in its
// order, and the same entries as the generator (compared as a multiset: entries carry no os).
TEST_P(PytorchGolden, GithubFormatEmitsPytorchFieldsInOrder) {
  const std::string channel = GetParam();
  const auto result =
      relforge("matrix expand --config " + pytorch_config() + " --channel " + channel + " --format github");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto parsed = Json::parse(result.out, nullptr, false);
  ASSERT_TRUE(parsed.is_object()) << result.out.substr(0, 300);
  ASSERT_EQ(parsed.size(), 1u) << "only an include key is expected";
  ASSERT_TRUE(parsed.contains("include") && parsed["include"].is_array());

  std::multiset<std::vector<std::string>> expected_entries, actual_entries;
  for (const auto& row : load_expected(channel)) {
    std::vector<std::string> entry;
    for (const auto& name : k_emitted) entry.push_back(field(row, name));
    expected_entries.insert(entry);
  }
  for (const auto& item : parsed["include"]) {
    std::vector<std::string> names, entry;
    for (const auto& [name, value] : item.items()) {
      names.push_back(name);
      entry.push_back(as_text(value));
    }
    ASSERT_EQ(names, k_emitted) << "fields or their order differ in " << item.dump();
    actual_entries.insert(entry);
  }
  EXPECT_EQ(actual_entries.size(), expected_entries.size());
  EXPECT_TRUE(actual_entries == expected_entries) << "github entries differ from the generator's";
}

// The fields the generator's own output was checked for (reference: matrix-and-release.md), pinned
// verbatim so that a fixture repeating the config's mistake cannot hide it.
TEST_P(PytorchGolden, GeneratorCheckedExceptionsHold) {
  const std::string channel = GetParam();
  const std::string index = channel == "release" ? "https://download.pytorch.org/whl/cpu"
                                                 : "https://download.pytorch.org/whl/" + channel + "/cpu";
  const std::map<std::string, std::string> macos_python = {
      {"3.10", "3.10.19"}, {"3.11", "3.11.14"}, {"3.12", "3.12.12"}, {"3.13", "3.13"},
      {"3.14", "3.14.3"},  {"3.14t", "3.14t"},  {"3.15", "3.15"},    {"3.15t", "3.15t"}};
  const auto fixture = load_expected(channel);
  const auto actual = expand_json(channel);
  int windows_arm = 0, macos = 0;
  for (const auto* source : {&fixture, &actual}) {
    windows_arm = macos = 0;
    for (const auto& row : *source) {
      if (field(row, "os") == "windows-arm64") {
        ++windows_arm;
        EXPECT_EQ(field(row, "validation_runner"), "windows-11-arm64-preview");
        EXPECT_EQ(field(row, "installation"), "pip3 install --pre torch --index-url " + index);
      }
      if (field(row, "os") == "macos-arm64") {
        ++macos;
        // build_name keeps the minor version: wheel-py3_10-cpu for python_version 3.10.19.
        std::string minor = field(row, "build_name").substr(std::string("wheel-py").size());
        minor = minor.substr(0, minor.find("-cpu"));
        for (auto& c : minor) c = c == '_' ? '.' : c;
        ASSERT_TRUE(macos_python.count(minor)) << field(row, "build_name");
        EXPECT_EQ(field(row, "python_version"), macos_python.at(minor));
      }
    }
    EXPECT_EQ(windows_arm, 3);
    EXPECT_EQ(macos, channel == "release" ? 6 : 8);
  }
}

std::string channel_name(const ::testing::TestParamInfo<std::string>& param_info) {
  return param_info.param;
}

INSTANTIATE_TEST_SUITE_P(Channels, PytorchGolden, ::testing::ValuesIn(k_channels), channel_name);

// The committed expectation is what the oracle script writes today.
TEST(PytorchGoldenFixture, ExpectedJsonIsUpToDateWithTheOracle) {
  const auto result = run_shell(
      "/usr/bin/python3 " + shell_quote(source_path("tests/fixtures/pytorch/generate_expected.py").string()) +
      " --check");
  EXPECT_EQ(result.exit_code, 0) << result.err;
}

// The file names `matrix names` prints are exactly what the fixture's tags imply, and the
// packaging library (pip's) parses each back to torch + the version + its tag.
TEST(PytorchGoldenNames, NamesAreTheWheelsPackagingParses) {
  const std::string version = "2.15.0.dev20260101";
  const auto result =
      relforge("matrix names --config " + pytorch_config() + " --channel nightly --version " + version);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  std::vector<std::string> names;
  std::istringstream lines(result.out);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) names.push_back(line);
  }

  std::multiset<std::string> expected, expected_parsed;
  for (const auto& row : load_expected("nightly")) {
    const auto local = field(row, "local_version");
    const auto full_version = version + (local.empty() ? "" : "+" + local);
    const auto tag =
        field(row, "python_tag") + "-" + field(row, "abi_tag") + "-" + field(row, "platform_tag");
    expected.insert("torch-" + full_version + "-" + tag + ".whl");
    expected_parsed.insert("torch " + full_version + " " + tag);
  }
  EXPECT_EQ(std::multiset<std::string>(names.begin(), names.end()), expected);
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size()) << "duplicate file names";
  EXPECT_TRUE(expected.count("torch-2.15.0.dev20260101+cu126-cp314-cp314t-manylinux_2_28_x86_64.whl"));
  EXPECT_TRUE(expected.count("torch-2.15.0.dev20260101-cp313-none-macosx_11_0_arm64.whl"));

  // pip's own parser must read every name back as torch, the version and the cell's one tag.
  std::string input;
  for (const auto& name : names) input += name + "\n";
  const auto parsed =
      run_shell("/usr/bin/python3 -c " +
                    shell_quote("import sys\n"
                                "from packaging.utils import parse_wheel_filename\n"
                                "for line in sys.stdin.read().split():\n"
                                "    name, version, build, tags = parse_wheel_filename(line)\n"
                                "    print(name, version, '.'.join(sorted(str(t) for t in tags)))\n"),
                input);
  ASSERT_EQ(parsed.exit_code, 0) << parsed.err;
  std::multiset<std::string> parsed_lines;
  std::istringstream out(parsed.out);
  for (std::string line; std::getline(out, line);) {
    if (!line.empty()) parsed_lines.insert(line);
  }
  EXPECT_EQ(parsed_lines, expected_parsed);
}

}  // namespace
