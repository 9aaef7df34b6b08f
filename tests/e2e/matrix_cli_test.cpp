// `relforge matrix` end to end: the real binary on the fixtures in tests/fixtures/matrix/.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/e2e.hpp"
#include "tests/support/paths.hpp"
#include "tests/support/run.hpp"

namespace relforge::test {
namespace {

namespace fs = std::filesystem;

const fs::path k_fixtures = source_path("tests/fixtures/matrix");

// Runs relforge in the fixtures folder, so messages name the fixture as given.
RunResult matrix(const std::string& args, const std::string& env = "") {
  return run_shell("cd " + shell_quote(k_fixtures.string()) + " && " + env + " " +
                   shell_quote(relforge::test::relforge_binary()) + " matrix " + args);
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    out.push_back(text.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

struct DiagnosticCase {
  const char* args;
  int exit_code;
  const char* message;  // the whole first stderr line after "relforge: error: "
};

class MatrixDiagnostics : public ::testing::TestWithParam<DiagnosticCase> {};

TEST_P(MatrixDiagnostics, ExitCodeMessageAndEmptyStdout) {
  const auto& c = GetParam();
  const auto result = matrix(c.args);
  EXPECT_EQ(result.exit_code, c.exit_code) << result.err;
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err, std::string("relforge: error: ") + c.message + "\n");
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, MatrixDiagnostics,
    ::testing::Values(
        DiagnosticCase{"expand --config unknown-key.toml", 2,
                       "unknown-key.toml:5:10: unknown key 'exlude' in [matrix]; did you mean 'exclude'?"},
        DiagnosticCase{
            "expand --config unknown-axis.toml", 2,
            "unknown-axis.toml:6:1: [[matrix.exclude]] names 'pyhton', which is not an axis; did you mean "
            "'python'?"},
        DiagnosticCase{
            "expand --config zip-unequal.toml", 2,
            "zip-unequal.toml:8:1: [[matrix.zip]] axes have unequal lengths on channel 'nightly': 'python' "
            "has 2, 'image' has 3 values; zipped axes need the same number of values"},
        DiagnosticCase{
            "expand --config zip-twice.toml", 2,
            "zip-twice.toml:13:1: axis 'image' is in two [[matrix.zip]] groups (lines 11 and 13); an axis "
            "belongs to at most one group"},
        DiagnosticCase{
            "expand --config duplicate-id.toml", 2,
            "duplicate-id.toml:2:6: duplicate cell id 'linux' on channel 'nightly': produced by os=linux "
            "python=3.12 and by os=linux python=3.13; make [matrix] id include what tells them apart"},
        DiagnosticCase{
            "expand --config empty.toml", 3,
            "the matrix in empty.toml has no cells on channel 'nightly' (2 combinations, 2 excluded)"},
        DiagnosticCase{"expand --config bad-value.toml", 2,
                       "bad-value.toml:4:18: a value of axis 'python' must be a string, boolean, integer or "
                       "a table with "
                       "'value', not a "
                       "float (quote it: TOML reads 3.10 as the number 3.1)"},
        DiagnosticCase{"expand --config no-values.toml", 2,
                       "no-values.toml:4:10: axis 'python' has no values: list at least one"},
        DiagnosticCase{
            "expand --config unknown-channel.toml", 2,
            "unknown-channel.toml:4:48: unknown channel 'nighly' in the channels of python '3.15'; did you "
            "mean 'nightly'? (the channels are 'nightly', 'test' and 'release')"},
        DiagnosticCase{"expand --config good.toml --channel beta", 2,
                       "unknown channel 'beta'; expected one of: nightly, test, release (good.toml defines "
                       "'nightly', 'test' and 'release')"},
        DiagnosticCase{
            "expand --config template-unknown.toml", 2,
            "template-unknown.toml:7:12: field 'tag': template 'cp{pyton|nodot}': unknown name 'pyton'; "
            "did you mean 'python'?"},
        DiagnosticCase{
            "expand --config bad-toml.toml", 2,
            "bad-toml.toml:3:15: invalid TOML: Error while parsing string: unescaped control characters "
            "other than TAB (U+0009) are explicitly prohibited"},
        DiagnosticCase{"expand --config good.toml --select 'cp39-*'", 3,
                       "no cell matches --select 'cp39-*' (18 cells on channel 'nightly' before selection)"},
        DiagnosticCase{"expand --config good.toml --format yaml", 2,
                       "unknown format 'yaml'; expected table, json, github or ids"},
        DiagnosticCase{
            "expand --config good.toml --format github --shard-size 300", 2,
            "--shard-size must be between 1 and 256 (GitHub Actions runs at most 256 jobs per matrix)"},
        DiagnosticCase{
            "expand --config missing.toml", 4,
            "config file 'missing.toml' does not exist (pass --config, or create relforge.toml: see "
            "docs/config.md)"},
        DiagnosticCase{"diff --config good.toml --against unknown-key.toml", 2,
                       "unknown-key.toml:5:10: unknown key 'exlude' in [matrix]; did you mean 'exclude'?"},
        DiagnosticCase{"names --config large.toml --version 1.0", 2,
                       "wheel names need the project name: set [project] name"},
        DiagnosticCase{"names --config good.toml --version 1.0+local", 2,
                       "--version '1.0+local' already has a local label, and cell 'linux-py3.12-cpu' adds "
                       "local_version 'cpu'"}));

TEST(MatrixCli, BadSpecifierIsExitTwoWithPosition) {
  const auto result = matrix("expand --config bad-specifier.toml");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(
      result.err.rfind("relforge: error: bad-specifier.toml:7:10: [[matrix.exclude]] 'python': bad specifier "
                       "'>=3.x': ",
                       0),
      0u)
      << result.err;
}

TEST(MatrixCli, ErrorsAsJsonWithJsonFlag) {
  const auto result = matrix("expand --config empty.toml --json");
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_EQ(result.out, "");
  const auto body = nlohmann::json::parse(result.err);
  EXPECT_EQ(body["error"]["category"], "nothing_selected");
  EXPECT_EQ(body["error"]["exit_code"], 3);
}

TEST(MatrixCli, JsonConflictsWithAnotherFormat) {
  const auto result = matrix("expand --config good.toml --format table --json");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(nlohmann::json::parse(result.err)["error"]["message"],
            "--json conflicts with --format table; use one");
}

TEST(MatrixCli, TableIsTheDefaultAndEndsWithTheCount) {
  const auto result = matrix("expand --config good.toml");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto rows = lines(result.out);
  ASSERT_EQ(rows.size(), 20u);
  EXPECT_EQ(rows.front().rfind(
                "id                       build_id                              os           python", 0),
            0u)
      << rows.front();
  EXPECT_EQ(rows[1].rfind("linux-py3.12-cpu         cp312-manylinux_2_28_x86_64-cpu", 0), 0u) << rows[1];
  EXPECT_EQ(rows.back(),
            "18 cells (channel nightly; 3 attribute columns not shown: --fields or --format json)");
  EXPECT_EQ(result.err, "");
}

TEST(MatrixCli, FieldsChooseTheColumnsAndUnknownOnesAreRejected) {
  const auto chosen = matrix("expand --config good.toml --select 'cp312-*' --fields id,python");
  ASSERT_EQ(chosen.exit_code, 0) << chosen.err;
  const auto rows = lines(chosen.out);
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows.front(), "id                      python");
  const auto github =
      matrix("expand --config good.toml --select 'cp312-*' --format github --fields python,id");
  ASSERT_EQ(github.exit_code, 0) << github.err;
  const auto document = nlohmann::ordered_json::parse(github.out);
  std::vector<std::string> keys;
  for (const auto& [key, value] : document["include"][0].items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"python", "id"}));
  const auto bad = matrix("expand --config good.toml --fields id,pyton");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.out, "");
  EXPECT_NE(bad.err.find("unknown field 'pyton' in --fields; did you mean 'python'?"), std::string::npos)
      << bad.err;
}

TEST(MatrixCli, ReadsRelforgeTomlInTheCurrentDirectoryByDefault) {
  TempDir dir;
  fs::copy_file(k_fixtures / "good.toml", dir.path / "relforge.toml");
  const auto result = run_shell("cd " + shell_quote(dir.path.string()) + " && " +
                                shell_quote(relforge::test::relforge_binary()) +
                                " matrix expand --format ids --channel release");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(lines(result.out).size(), 10u);
}

TEST(MatrixCli, JsonFlagEqualsFormatJson) {
  const auto a = matrix("expand --config good.toml --json");
  const auto b = matrix("expand --config good.toml --format json");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  const auto cells = nlohmann::ordered_json::parse(a.out);
  ASSERT_EQ(cells.size(), 18u);
  EXPECT_EQ(cells[0]["id"], "linux-py3.12-cpu");
  EXPECT_EQ(cells[0]["build_id"], "cp312-manylinux_2_28_x86_64-cpu");
  EXPECT_EQ(cells[0]["accel.type"], "cpu");
  EXPECT_EQ(cells[0]["channel"], "nightly");
  EXPECT_EQ(cells[0].size(), 14u);  // id, build_id, 3 axes, 3 attributes, 5 derived fields, channel
}

TEST(MatrixCli, ChannelsAndSelectors) {
  EXPECT_EQ(lines(matrix("expand --config good.toml --format ids --channel release").out).size(), 10u);
  EXPECT_EQ(lines(matrix("expand --config good.toml --format ids --os 'mac*'").out),
            (std::vector<std::string>{"macos-arm64-py3.12-cpu", "macos-arm64-py3.14t-cpu",
                                      "macos-arm64-py3.15-cpu"}));
  EXPECT_EQ(
      lines(matrix("expand --config good.toml --format ids --select 'cp31{2,5}-win*' --skip '*-cu130'").out),
      (std::vector<std::string>{"windows-py3.12-cpu", "windows-py3.15-cpu"}));
}

TEST(MatrixCli, GithubFormatIsOneCompactInclude) {
  const auto result = matrix("expand --config good.toml --format github --channel release");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  ASSERT_EQ(lines(result.out).size(), 1u);
  const auto body = nlohmann::ordered_json::parse(result.out);
  ASSERT_EQ(body["include"].size(), 10u);
  EXPECT_EQ(body["include"][8], (nlohmann::ordered_json{{"id", "macos-arm64-py3.12-cpu"},
                                                        {"python", "3.12"},
                                                        {"accel", "cpu"},
                                                        {"installation", "pip3 install torch==2.13.0"}}));
  EXPECT_EQ(result.err, "");
}

TEST(MatrixCli, GithubFormatShardsAbove256WithANote) {
  const auto result = matrix("expand --config large.toml --format github");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto documents = lines(result.out);
  ASSERT_EQ(documents.size(), 2u);
  EXPECT_EQ(nlohmann::json::parse(documents[0])["include"].size(), 256u);
  EXPECT_EQ(nlohmann::json::parse(documents[1])["include"].size(), 44u);
  EXPECT_NE(
      result.err.find("relforge: note: 300 cells exceed the shard size 256: split into 2 GitHub matrices"),
      std::string::npos)
      << result.err;
  EXPECT_EQ(lines(matrix("expand --config large.toml --format github --shard-size 100").out).size(), 3u);
}

TEST(MatrixCli, GithubOutputAppendsTheMatrix) {
  TempDir dir;
  const auto file = dir.path / "github_output";
  std::ofstream(file) << "earlier=1\n";
  const auto result = matrix("expand --config good.toml --format ids --github-output",
                             "GITHUB_OUTPUT=" + shell_quote(file.string()));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(lines(result.out).size(), 18u);
  const auto written = lines(slurp(file));
  ASSERT_EQ(written.size(), 2u);
  EXPECT_EQ(written[0], "earlier=1");
  ASSERT_EQ(written[1].rfind("matrix={\"include\":[", 0), 0u);
  EXPECT_EQ(nlohmann::json::parse(written[1].substr(7))["include"].size(), 18u);
}

TEST(MatrixCli, GithubOutputWhenSharded) {
  TempDir dir;
  const auto file = dir.path / "github_output";
  const auto result = matrix("expand --config large.toml --format ids --github-output --shard-size 128",
                             "GITHUB_OUTPUT=" + shell_quote(file.string()));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto written = lines(slurp(file));
  ASSERT_EQ(written.size(), 5u);
  EXPECT_EQ(written[0].rfind("matrix-0={\"include\":[", 0), 0u);
  EXPECT_EQ(written[1].rfind("matrix-1={\"include\":[", 0), 0u);
  EXPECT_EQ(nlohmann::json::parse(written[2].substr(9))["include"].size(), 44u);
  EXPECT_EQ(written[3], "shard-count=3");
  EXPECT_EQ(written[4], "shards=[0,1,2]");
}

TEST(MatrixCli, GithubOutputWithoutTheVariableFails) {
  const auto result = matrix("expand --config good.toml --github-output", "env -u GITHUB_OUTPUT");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err,
            "relforge: error: --github-output needs $GITHUB_OUTPUT, the file GitHub Actions provides; it "
            "is not set\n");
}

TEST(MatrixCli, DiffText) {
  const auto result = matrix("diff --config good.toml --against before.toml --channel release");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out,
            "- 5 cells removed, by axis value:\n"
            "    os: linux (2), windows (2), macos-arm64 (1)\n"
            "    python: 3.11 (5)\n"
            "    accel: cpu (3), cu130 (2)\n"
            "~ installation: 'pip3 install torch==2.12.0' -> 'pip3 install torch==2.13.0' on 2 cells: "
            "macos-arm64-py3.12-cpu, macos-arm64-py3.14t-cpu\n"
            "0 added, 5 removed, 2 changed\n");
}

TEST(MatrixCli, DiffJson) {
  const auto result = matrix("diff --config good.toml --against before.toml --json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto body = nlohmann::json::parse(result.out);
  EXPECT_EQ(body["added"].size(), 8u);  // ROCm and Python 3.15 cells on nightly
  EXPECT_EQ(body["removed"].size(), 5u);
  EXPECT_EQ(body["changed"].size(), 0u);
  EXPECT_EQ(body["added"][0]["id"], "linux-py3.12-rocm7.2");
  EXPECT_EQ(body["summary"]["added_by_axis"]["python"]["values"],
            (nlohmann::json{{"3.12", 1}, {"3.14t", 1}, {"3.15", 6}}));
  EXPECT_EQ(body["summary"]["removed_by_axis"]["python"]["values"], (nlohmann::json{{"3.11", 5}}));
  EXPECT_EQ(body["different"], true);
}

TEST(MatrixCli, DiffExitCode) {
  // Different: exit 1 with --exit-code, 0 without; the same report either way.
  const auto plain = matrix("diff --config good.toml --against before.toml");
  const auto flagged = matrix("diff --config good.toml --against before.toml --exit-code");
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(flagged.exit_code, 1) << flagged.err;
  EXPECT_EQ(flagged.out, plain.out);
  EXPECT_EQ(flagged.err, "");
  const auto json = matrix("diff --config good.toml --against before.toml --exit-code --json");
  EXPECT_EQ(json.exit_code, 1);
  EXPECT_EQ(nlohmann::json::parse(json.out)["different"], true);
  // The same: exit 0.
  const auto same = matrix("diff --config good.toml --against good.toml --exit-code");
  EXPECT_EQ(same.exit_code, 0) << same.err;
  EXPECT_EQ(same.out, "0 added, 0 removed, 0 changed\n");
  // Only a change in fields that are not compared: the same.
  const auto filtered = matrix(
      "diff --config good.toml --against before.toml --channel release --select 'cp312-macosx*' "
      "--fields platform_tag --exit-code");
  EXPECT_EQ(filtered.exit_code, 0) << filtered.err;
  EXPECT_EQ(filtered.out, "0 added, 0 removed, 0 changed\n");
  // Errors keep their own codes.
  EXPECT_EQ(matrix("diff --config good.toml --against missing.toml --exit-code").exit_code, 4);
}

TEST(MatrixCli, DiffFieldsAndSelect) {
  const auto result = matrix(
      "diff --config good.toml --against before.toml --channel release --fields installation,python_tag "
      "--select 'cp31{1,2}-*'");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out,
            "- 5 cells removed, by axis value:\n"
            "    os: linux (2), windows (2), macos-arm64 (1)\n"
            "    python: 3.11 (5)\n"
            "    accel: cpu (3), cu130 (2)\n"
            "~ installation: 'pip3 install torch==2.12.0' -> 'pip3 install torch==2.13.0' on 1 cell: "
            "macos-arm64-py3.12-cpu\n"
            "0 added, 5 removed, 1 changed\n");
  const auto bad = matrix("diff --config good.toml --against before.toml --fields instalation");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("unknown field 'instalation' in --fields; did you mean 'installation'?"),
            std::string::npos)
      << bad.err;
}

TEST(MatrixCli, DiffTwoChannelsOfOneConfig) {
  const auto result =
      matrix("diff --config good.toml --channel nightly --against-channel release --exit-code");
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_EQ(
      result.out,
      "+ 8 cells added, by axis value:\n"
      "    os: linux (5), windows (2), macos-arm64 (1)\n"
      "    python: 3.12 (1), 3.14t (1), 3.15 (6)\n"
      "    accel: rocm7.2 (3), cpu (3), cu130 (2)\n"
      "~ installation: 'pip3 install --pre torch --index-url https://download.pytorch.org/whl/release/cpu' "
      "-> "
      "'pip3 install --pre torch --index-url https://download.pytorch.org/whl/nightly/cpu' on 4 cells: "
      "linux-py3.12-cpu, linux-py3.14t-cpu, windows-py3.12-cpu, windows-py3.14t-cpu\n"
      "~ channel: 'release' -> 'nightly' on all 10 cells in both\n"
      "~ installation: 'pip3 install --pre torch --index-url https://download.pytorch.org/whl/release/cu130' "
      "-> 'pip3 install --pre torch --index-url https://download.pytorch.org/whl/nightly/cu130' on 4 cells: "
      "linux-py3.12-cu130, linux-py3.14t-cu130, windows-py3.12-cu130, windows-py3.14t-cu130\n"
      "~ installation: 'pip3 install torch==2.13.0' -> 'pip3 install --pre torch --index-url "
      "https://download.pytorch.org/whl/nightly/cpu' on 2 cells: macos-arm64-py3.12-cpu, "
      "macos-arm64-py3.14t-cpu\n"
      "8 added, 0 removed, 10 changed\n");
  // --fields narrows it to the one change every common cell has.
  const auto channel_only =
      matrix("diff --config good.toml --channel nightly --against-channel release --fields channel");
  EXPECT_EQ(lines(channel_only.out).at(4), "~ channel: 'release' -> 'nightly' on all 10 cells in both");
  const auto same = matrix("diff --config good.toml --channel test --against-channel test --exit-code");
  EXPECT_EQ(same.exit_code, 0) << same.err;
  const auto unknown = matrix("diff --config good.toml --against-channel nighty");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("unknown channel 'nighty'"), std::string::npos) << unknown.err;
}

TEST(MatrixCli, DiffNeedsSomethingToCompareWith) {
  const auto result = matrix("diff --config good.toml");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err,
            "relforge: error: matrix diff needs something to compare with: --against OLD.toml (another "
            "config) and/or --against-channel NAME (another channel of this config)\n");
}

// GitHub Actions reads a matrix with fromJSON and tests `if: ${{ matrix.flag }}` by its truthiness:
// false, 0, "" and null are false, and so is nothing else, "false" included. Emulated here on the
// $GITHUB_OUTPUT relforge writes.
TEST(MatrixCli, ABooleanFalseIsFalseInAGithubActionsIf) {
  TempDir dir;
  {
    std::ofstream config(dir.path / "relforge.toml");
    config << "[matrix]\n"
              "[[matrix.axis]]\nname = \"os\"\nvalues = [\"linux\", \"windows\"]\n"
              "[[matrix.axis]]\nname = \"upload\"\nvalues = [true, false]\n"
              "[[matrix.include]]\nos = \"windows\"\nretries = 0\nlabel = \"false\"\n"
              "[matrix.emit]\nfields = [\"id\", \"upload\", \"retries\", \"label\"]\n";
  }
  const auto output = dir.path / "github_output";
  const auto expanded = run_shell(
      "cd " + shell_quote(dir.path.string()) + " && GITHUB_OUTPUT=" + shell_quote(output.string()) + " " +
      shell_quote(relforge::test::relforge_binary()) + " matrix expand --format github --github-output");
  ASSERT_EQ(expanded.exit_code, 0) << expanded.err;
  const std::string script = R"JS(
const fs = require("node:fs");
const line = fs.readFileSync(process.argv[1], "utf8").split("\n").find((l) => l.startsWith("matrix="));
const matrix = JSON.parse(line.slice("matrix=".length));            // fromJSON(needs.plan.outputs.matrix)
const truthy = (v) => !(v === false || v === null || v === 0 || v === "" || Number.isNaN(v));
for (const cell of matrix.include) {
  const ran = (field) => (cell[field] === undefined ? "-" : truthy(cell[field]) ? "runs" : "skipped");
  console.log(`${cell.id} if:upload=${ran("upload")} if:retries=${ran("retries")} if:label=${ran("label")}`);
}
)JS";
  const auto evaluated = run_shell("node -e " + shell_quote(script) + " " + shell_quote(output.string()));
  ASSERT_EQ(evaluated.exit_code, 0) << evaluated.err;
  EXPECT_EQ(evaluated.out,
            "linux-true if:upload=runs if:retries=skipped if:label=skipped\n"
            "linux-false if:upload=skipped if:retries=skipped if:label=skipped\n"
            "windows-true if:upload=runs if:retries=skipped if:label=runs\n"
            "windows-false if:upload=skipped if:retries=skipped if:label=runs\n");
  // The document itself carries JSON booleans and numbers; the string stays a string.
  EXPECT_NE(expanded.out.find("{\"id\":\"linux-false\",\"upload\":false,"), std::string::npos)
      << expanded.out;
  EXPECT_NE(expanded.out.find("\"retries\":0,\"label\":\"false\""), std::string::npos) << expanded.out;
}

TEST(MatrixCli, NamesText) {
  const auto result = matrix("names --config good.toml --version 2.14.0 --channel test --os macos-arm64");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out,
            "torch-2.14.0-cp312-cp312-macosx_11_0_arm64.whl\n"
            "torch-2.14.0-cp314-cp314t-macosx_11_0_arm64.whl\n"
            "torch-2.14.0-cp315-cp315-macosx_11_0_arm64.whl\n");
}

TEST(MatrixCli, NamesJsonWithSelection) {
  const auto result = matrix("names --config good.toml --version 2.14.0 --select 'cp314t-manylinux*' --json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto body = nlohmann::json::parse(result.out);
  ASSERT_EQ(body.size(), 3u);
  EXPECT_EQ(body[1],
            (nlohmann::json{{"id", "linux-py3.14t-cu130"},
                            {"build_id", "cp314t-manylinux_2_28_x86_64-cu130"},
                            {"filename", "torch-2.14.0+cu130-cp314-cp314t-manylinux_2_28_x86_64.whl"}}));
}

TEST(MatrixCli, NamesNeedsVersion) {
  const auto result = matrix("names --config good.toml");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.out, "");
}

}  // namespace
}  // namespace relforge::test
