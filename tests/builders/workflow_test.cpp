// The GitHub Actions workflow renderer: structure, sharding, YAML quoting, and every refusal.
#include "builders/workflow.hpp"

#include <gtest/gtest.h>

#include <string>

#include "matrix/config.hpp"
#include "matrix/expand.hpp"

namespace relforge::builders {
namespace {

// 3 Pythons x 2 accelerators, with runner, container_image and build_name fields like
// examples/minitensor; `extra` is appended to the config.
matrix::Expansion expansion(const std::string& extra = "",
                            const std::string& pythons = "\"3.11\", \"3.12\", \"3.13\"") {
  const std::string text =
      "[project]\nname = \"demo\"\n[matrix]\nid = \"{python}-{accel}\"\n"
      "[[matrix.axis]]\nname = \"python\"\nkind = \"version\"\nvalues = [" +
      pythons +
      "]\n"
      "[[matrix.axis]]\nname = \"accel\"\nvalues = [\n"
      "  { value = \"cpu\", type = \"cpu\", image = \"cpu\", runner = \"linux.2xlarge\" },\n"
      "  { value = \"cu130\", type = \"cuda\", image = \"cuda13.0\", runner = "
      "\"linux.g5.4xlarge.nvidia.gpu\" },\n"
      "]\n"
      "[[matrix.field]]\nname = \"build_name\"\ntemplate = \"py{python|underscore}-{accel}\"\n"
      "[[matrix.field]]\nname = \"container_image\"\ntemplate = \"ghcr.io/demo/builder:{accel.image}\"\n"
      "[[matrix.field]]\nname = \"runner\"\ntemplate = \"{accel.runner}\"\n" +
      extra;
  auto spec = matrix::parse_spec(text, "t.toml");
  EXPECT_TRUE(spec) << spec.error().describe();
  auto result = matrix::expand(*spec, "nightly");
  EXPECT_TRUE(result) << result.error().describe();
  return std::move(*result);
}

WorkflowOptions options() {
  WorkflowOptions o;
  o.config = "examples/demo/relforge.toml";
  o.schedules = {"23 3 * * *"};
  return o;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

std::string render_error(const WorkflowOptions& o, const matrix::Expansion& e, ErrorCategory category) {
  const auto result = render_workflow(o, e);
  EXPECT_FALSE(result);
  if (result) return "";
  EXPECT_EQ(result.error().category(), category) << result.error().describe();
  return result.error().describe();
}

TEST(Workflow, OneShardHasPlanBuildAndCollect) {
  const auto result = render_workflow(options(), expansion());
  ASSERT_TRUE(result) << result.error().describe();
  const auto& yaml = result->yaml;
  EXPECT_EQ(result->jobs, (std::vector<std::string>{"plan", "build", "collect"}));
  EXPECT_EQ(result->cells, 6u);
  EXPECT_EQ(result->shards, 1u);
  EXPECT_EQ(result->artifact_field, "build_name");
  EXPECT_TRUE(result->notes.empty());
  EXPECT_TRUE(has(yaml, "\non:\n  workflow_dispatch:\n  schedule:\n    - cron: \"23 3 * * *\"\n")) << yaml;
  EXPECT_TRUE(has(yaml, "  RELFORGE_CI_CONFIG: examples/demo/relforge.toml\n"));
  EXPECT_TRUE(has(yaml, "  RELFORGE_CI_CHANNEL: nightly\n"));
  EXPECT_TRUE(has(yaml,
                  "--fields id,runner,container_image,build_name --shard-size 256 --format github "
                  "--github-output\n"));
  EXPECT_TRUE(has(yaml, "      matrix: ${{ steps.expand.outputs.matrix }}\n"));
  EXPECT_TRUE(has(yaml, "      matrix: ${{ fromJSON(needs.plan.outputs.matrix) }}\n"));
  EXPECT_TRUE(has(yaml, "    runs-on: ${{ matrix.runner }}\n    container: ${{ matrix.container_image }}\n"));
  EXPECT_TRUE(has(yaml, "    timeout-minutes: 240\n"));
  EXPECT_TRUE(has(yaml, "--cell \"$RELFORGE_CI_CELL\""));
  EXPECT_TRUE(has(yaml,
                  "          name: ${{ matrix.build_name }}\n          path: relforge-state/wheels/*.whl\n"
                  "          if-no-files-found: error\n"));
  EXPECT_TRUE(has(yaml, "    needs:\n      - plan\n      - build\n"));
  EXPECT_TRUE(has(yaml, "merge-multiple: true"));
  EXPECT_FALSE(has(yaml, "Publish"));
  EXPECT_FALSE(has(yaml, "\n  push:"));
  EXPECT_EQ(count(yaml, "uses: actions/upload-artifact@v4"), 2u);  // the wheel, and the log on failure
  // The plan job refuses to run a matrix that outgrew the jobs written here.
  EXPECT_TRUE(has(yaml, "if [ \"$shards\" -ne 1 ]; then\n"));
}

TEST(Workflow, SameInputSameText) {
  const auto a = render_workflow(options(), expansion());
  const auto b = render_workflow(options(), expansion());
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->yaml, b->yaml);
}

TEST(Workflow, ShardsGetOneBuildJobEach) {
  auto o = options();
  o.shard_size = 4;  // 6 cells -> 2 shards
  const auto result = render_workflow(o, expansion());
  ASSERT_TRUE(result) << result.error().describe();
  const auto& yaml = result->yaml;
  EXPECT_EQ(result->shards, 2u);
  EXPECT_EQ(result->jobs, (std::vector<std::string>{"plan", "build-0", "build-1", "collect"}));
  EXPECT_TRUE(has(yaml,
                  "      matrix-0: ${{ steps.expand.outputs.matrix-0 }}\n"
                  "      matrix-1: ${{ steps.expand.outputs.matrix-1 }}\n"));
  EXPECT_FALSE(has(yaml, "steps.expand.outputs.matrix }}"));
  EXPECT_TRUE(has(yaml, "  build-0:\n"));
  EXPECT_TRUE(has(yaml, "fromJSON(needs.plan.outputs.matrix-0)"));
  EXPECT_TRUE(has(yaml, "fromJSON(needs.plan.outputs.matrix-1)"));
  EXPECT_TRUE(has(yaml, "--shard-size 4 "));
  EXPECT_TRUE(has(yaml, "shards=$(( (cells + 3) / 4 ))\n          if [ \"$shards\" -ne 2 ]; then\n"));
  EXPECT_TRUE(has(yaml, "    needs:\n      - plan\n      - build-0\n      - build-1\n"));
}

TEST(Workflow, ExactlyFullShardsAndTheGitHubLimit) {
  auto o = options();
  o.shard_size = 3;
  auto result = render_workflow(o, expansion());
  ASSERT_TRUE(result);
  EXPECT_EQ(result->shards, 2u);
  o.shard_size = 6;
  result = render_workflow(o, expansion());
  ASSERT_TRUE(result);
  EXPECT_EQ(result->shards, 1u);
  o.shard_size = 257;
  EXPECT_TRUE(
      has(render_error(o, expansion(), ErrorCategory::invalid_input), "--shard-size 257 is outside 1..256"));
  o.shard_size = 0;
  EXPECT_TRUE(has(render_error(o, expansion(), ErrorCategory::invalid_input), "outside 1..256"));
}

TEST(Workflow, TriggersNameAndPublish) {
  auto o = options();
  o.tags = {"v[0-9]+.[0-9]+.[0-9]+-rc[0-9]+"};
  o.branches = {"release/*"};
  o.name = "minitensor: test wheels";
  o.channel = "nightly";
  o.publish_command = "relforge publish --channel nightly dist/*.whl";
  const auto result = render_workflow(o, expansion());
  ASSERT_TRUE(result) << result.error().describe();
  const auto& yaml = result->yaml;
  EXPECT_TRUE(has(yaml, "\nname: \"minitensor: test wheels\"\n"));
  EXPECT_TRUE(has(yaml,
                  "  push:\n    branches:\n      - release/*\n    tags:\n"
                  "      - v[0-9]+.[0-9]+.[0-9]+-rc[0-9]+\n"));
  // In collect, checkout comes before the download (it empties the workspace), then verify, publish.
  const auto collect = yaml.substr(yaml.find("  collect:\n"));
  const auto checkout = collect.find("actions/checkout@v4");
  const auto download = collect.find("actions/download-artifact@v4");
  const auto verify = collect.find("relforge wheel verify");
  const auto publish = collect.find("run: relforge publish --channel nightly dist/*.whl");
  ASSERT_NE(checkout, std::string::npos);
  EXPECT_LT(checkout, download);
  EXPECT_LT(download, verify);
  EXPECT_LT(verify, publish);
  EXPECT_NE(publish, std::string::npos);
}

TEST(Workflow, MultiLineSetupIsALiteralBlock) {
  auto o = options();
  o.setup_command = "pip install relforge==0.3.0\necho \"ok: $(relforge --version)\" # check\n";
  const auto result = render_workflow(o, expansion());
  ASSERT_TRUE(result);
  EXPECT_EQ(count(result->yaml,
                  "        run: |\n          pip install relforge==0.3.0\n"
                  "          echo \"ok: $(relforge --version)\" # check\n"),
            2u)
      << result->yaml;  // plan and build
}

TEST(Workflow, FieldsOptionsAndDottedNames) {
  auto o = options();
  o.runner_field = "accel.runner";
  o.image_field = "";
  o.artifact_field = "id";
  const auto result = render_workflow(o, expansion());
  ASSERT_TRUE(result) << result.error().describe();
  const auto& yaml = result->yaml;
  EXPECT_TRUE(has(yaml, "    runs-on: ${{ matrix['accel.runner'] }}\n"));
  EXPECT_FALSE(has(yaml, "container:"));
  EXPECT_TRUE(has(yaml, "--fields id,accel.runner --shard-size"));
  EXPECT_TRUE(has(yaml, "          name: ${{ matrix.id }}\n"));
}

TEST(Workflow, HostRunnersGetNoContainer) {
  // The cu130 cells run on a Windows label: GitHub runs job containers on Linux runners only.
  const auto windows = expansion(
      "[[matrix.field]]\nname = \"runner\"\ntemplate = \"windows.g4dn.xlarge\"\nwhen = { accel = \"cu130\" "
      "}\n");
  auto result = render_workflow(options(), windows);
  ASSERT_TRUE(result) << result.error().describe();
  ASSERT_EQ(result->notes.size(), 1u);
  EXPECT_TRUE(has(result->notes[0], "3 cells run on Windows or macOS runners (e.g. windows.g4dn.xlarge)"))
      << result->notes[0];
  auto o = options();
  o.host_runner_prefixes = {"windows", "mac'os"};
  result = render_workflow(o, windows);
  ASSERT_TRUE(result) << result.error().describe();
  EXPECT_TRUE(result->notes.empty());
  EXPECT_TRUE(has(result->yaml,
                  "    container: ${{ !(startsWith(matrix.runner, 'windows') || "
                  "startsWith(matrix.runner, 'mac''os')) && matrix.container_image || '' }}\n"))
      << result->yaml;
}

TEST(Workflow, ArtifactFieldDefaultsToIdWithoutBuildName) {
  const std::string text =
      "[project]\nname = \"demo\"\n[matrix]\n[[matrix.axis]]\nname = \"python\"\nvalues = [\"3.12\"]\n"
      "[[matrix.field]]\nname = \"runner\"\ntemplate = \"linux.2xlarge\"\n";
  auto spec = matrix::parse_spec(text, "t.toml");
  ASSERT_TRUE(spec);
  auto plain = matrix::expand(*spec, "nightly");
  ASSERT_TRUE(plain);
  auto o = options();
  o.image_field = "";
  const auto result = render_workflow(o, *plain);
  ASSERT_TRUE(result) << result.error().describe();
  EXPECT_EQ(result->artifact_field, "id");
  // With the default image field and no such field, the error names the fields there are.
  const auto message = render_error(options(), *plain, ErrorCategory::invalid_input);
  EXPECT_TRUE(has(message, "--image-field 'container_image' is not a field of the cells")) << message;
}

TEST(Workflow, UnknownFieldSuggestsTheClosest) {
  auto o = options();
  o.runner_field = "runer";
  const auto message = render_error(o, expansion(), ErrorCategory::invalid_input);
  EXPECT_TRUE(has(message, "--runner-field 'runer' is not a field of the cells; did you mean 'runner'?"))
      << message;
  o = options();
  o.artifact_field = "build_nam";
  EXPECT_TRUE(has(render_error(o, expansion(), ErrorCategory::invalid_input), "did you mean 'build_name'?"));
}

TEST(Workflow, CellsThatCannotRunOrUpload) {
  // Two cells with the same artifact name would make the second upload fail.
  auto o = options();
  o.artifact_field = "accel";
  auto message = render_error(o, expansion(), ErrorCategory::invalid_input);
  EXPECT_TRUE(has(message, "cells 3.11-cpu and 3.12-cpu would upload the same artifact 'cpu'")) << message;
  // A cell without a runner label.
  auto empty_runner =
      expansion("[[matrix.field]]\nname = \"runner\"\ntemplate = \"\"\nwhen = { accel = \"cu130\" }\n");
  message = render_error(options(), empty_runner, ErrorCategory::invalid_input);
  EXPECT_TRUE(has(message, "cell 3.11-cu130 has no runner label (field 'runner' is empty)")) << message;
  // An artifact name GitHub refuses.
  auto slash = expansion(
      "[[matrix.field]]\nname = \"build_name\"\ntemplate = \"py/{python}-{accel}\"\n"
      "when = { accel = \"cpu\" }\n");
  message = render_error(options(), slash, ErrorCategory::invalid_input);
  EXPECT_TRUE(has(message, "cell 3.11-cpu: 'py/3.11-cpu' (field 'build_name') cannot name an artifact"))
      << message;
}

TEST(Workflow, RefusesPathsOutsideTheCheckout) {
  auto o = options();
  o.config = "/work/main/relforge.toml";
  EXPECT_TRUE(has(render_error(o, expansion(), ErrorCategory::invalid_input), "is absolute"));
  o.config = "../other/relforge.toml";
  EXPECT_TRUE(has(render_error(o, expansion(), ErrorCategory::invalid_input), "leaves the repository"));
  o = options();
  o.state_dir = ".relforge";
  EXPECT_TRUE(
      has(render_error(o, expansion(), ErrorCategory::invalid_input), "upload-artifact skips hidden paths"));
  o = options();
  o.config = "relforge-${{ github.ref }}.toml";
  EXPECT_TRUE(has(render_error(o, expansion(), ErrorCategory::invalid_input), "GitHub would evaluate"));
  o.config = "a\nb.toml";
  EXPECT_TRUE(has(render_error(o, expansion(), ErrorCategory::invalid_input), "control character"));
}

TEST(Workflow, RefusesBadSchedulesAndLimits) {
  auto o = options();
  o.schedules = {"0 3 * *"};
  EXPECT_TRUE(has(render_error(o, expansion(), ErrorCategory::invalid_input), "has 4 fields"));
  o.schedules = {"0 3 * * * ;"};
  EXPECT_TRUE(has(render_error(o, expansion(), ErrorCategory::invalid_input), "';' is not a cron field"));
  o = options();
  o.timeout_minutes = 0;
  EXPECT_TRUE(has(render_error(o, expansion(), ErrorCategory::invalid_input), "--timeout-minutes 0"));
  o = options();
  o.setup_command = "  ";
  EXPECT_TRUE(has(render_error(o, expansion(), ErrorCategory::invalid_input), "--setup-command is empty"));
}

TEST(Workflow, SelectAndSkipReachThePlanJobQuoted) {
  auto o = options();
  o.select = {"cp312-*"};
  o.skip = {"*t-*", "it's"};
  const auto result = render_workflow(o, expansion());
  ASSERT_TRUE(result);
  EXPECT_EQ(count(result->yaml, " --select 'cp312-*' --skip '*t-*' --skip 'it'\\''s'"), 2u) << result->yaml;
}

TEST(YamlScalar, PlainWhenItReadsBackAsTheSameString) {
  for (const char* text :
       {"ubuntu-latest", "${{ matrix.runner }}", "actions/checkout@v4", "relforge-state/wheels/*.whl",
        "v[0-9]+.[0-9]+-rc[0-9]+", "build ${{ matrix.id }}", "a#b", "a:b", "x y"}) {
    EXPECT_EQ(yaml_scalar(text), text);
  }
}

TEST(YamlScalar, QuotesWhatAParserWouldReadDifferently) {
  EXPECT_EQ(yaml_scalar(""), "\"\"");
  EXPECT_EQ(yaml_scalar("23 3 * * *"), "\"23 3 * * *\"");  // a number would start it
  EXPECT_EQ(yaml_scalar("3.12"), "\"3.12\"");
  EXPECT_EQ(yaml_scalar("-1"), "\"-1\"");
  EXPECT_EQ(yaml_scalar(".5"), "\".5\"");
  EXPECT_EQ(yaml_scalar(".inf"), "\".inf\"");
  for (const char* word : {"on", "Off", "yes", "NO", "true", "False", "null", "~", "y", "n"})
    EXPECT_EQ(yaml_scalar(word), "\"" + std::string(word) + "\"");
  for (const char* text :
       {"a: b", "a #b", "-x",  "*ref", "&anchor", "!tag", "|",  ">",     "'q",     "\"q",  "%x",
        "@x",   "`x",   "{a}", "[a]",  ",a",      "?x",   "#c", " lead", "trail ", "end:", "<<"}) {
    EXPECT_EQ(yaml_scalar(text).front(), '"') << text;
  }
}

TEST(YamlScalar, EscapesInDoubleQuotes) {
  EXPECT_EQ(yaml_scalar("say \"hi\"\\now: x"), "\"say \\\"hi\\\"\\\\now: x\"");
  EXPECT_EQ(yaml_scalar("a\nb\tc\rd"), "\"a\\nb\\tc\\rd\"");
  EXPECT_EQ(yaml_scalar(std::string("a\x01") + "\x7f"), "\"a\\x01\\x7f\"");
  EXPECT_EQ(yaml_scalar("naïve: ü"), "\"naïve: ü\"");  // UTF-8 stays as it is
}

}  // namespace
}  // namespace relforge::builders
