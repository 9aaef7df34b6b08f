// examples/minitensor/relforge.toml through the real binary: its 30 cells (6 Pythons x 5
// accelerators, Python outermost), the fields later stages rely on, cibuildwheel-style selection
// with --select/--skip, and the wheel names it implies.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/run.hpp"

namespace {

using relforge::test::relforge;
using relforge::test::run_shell;
using relforge::test::RunResult;
using relforge::test::shell_quote;
using relforge::test::source_path;
using Json = nlohmann::ordered_json;
using Row = std::map<std::string, std::string>;

const std::vector<std::string> k_pythons = {"3.10", "3.11", "3.12", "3.13", "3.14", "3.14t"};
const std::vector<std::string> k_accels = {"cpu", "cu126", "cu130", "rocm7.2", "xpu"};

std::string minitensor_config() {
  return shell_quote(source_path("examples/minitensor/relforge.toml").string());
}

RunResult expand(const std::string& extra) {
  return relforge("matrix expand --config " + minitensor_config() + " --format json " + extra);
}

// The cells of a successful `--format json` expansion, in output order.
std::vector<Row> cells(const std::string& extra) {
  const auto result = expand(extra);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  std::vector<Row> rows;
  const auto parsed = Json::parse(result.out, nullptr, false);
  EXPECT_TRUE(parsed.is_array()) << result.out.substr(0, 300);
  if (!parsed.is_array()) return rows;
  for (const auto& cell : parsed) {
    Row row;
    for (const auto& [name, value] : cell.items())
      row[name] = value.is_string() ? value.get<std::string>() : value.dump();
    rows.push_back(row);
  }
  return rows;
}

const Row* find_cell(const std::vector<Row>& rows, const std::string& python, const std::string& accel) {
  for (const auto& row : rows) {
    if (row.at("python") == python && row.at("accel") == accel) return &row;
  }
  return nullptr;
}

std::vector<std::string> pythons_of(const std::vector<Row>& rows) {
  std::vector<std::string> out;
  for (const auto& row : rows) {
    if (out.empty() || out.back() != row.at("python")) out.push_back(row.at("python"));
  }
  return out;
}

TEST(MinitensorMatrix, ExpandsToThirtyCellsPythonOutermost) {
  for (const std::string channel : {"nightly", "test", "release"}) {
    const auto rows = cells("--channel " + channel);
    ASSERT_EQ(rows.size(), 30u) << channel;
    std::size_t i = 0;
    std::set<std::string> ids, build_ids;
    for (const auto& python : k_pythons) {
      for (const auto& accel : k_accels) {
        EXPECT_EQ(rows[i].at("python"), python) << "cell " << i;
        EXPECT_EQ(rows[i].at("accel"), accel) << "cell " << i;
        EXPECT_EQ(rows[i].at("id"), python + "-" + accel);
        EXPECT_EQ(rows[i].at("channel"), channel);
        ids.insert(rows[i].at("id"));
        build_ids.insert(rows[i].at("build_id"));
        ++i;
      }
    }
    EXPECT_EQ(ids.size(), 30u);
    EXPECT_EQ(build_ids.size(), 30u);
  }
}

TEST(MinitensorMatrix, CellsCarryTheFieldsBuildsAndPublishingUse) {
  const auto rows = cells("--channel nightly");
  const Row* cu126 = find_cell(rows, "3.12", "cu126");
  ASSERT_NE(cu126, nullptr);
  EXPECT_EQ(cu126->at("build_id"), "cp312-manylinux_2_28_x86_64-cu126");
  EXPECT_EQ(cu126->at("accel.version"), "12.6");
  EXPECT_EQ(cu126->at("accel.type"), "cuda");
  EXPECT_EQ(cu126->at("accel.arch_list"), "5.0;6.0;7.0;7.5;8.0;8.6;9.0");
  EXPECT_EQ(cu126->at("build_name"), "py3_12-cuda12_6");
  // The fleet gives each image a content-addressed tag: <variant>-<12 hex of its definition>.
  EXPECT_THAT(cu126->at("container_image"),
              ::testing::MatchesRegex("ghcr\\.io/minitensor/manylinux_2_28-builder:cuda12\\.6-[0-9a-f]{12}"));
  EXPECT_EQ(cu126->at("runner"), "linux.g5.4xlarge.nvidia.gpu");
  EXPECT_EQ(cu126->at("python_tag"), "cp312");
  EXPECT_EQ(cu126->at("abi_tag"), "cp312");
  EXPECT_EQ(cu126->at("platform_tag"), "manylinux_2_28_x86_64");
  EXPECT_EQ(cu126->at("local_version"), "cu126");
  EXPECT_EQ(
      cu126->at("install"),
      "pip install --pre minitensor --index-url https://download.example.org/minitensor/whl/nightly/cu126");

  const Row* cu130 = find_cell(rows, "3.10", "cu130");
  ASSERT_NE(cu130, nullptr);
  EXPECT_EQ(cu130->at("accel.arch_list"), "7.5;8.0;8.6;9.0;10.0;12.0");

  const Row* free_threaded = find_cell(rows, "3.14t", "cpu");
  ASSERT_NE(free_threaded, nullptr);
  EXPECT_EQ(free_threaded->at("python_tag"), "cp314");
  EXPECT_EQ(free_threaded->at("abi_tag"), "cp314t");
  EXPECT_EQ(free_threaded->at("build_id"), "cp314t-manylinux_2_28_x86_64-cpu");
  EXPECT_EQ(free_threaded->at("build_name"), "py3_14t-cpu");
  EXPECT_EQ(free_threaded->at("runner"), "linux.2xlarge");

  const Row* rocm = find_cell(rows, "3.13", "rocm7.2");
  ASSERT_NE(rocm, nullptr);
  EXPECT_EQ(rocm->at("build_name"), "py3_13-rocm7_2");
  EXPECT_EQ(rocm->at("local_version"), "rocm7.2");

  const auto release = cells("--channel release");
  const Row* stable = find_cell(release, "3.11", "xpu");
  ASSERT_NE(stable, nullptr);
  EXPECT_EQ(stable->at("install"),
            "pip install minitensor --index-url https://download.example.org/minitensor/whl/xpu");
  const auto test = cells("--channel test");
  const Row* candidate = find_cell(test, "3.11", "cpu");
  ASSERT_NE(candidate, nullptr);
  EXPECT_EQ(candidate->at("install"),
            "pip install minitensor --index-url https://download.example.org/minitensor/whl/test/cpu");
}

TEST(MinitensorMatrix, SelectAndSkipMatchBuildIdentifiers) {
  const auto cp312 = cells("--channel nightly --select 'cp312-*'");
  EXPECT_EQ(cp312.size(), 5u);
  EXPECT_EQ(pythons_of(cp312), std::vector<std::string>{"3.12"});

  // cp314* alone would take both 3.14 and the free-threaded 3.14t; the skip drops 3.14t.
  const auto both = cells("--channel nightly --select 'cp314*'");
  EXPECT_EQ(pythons_of(both), (std::vector<std::string>{"3.14", "3.14t"}));
  const auto gil_only = cells("--channel nightly --select 'cp31{3,4}*' --skip '*t-*'");
  EXPECT_EQ(gil_only.size(), 10u);
  EXPECT_EQ(pythons_of(gil_only), (std::vector<std::string>{"3.13", "3.14"}));

  const auto no_rocm = cells("--channel nightly --skip '*-rocm*'");
  EXPECT_EQ(no_rocm.size(), 24u);
  for (const auto& row : no_rocm) EXPECT_NE(row.at("accel"), "rocm7.2");

  const auto nothing = expand("--channel nightly --select 'cp39-*'");
  EXPECT_EQ(nothing.exit_code, 3) << "nothing selected is exit code 3, as in cibuildwheel";
  EXPECT_TRUE(nothing.out.empty()) << nothing.out;
  EXPECT_FALSE(nothing.err.empty());
}

TEST(MinitensorMatrix, GithubFormatEmitsTheDeclaredFields) {
  const auto result =
      relforge("matrix expand --config " + minitensor_config() + " --channel nightly --format github");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto parsed = Json::parse(result.out, nullptr, false);
  ASSERT_TRUE(parsed.is_object() && parsed.contains("include")) << result.out.substr(0, 300);
  ASSERT_EQ(parsed["include"].size(), 30u);
  const std::vector<std::string> emitted = {"python", "accel",   "build_name", "container_image",
                                            "runner", "install", "channel"};
  for (const auto& entry : parsed["include"]) {
    std::vector<std::string> names;
    for (const auto& [name, value] : entry.items()) names.push_back(name);
    EXPECT_EQ(names, emitted);
  }
  EXPECT_EQ(parsed["include"][0]["build_name"], "py3_10-cpu");
}

TEST(MinitensorMatrix, NamesAreValidWheelFileNames) {
  const auto result = relforge("matrix names --config " + minitensor_config() +
                               " --channel nightly --version 0.3.0.dev20260101");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  std::vector<std::string> names;
  std::istringstream lines(result.out);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) names.push_back(line);
  }
  ASSERT_EQ(names.size(), 30u);
  EXPECT_EQ(names.front(), "minitensor-0.3.0.dev20260101+cpu-cp310-cp310-manylinux_2_28_x86_64.whl");
  EXPECT_EQ(names.back(), "minitensor-0.3.0.dev20260101+xpu-cp314-cp314t-manylinux_2_28_x86_64.whl");

  std::string input;
  for (const auto& name : names) input += name + "\n";
  const auto parsed = run_shell(
      "/usr/bin/python3 -c " + shell_quote("import sys\n"
                                           "from packaging.utils import parse_wheel_filename\n"
                                           "for line in sys.stdin.read().split():\n"
                                           "    name, version, build, tags = parse_wheel_filename(line)\n"
                                           "    print(name, version)\n"),
      input);
  ASSERT_EQ(parsed.exit_code, 0) << parsed.err;
  std::istringstream out(parsed.out);
  std::size_t count = 0;
  for (std::string name, version; out >> name >> version; ++count) {
    EXPECT_EQ(name, "minitensor");
    EXPECT_EQ(version.rfind("0.3.0.dev20260101+", 0), 0u) << version;
  }
  EXPECT_EQ(count, 30u);
}

}  // namespace
